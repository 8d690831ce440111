import { SessionKeepAlive } from "~/components/session-keep-alive";
import { Sidebar } from "~/components/sidebar";
import { I18nProvider } from "~/i18n/client";
import { getI18n } from "~/i18n/server";
import { requireDashboardMember } from "~/server/auth/dashboard-session";
import { TRPCReactProvider } from "~/trpc/react";

export const dynamic = "force-dynamic";

export default async function DashboardLayout({ children }: { children: React.ReactNode }) {
  const [{ user, tenant, memberships }, { locale, timeZone }] = await Promise.all([
    requireDashboardMember(),
    getI18n(),
  ]);
  return (
    <I18nProvider locale={locale} timeZone={timeZone}>
      <TRPCReactProvider tenantId={tenant.tenantId}>
        <div lang={locale === "zh" ? "zh-CN" : "en"} className="flex min-h-screen flex-col md:flex-row">
          <Sidebar
            isAdmin={tenant.role === "admin"}
            email={user.email}
            name={user.name ?? null}
            tenantId={tenant.tenantId}
            memberships={memberships.map(({ tenantId, tenantName }) => ({ tenantId, tenantName }))}
          />
          <main className="min-w-0 flex-1 px-4 py-6 md:px-10 md:py-10">{children}</main>
          <SessionKeepAlive />
        </div>
      </TRPCReactProvider>
    </I18nProvider>
  );
}
