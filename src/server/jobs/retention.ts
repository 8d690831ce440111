import { and, eq, lt, sql, type SQL } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";
import { queryRows } from "~/db/raw";
import type { Database } from "~/db/types";
import { idempotencyKeys, memoryJobs, memoryQueryLog, tenants } from "~/db/schema";
import { env } from "~/env";

/**
 * How long operational records are kept (days; 0 keeps them). None of them is memory: the query
 * log feeds the dashboard's usage charts, idempotency replies answer retried tool calls, finished
 * jobs are history (but for each session's last extraction run, its watermark). Without pruning they
 * grow with every request (a busy key logs ~100 searches/s). Dead-lettered jobs are never pruned
 * here: someone has to look at them.
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

/** What each count prunes: its table's key, and which of a tenant's rows are old enough to go. */
const PRUNED: Record<
  keyof PruneCounts,
  {
    table: PgTable;
    key: string;
    days: (p: RetentionPolicy) => number;
    old: (tenantId: string, cut: Date) => SQL | undefined;
  }
> = {
  queryLog: {
    table: memoryQueryLog,
    key: "tenant_id, id",
    days: (p) => p.queryLogDays,
    old: (tenantId, cut) => and(eq(memoryQueryLog.tenantId, tenantId), lt(memoryQueryLog.createdAt, cut)),
  },
  idempotencyKeys: {
    table: idempotencyKeys,
    key: "tenant_id, principal_id, key",
    days: (p) => p.idempotencyDays,
    old: (tenantId, cut) => and(eq(idempotencyKeys.tenantId, tenantId), lt(idempotencyKeys.createdAt, cut)),
  },
  jobs: {
    table: memoryJobs,
    key: "id",
    days: (p) => p.finishedJobDays,
    old: (tenantId, cut) =>
      and(
        eq(memoryJobs.tenantId, tenantId),
        eq(memoryJobs.status, "succeeded"),
        lt(memoryJobs.createdAt, cut),
        // A session's last extraction run holds where extraction stopped (its result's lastSeq,
        // lastProcessedSeq): pruned, a conversation resumed after a week was extracted again from its start.
        sql`${memoryJobs.id} not in (select distinct on (payload->>'sessionId') id from memory_jobs
              where tenant_id = ${tenantId} and type = 'extract' and status = 'succeeded' and (result->>'lastSeq') is not null
              order by payload->>'sessionId', finished_at desc)`,
      ),
  },
};

/** Deletes `old` rows of `table` one batch at a time until a batch comes back short; returns how many went. */
async function deleteInBatches(db: Database, table: PgTable, key: string, old: SQL | undefined): Promise<number> {
  const columns = sql.raw(key);
  let total = 0;
  for (;;) {
    const gone = await queryRows(
      db,
      sql`delete from ${table} where (${columns}) in (select ${columns} from ${table} where ${old} limit ${BATCH}) returning 1 as gone`,
    );
    total += gone.length;
    if (gone.length < BATCH) return total;
  }
}

/** Removes records older than the policy allows, tenant by tenant (the tenant leads every index used). */
export async function pruneExpiredRecords(
  db: Database,
  policy: RetentionPolicy,
  now = new Date(),
): Promise<PruneCounts> {
  const counts: PruneCounts = { queryLog: 0, idempotencyKeys: 0, jobs: 0 };
  const tenantIds = (await db.select({ id: tenants.id }).from(tenants)).map((t) => t.id);
  for (const tenantId of tenantIds) {
    for (const name of Object.keys(PRUNED) as (keyof PruneCounts)[]) {
      const rule = PRUNED[name];
      const days = rule.days(policy);
      if (days > 0)
        counts[name] += await deleteInBatches(
          db,
          rule.table,
          rule.key,
          rule.old(tenantId, new Date(now.getTime() - days * DAY_MS)),
        );
    }
  }
  return counts;
}
