import Link from "next/link";
import { InvitationsPanel } from "~/components/invitations";
import { PageHeader } from "~/components/page-header";
import { myInvitations } from "~/server/dashboard/members";
import { organisationLabel } from "~/i18n/labels";
import { getI18n } from "~/i18n/server";
import { requireDashboardMember } from "~/server/auth/dashboard-session";
import { getTenantOverview } from "~/server/stats/overview";
import { effectiveUserScopes } from "~/server/auth/permissions";
import { pageTitle } from "~/i18n/metadata";

export const generateMetadata = pageTitle("nav.overview");

export default async function OverviewPage() {
  const { db, tenant, user } = await requireDashboardMember();
  const scopes = await effectiveUserScopes(db, { tenantId: tenant.tenantId, userId: user.id, role: tenant.role });
  const [overview, { t, number }, invitations] = await Promise.all([
    getTenantOverview(db, {
      tenantId: tenant.tenantId,
      readScopes: scopes.read,
      keysOf: tenant.role === "admin" ? undefined : user.id,
    }),
    getI18n(),
    // A session opened with a password another organisation's admin chose cannot answer invitations.
    user.onlyTenantId ? [] : myInvitations(db, user.id),
  ]);
  const cards = [
    { label: t("overview.activeMemories"), value: overview.activeMemories, href: "/memories" },
    { label: t("overview.messages"), value: overview.messages, href: "/sessions" },
    { label: t("overview.sessions"), value: overview.sessions, href: "/sessions" },
    { label: t("overview.keys"), value: overview.activeKeys, href: "/admin/keys" },
    { label: t("overview.members"), value: overview.members, href: tenant.role === "admin" ? "/admin/members" : "/" },
  ];
  return (
    <>
      <PageHeader
        title={organisationLabel(t, tenant.tenantName)}
        description={
          user.name
            ? t("overview.signedInAsNamed", {
                name: user.name,
                email: user.email,
                role: t(tenant.role === "admin" ? "members.roleAdmin" : "members.roleMember"),
              })
            : t("overview.signedInAs", {
                email: user.email,
                role: t(tenant.role === "admin" ? "members.roleAdmin" : "members.roleMember"),
              })
        }
      />
      <InvitationsPanel invitations={invitations} />
      <section aria-label="Totals" className="grid grid-cols-2 gap-4 lg:grid-cols-5">
        {cards.map((card) => (
          <Link
            key={card.label}
            href={card.href}
            className="rounded-2xl border border-zinc-200 bg-white p-5 shadow-sm transition hover:border-indigo-300 dark:border-zinc-800 dark:bg-zinc-900"
          >
            <p className="text-sm text-zinc-500 dark:text-zinc-400">{card.label}</p>
            <p className="mt-2 text-3xl font-semibold tabular-nums">{number(card.value)}</p>
          </Link>
        ))}
      </section>
      {overview.activeMemories === 0 ? (
        <section className="mt-8 rounded-2xl border border-zinc-200 bg-white p-6 dark:border-zinc-800 dark:bg-zinc-900">
          <h2 className="font-semibold">{t("overview.emptyTitle")}</h2>
          <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">
            {t("overview.emptyBefore")}{" "}
            <Link href="/admin/keys" className="font-medium text-indigo-600 hover:underline">
              {t("nav.keys")}
            </Link>
            {t("overview.emptyAfter")}
          </p>
        </section>
      ) : null}
    </>
  );
}
