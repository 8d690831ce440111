import Link from "next/link";
import { AuditFilters } from "~/components/audit/audit-filters";
import { LocalTime } from "~/components/local-time";
import { EVENT_TONE } from "~/components/memories/timelines";
import { PageHeader } from "~/components/page-header";
import { Badge, buttonClass, cellClass, DataTable, EmptyState, ErrorState, Pager } from "~/components/ui";
import { actorTypeLabel, eventLabel } from "~/i18n/labels";
import { ACTOR_TYPES } from "~/db/schema";
import { getI18n } from "~/i18n/server";
import { AUDIT_EVENT_TYPES, auditFilterFromSearchParams } from "~/server/dashboard/audit";
import { attempt, serverApi } from "~/trpc/server";
import { pageTitle } from "~/i18n/metadata";

export const generateMetadata = pageTitle("nav.audit");

type SearchParams = Record<string, string | string[] | undefined>;
const FILTER_PARAMS = ["event", "actorType", "actorId", "node", "scope", "from", "to"] as const;

/** The page's filter query without the cursor: reused by the pager and the download links. */
function filterQuery(params: SearchParams, extra: Record<string, string> = {}) {
  const q = new URLSearchParams();
  for (const name of FILTER_PARAMS) for (const value of [params[name]].flat()) if (typeof value === "string" && value) q.append(name, value);
  for (const [k, v] of Object.entries(extra)) q.set(k, v);
  return q.toString();
}

export default async function AuditPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const filter = auditFilterFromSearchParams(params);
  const cursor = typeof params.cursor === "string" ? params.cursor : null;
  const [{ t }, api] = await Promise.all([getI18n(), serverApi()]);
  const page = await attempt(() => api.memory.audit({ filter, cursor, limit: 50 }));
  const first = (name: string) => [params[name]].flat().find((v): v is string => typeof v === "string") ?? "";

  return (
    <>
      <PageHeader
        title={t("audit.title")}
        description={t("audit.description")}
        actions={
          <div className="flex gap-2">
            <a href={`/audit/export?${filterQuery(params, { format: "csv" })}`} download className={buttonClass()}>
              {t("audit.exportCsv")}
            </a>
            <a href={`/audit/export?${filterQuery(params, { format: "jsonl" })}`} download className={buttonClass()}>
              {t("audit.exportJsonl")}
            </a>
          </div>
        }
      />
      <AuditFilters
        key={filterQuery(params)}
        eventTypes={AUDIT_EVENT_TYPES}
        actorTypes={ACTOR_TYPES}
        initial={{ events: filter.eventTypes ?? [], actorType: first("actorType"), actorId: first("actorId"), node: first("node"), scope: first("scope"), from: first("from"), to: first("to") }}
      />
      {!page.ok ? (
        <ErrorState title={t("audit.loadError")} message={page.message} />
      ) : page.data.events.length === 0 ? (
        <EmptyState title={t("audit.emptyTitle")} description={t("audit.emptyHint")} />
      ) : (
        <>
          <DataTable label={t("audit.title")} head={[t("audit.when"), t("audit.event"), t("audit.actor"), t("field.scope"), t("audit.node"), t("field.reason")]}>
            {page.data.events.map((e) => (
              <tr key={e.id}>
                <td className={`${cellClass} whitespace-nowrap text-xs text-zinc-500`}>
                  <LocalTime value={e.createdAt} />
                </td>
                <td className={cellClass}>
                  <Badge tone={EVENT_TONE[e.eventType] ?? "zinc"}>{eventLabel(t, e.eventType)}</Badge>
                </td>
                <td className={cellClass}>
                  <span className="font-medium">{e.actor.label}</span>
                  <span className="ml-1 text-xs text-zinc-500">{actorTypeLabel(t, e.actor.type)}</span>
                </td>
                <td className={`${cellClass} font-mono text-xs`}>{e.scope ?? "—"}</td>
                <td className={`${cellClass} font-mono text-xs`}>
                  {e.nodeId ? (
                    <Link href={`/memories/${e.nodeId}`} className="text-indigo-600 hover:underline">
                      {e.nodeId}
                    </Link>
                  ) : (
                    "—"
                  )}
                </td>
                <td className={`${cellClass} max-w-sm text-zinc-600 dark:text-zinc-400`}>
                  {e.reason ?? ""}
                  {e.toolCallId ? <span className="ml-1 font-mono text-xs">({e.toolCallId})</span> : null}
                </td>
              </tr>
            ))}
          </DataTable>
          <Pager
            firstHref={cursor ? `/audit?${filterQuery(params)}` : null}
            nextHref={page.data.nextCursor ? `/audit?${filterQuery(params, { cursor: page.data.nextCursor })}` : null}
            firstLabel={t("common.firstPage")}
            nextLabel={t("common.nextPage")}
            summary={t("common.showing", { n: page.data.events.length })}
          />
        </>
      )}
    </>
  );
}
