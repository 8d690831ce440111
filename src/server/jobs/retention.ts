import { and, eq, inArray, lt, sql } from "drizzle-orm";
import { queryRows } from "~/db/raw";
import type { Database } from "~/db/types";
import { idempotencyKeys, memoryJobs, memoryQueryLog, tenants } from "~/db/schema";
import { env } from "~/env";

/**
 * How long operational records are kept (days; 0 keeps them). None of them is memory: the query
 * log feeds the dashboard's usage charts, idempotency replies answer retried tool calls, finished
 * jobs are history. Without pruning they grow with every request (a busy key logs ~100 searches/s).
 * Dead-lettered jobs are never pruned here: someone has to look at them.
 */
export type RetentionPolicy = { queryLogDays: number; idempotencyDays: number; finishedJobDays: number };

export const retentionPolicyFromEnv = (): RetentionPolicy => ({
  queryLogDays: env.MEMORY_QUERY_LOG_RETENTION_DAYS,
  idempotencyDays: env.MEMORY_IDEMPOTENCY_RETENTION_DAYS,
  finishedJobDays: env.MEMORY_JOB_RETENTION_DAYS,
});

export type PruneCounts = { queryLog: number; idempotencyKeys: number; jobs: number };

/** Rows per delete statement: short statements, so pruning never holds locks for long. */
const BATCH = 5_000;
const DAY_MS = 86_400_000;

/** Deletes one batch at a time until a batch comes back short; returns how many rows went. */
async function deleteInBatches(run: () => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await run();
    total += n;
    if (n < BATCH) return total;
  }
}

/** Removes records older than the policy allows, tenant by tenant (the tenant leads every index used). */
export async function pruneExpiredRecords(db: Database, policy: RetentionPolicy, now = new Date()): Promise<PruneCounts> {
  const counts: PruneCounts = { queryLog: 0, idempotencyKeys: 0, jobs: 0 };
  const before = (days: number) => new Date(now.getTime() - days * DAY_MS);
  const tenantIds = (await db.select({ id: tenants.id }).from(tenants)).map((t) => t.id);
  for (const tenantId of tenantIds) {
    if (policy.queryLogDays > 0) {
      const cut = before(policy.queryLogDays);
      counts.queryLog += await deleteInBatches(async () => {
        const old = db.select({ id: memoryQueryLog.id }).from(memoryQueryLog).where(and(eq(memoryQueryLog.tenantId, tenantId), lt(memoryQueryLog.createdAt, cut))).limit(BATCH);
        const gone = await db.delete(memoryQueryLog).where(and(eq(memoryQueryLog.tenantId, tenantId), inArray(memoryQueryLog.id, old))).returning({ id: memoryQueryLog.id });
        return gone.length;
      });
    }
    if (policy.idempotencyDays > 0) {
      const cut = before(policy.idempotencyDays);
      counts.idempotencyKeys += await deleteInBatches(async () => {
        const gone = await queryRows<{ key: string }>(
          db,
          sql`delete from ${idempotencyKeys} where (tenant_id, principal_id, key) in (
                select tenant_id, principal_id, key from ${idempotencyKeys} where ${idempotencyKeys.tenantId} = ${tenantId} and ${idempotencyKeys.createdAt} < ${cut.toISOString()}::timestamptz limit ${BATCH})
              returning key`,
        );
        return gone.length;
      });
    }
    if (policy.finishedJobDays > 0) {
      const cut = before(policy.finishedJobDays);
      counts.jobs += await deleteInBatches(async () => {
        const old = db
          .select({ id: memoryJobs.id })
          .from(memoryJobs)
          .where(and(eq(memoryJobs.tenantId, tenantId), eq(memoryJobs.status, "succeeded"), lt(memoryJobs.createdAt, cut)))
          .limit(BATCH);
        const gone = await db.delete(memoryJobs).where(and(eq(memoryJobs.tenantId, tenantId), inArray(memoryJobs.id, old))).returning({ id: memoryJobs.id });
        return gone.length;
      });
    }
  }
  return counts;
}
