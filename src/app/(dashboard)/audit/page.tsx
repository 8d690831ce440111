import { AuditFilters } from "~/components/audit/audit-filters";
import { AuditRow } from "~/components/audit/audit-row";
import { ACTOR_TYPES } from "~/db/schema";
import { PageHeader } from "~/components/page-header";
import { buttonClass, DataTable, EmptyState, ErrorState, Pager } from "~/components/ui";
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
  for (const name of FILTER_PARAMS)
    for (const value of [params[name]].flat()) if (typeof value === "string" && value) q.append(name, value);
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
        initial={{
          events: filter.eventTypes ?? [],
          actorType: first("actorType"),
          actorId: first("actorId"),
          node: first("node"),
          scope: first("scope"),
          from: first("from"),
          to: first("to"),
        }}
      />
      {!page.ok ? (
        <ErrorState title={t("audit.loadError")} message={page.message} />
      ) : page.data.events.length === 0 ? (
        <EmptyState title={t("audit.emptyTitle")} description={t("audit.emptyHint")} />
      ) : (
        <>
          <DataTable
            label={t("audit.title")}
            head={[
              t("audit.when"),
              t("audit.event"),
              t("audit.actor"),
              t("field.scope"),
              t("audit.about"),
              t("field.reason"),
            ]}
          >
            {page.data.events.map((e) => (
              <AuditRow key={e.id} entry={e} />
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
