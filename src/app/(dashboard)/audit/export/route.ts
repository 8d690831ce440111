import { auditCsvHeader, auditCsvLine, auditFilterFromSearchParams, auditJsonLine } from "~/server/dashboard/audit";
import { streamPages } from "~/trpc/download";
import { serverApi } from "~/trpc/server";

export const dynamic = "force-dynamic";

/** GET /audit/export?format=csv|jsonl&<the audit page's filters>: the whole filtered log as a file. */
export async function GET(request: Request) {
  const url = new URL(request.url);
  const format = url.searchParams.get("format") === "jsonl" ? "jsonl" : "csv";
  const filter = auditFilterFromSearchParams(url.searchParams);
  const api = await serverApi();
  const stamp = new Date().toISOString().slice(0, 10);
  return streamPages({
    filename: `audit-${stamp}.${format}`,
    contentType: format === "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson; charset=utf-8",
    header: format === "csv" ? auditCsvHeader() : undefined,
    firstPage: () => api.memory.audit({ filter, limit: 500 }),
    nextPage: (page) => (page.nextCursor ? api.memory.audit({ filter, cursor: page.nextCursor, limit: 500 }) : null),
    lines: (page) => page.events.map(format === "csv" ? auditCsvLine : auditJsonLine),
  });
}
