import { sql } from "drizzle-orm";
import { PgTransaction } from "drizzle-orm/pg-core";
import { memoryQueryLog } from "~/db/schema";
import type { DbOrTx } from "~/db/types";
import { log } from "~/server/log";
import type { MemoryCallContext } from "../context";

/**
 * One memory_query_log row per search / context call (latency percentiles and counts for stats).
 * Best effort: a failed insert is logged, never raised — and inside a caller's transaction it runs
 * in a savepoint, so it cannot abort that transaction either.
 */
export async function recordQuery(
  db: DbOrTx,
  ctx: Pick<MemoryCallContext, "tenantId" | "actor">,
  entry: { operation: string; latencyMs: number; resultCount: number },
): Promise<void> {
  const values = {
    tenantId: ctx.tenantId,
    operation: entry.operation,
    actorType: ctx.actor.type,
    actorId: ctx.actor.id,
    latencyMs: Math.round(entry.latencyMs * 1000) / 1000,
    resultCount: entry.resultCount,
  };
  try {
    if (db instanceof PgTransaction) await db.transaction((sp) => sp.insert(memoryQueryLog).values(values));
    else {
      // A stats row is not worth a disk flush per search: committed without waiting for the WAL
      // (on a crash the last few rows may be lost; nothing else is affected).
      await db.transaction(async (tx) => {
        await tx.execute(sql`set local synchronous_commit = off`);
        await tx.insert(memoryQueryLog).values(values);
      });
    }
  } catch (error) {
    log("warn", `memory query log not written: ${error instanceof Error ? error.message : String(error)}`);
  }
}
