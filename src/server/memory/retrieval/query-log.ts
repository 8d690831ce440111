import { sql } from "drizzle-orm";
import { memoryQueryLog } from "~/db/schema";
import type { DbOrTx } from "~/db/types";
import { bufferedWriter } from "~/db/buffered-writes";
import type { MemoryCallContext } from "../call-context";

/** One memory_query_log row per search / context call (latency percentiles and counts for stats). */
type QueryLogRow = typeof memoryQueryLog.$inferInsert;

/**
 * The rows as one array parameter per column (`unnest`), so the statement text is the same whatever
 * the batch size: a multi-row VALUES list would be a new statement text, prepared anew on every
 * connection, for every batch size the load happens to produce.
 */
function insertRowsSql(rows: readonly QueryLogRow[]) {
  const column = <T>(pick: (row: QueryLogRow) => T) => sql.param(rows.map(pick));
  return sql`insert into ${memoryQueryLog} (tenant_id, operation, actor_type, actor_id, latency_ms, result_count)
    select * from unnest(${column((r) => r.tenantId)}::text[], ${column((r) => r.operation)}::text[], ${column((r) => r.actorType)}::text[],
                         ${column((r) => r.actorId ?? null)}::text[], ${column((r) => r.latencyMs)}::real[], ${column((r) => r.resultCount ?? 0)}::int[])`;
}

const queryLog = bufferedWriter<QueryLogRow>({
  what: "memory query log",
  delayMs: 250,
  batchSize: 500,
  write: (tx, rows) => tx.execute(insertRowsSql(rows)),
});

/** Best effort (buffered-writes.ts): a failed insert is logged, never raised. */
export async function recordQuery(
  db: DbOrTx,
  ctx: Pick<MemoryCallContext, "tenantId" | "actor">,
  entry: { operation: string; latencyMs: number; resultCount: number },
): Promise<void> {
  await queryLog.add(db, [
    {
      tenantId: ctx.tenantId,
      operation: entry.operation,
      actorType: ctx.actor.type,
      actorId: ctx.actor.id,
      latencyMs: Math.round(entry.latencyMs * 1000) / 1000,
      resultCount: entry.resultCount,
    },
  ]);
}

/** Writes the rows buffered for `db` now (tests, before reading the log back). */
export const flushQueryLog = (db: DbOrTx) => queryLog.flush(db);
