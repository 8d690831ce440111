import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { DbOrTx } from "~/db/types";
import { memoryJobs, type JobType, type MemoryJob } from "~/db/schema";
import { queryRows } from "~/db/raw";
import { pgErrorCode } from "~/db/pg-errors";

export type EnqueueJob = {
  tenantId: string;
  type: JobType;
  payload?: Record<string, unknown>;
  /** While a job with this key is queued, enqueueing it again is a no-op. */
  dedupeKey?: string;
  runAt?: Date;
  maxAttempts?: number;
};

/** Adds a job; call it with the transaction of the change that needs it, so both commit together. */
export async function enqueueJob(db: DbOrTx, job: EnqueueJob): Promise<number | null> {
  const rows = await db
    .insert(memoryJobs)
    .values({
      tenantId: job.tenantId,
      type: job.type,
      payload: job.payload ?? {},
      dedupeKey: job.dedupeKey ?? null,
      runAt: job.runAt ?? new Date(),
      maxAttempts: job.maxAttempts ?? 5,
    })
    .onConflictDoNothing()
    .returning({ id: memoryJobs.id });
  return rows[0]?.id ?? null;
}

/**
 * Leases up to `limit` runnable jobs for `workerId`: queued ones whose time has come, and running
 * ones whose lease expired (their worker died) while attempts are left. FOR UPDATE SKIP LOCKED lets many workers poll the
 * same table without ever taking the same row; each lease counts as an attempt.
 */
export async function leaseJobs(
  db: DbOrTx,
  params: { workerId: string; limit: number; leaseMs: number; types?: readonly JobType[] },
): Promise<MemoryJob[]> {
  const typeFilter = params.types?.length
    ? sql`and type in (${sql.join(
        params.types.map((t) => sql`${t}`),
        sql`, `,
      )})`
    : sql``;
  // A job whose worker died on every attempt (a job that crashes its process) is not taken over again:
  // it goes to dead, like one whose handler failed that often, instead of crashing the next worker forever.
  const rows = await queryRows<{ id: number }>(
    db,
    sql`with exhausted as (
          update memory_jobs set status = 'dead', leased_until = null, finished_at = now(), updated_at = now(),
            last_error = coalesce(last_error || '; ', '') || 'the worker stopped during each of its ' || attempts || ' attempts (lease expired)'
          where id in (
            select id from memory_jobs
            where status = 'running' and leased_until < now() and attempts >= max_attempts ${typeFilter}
            for update skip locked
          )
        )
        update memory_jobs set status = 'running', attempts = attempts + 1, leased_by = ${params.workerId},
          leased_until = now() + make_interval(secs => ${params.leaseMs / 1000}), updated_at = now()
        where id in (
          select id from memory_jobs
          where ((status = 'queued' and run_at <= now()) or (status = 'running' and leased_until < now() and attempts < max_attempts)) ${typeFilter}
          order by run_at, id
          limit ${params.limit}
          for update skip locked
        )
        returning id`,
  );
  if (rows.length === 0) return [];
  // In queue order: the UPDATE … RETURNING gives its rows in no particular one.
  return db
    .select()
    .from(memoryJobs)
    .where(
      inArray(
        memoryJobs.id,
        rows.map((r) => r.id),
      ),
    )
    .orderBy(asc(memoryJobs.runAt), asc(memoryJobs.id));
}

/** Marks a job done, only if this worker still holds it (a lease taken over by another worker wins). */
export async function completeJob(
  db: DbOrTx,
  job: Pick<MemoryJob, "id">,
  workerId: string,
  result?: unknown,
): Promise<boolean> {
  return (await completeJobs(db, [job], workerId, result)) > 0;
}

/** completeJob for a batch handled together (one statement); returns how many this worker still held. */
export async function completeJobs(
  db: DbOrTx,
  jobs: readonly Pick<MemoryJob, "id">[],
  workerId: string,
  result?: unknown,
): Promise<number> {
  if (jobs.length === 0) return 0;
  const rows = await db
    .update(memoryJobs)
    .set({
      status: "succeeded",
      result: result ?? null,
      finishedAt: new Date(),
      updatedAt: new Date(),
      leasedUntil: null,
    })
    .where(
      and(
        inArray(
          memoryJobs.id,
          jobs.map((job) => job.id),
        ),
        eq(memoryJobs.leasedBy, workerId),
        eq(memoryJobs.status, "running"),
      ),
    )
    .returning({ id: memoryJobs.id });
  return rows.length;
}

/** Exponential backoff: 2s, 4s, 8s … capped at 10 minutes. */
export const retryDelayMs = (attempts: number) => Math.min(600_000, 1000 * 2 ** Math.max(1, attempts));

/**
 * Records a failure: retried later with backoff (`retryDelayMs`, by default the queue's own), or
 * moved to `dead` after maxAttempts.
 */
export async function failJob(
  db: DbOrTx,
  job: Pick<MemoryJob, "id" | "attempts" | "maxAttempts">,
  workerId: string,
  error: unknown,
  options: { retryDelayMs?: (attempts: number) => number } = {},
): Promise<"retry" | "dead" | "merged" | "lost"> {
  const dead = job.attempts >= job.maxAttempts;
  const delayMs = (options.retryDelayMs ?? retryDelayMs)(job.attempts);
  const message = (error instanceof Error ? error.message : String(error)).slice(0, 2000);
  const finish = (status: "queued" | "dead" | "failed", lastError: string) =>
    db
      .update(memoryJobs)
      .set({
        status,
        lastError,
        runAt: status === "queued" ? new Date(Date.now() + delayMs) : undefined,
        leasedUntil: null,
        leasedBy: null,
        finishedAt: status === "queued" ? null : new Date(),
        updatedAt: new Date(),
      })
      .where(and(eq(memoryJobs.id, job.id), eq(memoryJobs.leasedBy, workerId), eq(memoryJobs.status, "running")))
      .returning({ id: memoryJobs.id });
  try {
    const rows = await finish(dead ? "dead" : "queued", message);
    if (rows.length === 0) return "lost";
    return dead ? "dead" : "retry";
  } catch (e) {
    // A twin with the same dedupe key is already queued: it will do this work, so this one ends here.
    if (pgErrorCode(e) !== "23505") throw e;
    await finish("failed", `${message} (retry merged into the queued job with the same dedupe key)`);
    return "merged";
  }
}

export async function queueStats(db: DbOrTx, tenantId?: string) {
  const where = tenantId ? sql`where tenant_id = ${tenantId}` : sql``;
  return queryRows<{ type: string; status: string; n: number }>(
    db,
    sql`select type, status, count(*)::int as n from memory_jobs ${where} group by type, status order by type, status`,
  );
}

/**
 * Enqueues a job unless one with this dedupe key ever existed (any status): for once-per-day work.
 * Raw SQL: parameters are not mapped by column type here, so the time goes as ISO text (postgres.js
 * refuses a Date in that position).
 */
export async function enqueueOnce(db: DbOrTx, job: EnqueueJob & { dedupeKey: string }): Promise<boolean> {
  const rows = await queryRows<{ id: number }>(
    db,
    sql`insert into memory_jobs (tenant_id, type, payload, dedupe_key, run_at, max_attempts)
        select ${job.tenantId}, ${job.type}, ${JSON.stringify(job.payload ?? {})}::jsonb, ${job.dedupeKey}, ${(job.runAt ?? new Date()).toISOString()}::timestamptz, ${job.maxAttempts ?? 5}
        where not exists (select 1 from memory_jobs where tenant_id = ${job.tenantId} and dedupe_key = ${job.dedupeKey})
        on conflict do nothing
        returning id`,
  );
  return rows.length > 0;
}
