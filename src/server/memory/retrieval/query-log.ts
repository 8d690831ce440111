import { sql } from "drizzle-orm";
import { PgTransaction } from "drizzle-orm/pg-core";
import { memoryQueryLog } from "~/db/schema";
import type { DbOrTx } from "~/db/types";
import { log } from "~/server/log";
import type { MemoryCallContext } from "../context";

/**
 * One memory_query_log row per search / context call (latency percentiles and counts for stats).
 * Best effort: a failed insert is logged, never raised.
 *
 * Outside a transaction rows are buffered per database handle and written together a moment later
 * (one multi-row insert, committed without waiting for the WAL): a row per search written on its
 * own was four round trips — half of a search's statements. A crash loses at most the last
 * FLUSH_DELAY_MS of stats rows; nothing else is affected. Inside a caller's transaction the row is
 * written there, in a savepoint, so it cannot abort that transaction.
 */
type QueryLogRow = typeof memoryQueryLog.$inferInsert;

const FLUSH_DELAY_MS = 250;
const MAX_ROWS_PER_INSERT = 500;

type Buffer = { rows: QueryLogRow[]; timer?: ReturnType<typeof setTimeout>; flushing?: Promise<void> };
const buffers = new Map<DbOrTx, Buffer>();

export async function recordQuery(
  db: DbOrTx,
  ctx: Pick<MemoryCallContext, "tenantId" | "actor">,
  entry: { operation: string; latencyMs: number; resultCount: number },
): Promise<void> {
  const row: QueryLogRow = {
    tenantId: ctx.tenantId,
    operation: entry.operation,
    actorType: ctx.actor.type,
    actorId: ctx.actor.id,
    latencyMs: Math.round(entry.latencyMs * 1000) / 1000,
    resultCount: entry.resultCount,
  };
  if (db instanceof PgTransaction) {
    try {
      await db.transaction((sp) => sp.insert(memoryQueryLog).values(row));
    } catch (error) {
      warn(error);
    }
    return;
  }
  const buffer = buffers.get(db) ?? { rows: [] };
  buffers.set(db, buffer);
  buffer.rows.push(row);
  buffer.timer ??= setTimeout(() => void flushQueryLog(db), FLUSH_DELAY_MS);
  // A timer alone must not keep a CLI or test process alive; exiting code calls flushQueryLog.
  buffer.timer.unref?.();
}

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

/** Writes the rows buffered for `db` now (shutdown, tests, before reading the log back). */
export async function flushQueryLog(db: DbOrTx): Promise<void> {
  const buffer = buffers.get(db);
  if (!buffer) return;
  if (buffer.timer) clearTimeout(buffer.timer);
  buffer.timer = undefined;
  await buffer.flushing;
  const rows = buffer.rows.splice(0);
  if (rows.length === 0) {
    buffers.delete(db);
    return;
  }
  buffer.flushing = (async () => {
    try {
      for (let i = 0; i < rows.length; i += MAX_ROWS_PER_INSERT) {
        await db.transaction(async (tx) => {
          await tx.execute(sql`set local synchronous_commit = off`);
          await tx.execute(insertRowsSql(rows.slice(i, i + MAX_ROWS_PER_INSERT)));
        });
      }
    } catch (error) {
      warn(error);
    }
  })();
  await buffer.flushing;
  buffer.flushing = undefined;
  if (buffer.rows.length === 0 && !buffer.timer) buffers.delete(db);
}

/** Flushes every handle's buffer (graceful shutdown). */
export async function flushAllQueryLogs(): Promise<void> {
  await Promise.all([...buffers.keys()].map((db) => flushQueryLog(db)));
}

const warn = (error: unknown) => log("warn", `memory query log not written: ${error instanceof Error ? error.message : String(error)}`);
