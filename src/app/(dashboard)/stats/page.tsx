import Link from "next/link";
import { PageHeader } from "~/components/page-header";
import { CountBars, SearchesChart, WritesChart } from "~/components/stats/charts";
import { ErrorState, Panel } from "~/components/ui";
import { getI18n } from "~/i18n/server";
import { attempt, serverApi } from "~/trpc/server";
import { pageTitle } from "~/i18n/metadata";

export const generateMetadata = pageTitle("nav.stats");

const WINDOWS = [7, 30, 90] as const;

export default async function StatsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { days: daysParam } = await searchParams;
  const days = WINDOWS.find((d) => String(d) === daysParam) ?? 30;
  const [{ t, number, timeZone }, api] = await Promise.all([getI18n(), serverApi()]);
  const stats = await attempt(() => api.memory.stats({ days, timeZone }));
  const header = (
    <PageHeader
      title={t("stats.title")}
      description={t("stats.description", { timeZone })}
      actions={
        <nav aria-label={t("stats.window")} className="flex gap-1 text-sm">
          {WINDOWS.map((d) => (
            <Link
              key={d}
              href={`/stats?days=${d}`}
              aria-current={d === days ? "true" : undefined}
              className="rounded-lg px-3 py-1.5 hover:bg-zinc-100 aria-[current=true]:bg-indigo-50 aria-[current=true]:font-medium aria-[current=true]:text-indigo-700 dark:hover:bg-zinc-800"
            >
              {t("stats.days", { n: d })}
            </Link>
          ))}
        </nav>
      }
    />
  );
  if (!stats.ok)
    return (
      <>
        {header}
        <ErrorState title={t("stats.loadError")} message={stats.message} />
      </>
    );
  const s = stats.data;
  const totals = [
    { label: t("stats.activeCards"), value: s.byScopeType.reduce((n, r) => n + r.count, 0) },
    { label: t("stats.writes"), value: s.writesPerDay.reduce((n, r) => n + r.total, 0) },
    { label: t("stats.searches"), value: s.latency.count },
    { label: "p50", value: s.latency.p50, unit: " ms" },
    { label: "p95", value: s.latency.p95, unit: " ms" },
  ];
  return (
    <>
      {header}
      <section aria-label={t("stats.totals")} className="mb-6 grid grid-cols-2 gap-4 lg:grid-cols-5">
        {totals.map((c) => (
          <div
            key={c.label}
            className="rounded-2xl border border-zinc-200 bg-white p-5 shadow-sm dark:border-zinc-800 dark:bg-zinc-900"
          >
            <p className="text-sm text-zinc-500 dark:text-zinc-400">{c.label}</p>
            <p className="mt-2 text-2xl font-semibold tabular-nums">
              {c.value === null ? "—" : `${number(c.value)}${c.unit ?? ""}`}
            </p>
          </div>
        ))}
      </section>
      <div className="grid gap-6 lg:grid-cols-3">
        <Panel title={t("stats.byKind")}>
          <CountBars
            data={s.byKind.map((r) => ({ name: r.kind, count: r.count }))}
            label={t("stats.byKind")}
            valueLabel={t("stats.cards")}
          />
        </Panel>
        <Panel title={t("stats.byScope")}>
          <CountBars
            data={s.byScopeType.map((r) => ({ name: r.scopeType, count: r.count }))}
            label={t("stats.byScope")}
            valueLabel={t("stats.cards")}
          />
        </Panel>
        <Panel title={t("stats.byStatus")}>
          <CountBars
            data={s.byStatus.map((r) => ({ name: t(`status.${r.status as "active"}`), count: r.count }))}
            label={t("stats.byStatus")}
            valueLabel={t("stats.cards")}
          />
        </Panel>
      </div>
      <Panel title={t("stats.writesPerDay")} className="mt-6">
        <WritesChart data={s.writesPerDay} />
      </Panel>
      <Panel title={t("stats.searchesPerDay")} description={t("stats.latencyHint")} className="mt-6">
        <SearchesChart data={s.searchesPerDay} />
        {s.latency.byOperation.length ? (
          <table aria-label={t("stats.byOperation")} className="mt-4 w-full text-sm">
            <thead className="text-left text-xs text-zinc-500 uppercase">
              <tr>
                <th className="py-1">{t("stats.operation")}</th>
                <th className="py-1">{t("stats.searches")}</th>
                <th className="py-1">p50</th>
                <th className="py-1">p95</th>
              </tr>
            </thead>
            <tbody>
              {s.latency.byOperation.map((op) => (
                <tr key={op.operation} className="border-t border-zinc-100 dark:border-zinc-800">
                  <td className="py-1 font-mono text-xs">{op.operation}</td>
                  <td className="py-1 tabular-nums">{number(op.count)}</td>
                  <td className="py-1 tabular-nums">{op.p50 ?? "—"} ms</td>
                  <td className="py-1 tabular-nums">{op.p95 ?? "—"} ms</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
      </Panel>
    </>
  );
}
