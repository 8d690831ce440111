import Link from "next/link";
import { PageHeader } from "~/components/page-header";
import { requireDashboardMember } from "~/server/auth/dashboard-session";
import { getTenantOverview } from "~/server/stats/overview";

export const metadata = { title: "Overview" };

export default async function OverviewPage() {
  const { db, tenant, user } = await requireDashboardMember();
  const overview = await getTenantOverview(db, tenant.tenantId);
  const cards = [
    { label: "Active memories", value: overview.activeMemories, href: "/memories" },
    { label: "Evidence messages", value: overview.messages, href: "/sessions" },
    { label: "Sessions", value: overview.sessions, href: "/sessions" },
    { label: "Active API keys", value: overview.activeKeys, href: "/admin/keys" },
    { label: "Members", value: overview.members, href: "/admin/members" },
  ];
  return (
    <>
      <PageHeader title={tenant.tenantName} description={`Signed in as ${user.email} (${tenant.role}).`} />
      <section aria-label="Totals" className="grid grid-cols-2 gap-4 lg:grid-cols-5">
        {cards.map((card) => (
          <Link key={card.label} href={card.href} className="rounded-2xl border border-zinc-200 bg-white p-5 shadow-sm transition hover:border-indigo-300 dark:border-zinc-800 dark:bg-zinc-900">
            <p className="text-sm text-zinc-500 dark:text-zinc-400">{card.label}</p>
            <p className="mt-2 text-3xl font-semibold tabular-nums">{card.value.toLocaleString()}</p>
          </Link>
        ))}
      </section>
      {overview.activeMemories === 0 ? (
        <section className="mt-8 rounded-2xl border border-zinc-200 bg-white p-6 dark:border-zinc-800 dark:bg-zinc-900">
          <h2 className="font-semibold">No memories yet</h2>
          <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">
            Agents write memory through the tool endpoint with an API key. Create a key under{" "}
            <Link href="/admin/keys" className="font-medium text-indigo-600 hover:underline">
              API keys
            </Link>
            , then follow “Connect an agent” in the README.
          </p>
        </section>
      ) : null}
    </>
  );
}
