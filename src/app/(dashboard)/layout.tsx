import { Sidebar } from "~/components/sidebar";
import { requireDashboardMember } from "~/server/auth/dashboard-session";

export const dynamic = "force-dynamic";

export default async function DashboardLayout({ children }: { children: React.ReactNode }) {
  const { user, tenant } = await requireDashboardMember();
  return (
    <div className="flex min-h-screen flex-col md:flex-row">
      <Sidebar isAdmin={tenant.role === "admin"} email={user.email} tenantName={tenant.tenantName} />
      <main className="min-w-0 flex-1 px-4 py-6 md:px-10 md:py-10">{children}</main>
    </div>
  );
}
