import { ensureEmbeddingIndex } from "~/db/embedding-index";
import type { MemoryJob } from "~/db/schema";
import type { Database } from "~/db/types";
import { newId } from "~/server/ids";
import { keepLeases } from "~/server/jobs/lease-keeper";
import { completeJobs, failJob, leaseJobs } from "~/server/jobs/queue";
import { ServiceError } from "~/server/errors";
import { log } from "~/server/log";
import { getEmbeddingProvider, type EmbeddingProvider } from "~/server/providers/embeddings";
import { embedTargets } from "./vectors";
import { type EmbedTarget, type EmbedTargetKind } from "../store/embeddings";

/**
 * The `embed` job handler, self-contained so any worker loop can call it. Jobs go through the one
 * Postgres job queue (src/server/jobs/queue.ts): leased with FOR UPDATE SKIP LOCKED (several workers
 * never take the same job; a lease that ran out is taken over), embedded in batches outside any
 * transaction, the vectors upserted, then the jobs marked done — or backed off and retried, and given
 * up (`dead`) after max_attempts. Only the backoff is embed's own (a provider outage lasts longer
 * than a tree job's hiccup).
 */

const DEFAULT_LEASE_MS = 60_000;
const BACKOFF_BASE_MS = 5_000;
const BACKOFF_CAP_MS = 30 * 60_000;

export type ProcessEmbedJobsResult = {
  leased: number;
  succeeded: number;
  retried: number;
  dead: number;
  embedded: number;
};

/** Indexes already ensured per database handle and model, so a worker does not re-issue DDL each batch. */
const ensuredIndexes = new WeakMap<object, Set<string>>();

async function ensureIndexOnce(db: Database, provider: EmbeddingProvider) {
  const done = ensuredIndexes.get(db) ?? new Set<string>();
  const key = `${provider.model}/${provider.dimensions}`;
  if (done.has(key)) return;
  await ensureEmbeddingIndex(db, provider.model, provider.dimensions);
  done.add(key);
  ensuredIndexes.set(db, done);
}

const TARGET_KINDS: readonly EmbedTargetKind[] = ["node", "message", "chunk"];

function targetOf(payload: Record<string, unknown>): EmbedTarget | null {
  const kind = payload.kind ?? (payload.nodeId ? "node" : undefined);
  const id = payload.id ?? payload.nodeId;
  return typeof id === "string" && TARGET_KINDS.includes(kind as EmbedTargetKind)
    ? { kind: kind as EmbedTargetKind, id }
    : null;
}

/** Exponential backoff per attempt: 5 s, 10 s, 20 s, … capped at 30 min. */
export const embedRetryDelayMs = (attempts: number) =>
  Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, attempts - 1));

/** Puts failed jobs back in the queue with embed's backoff, or marks them dead after their last attempt. */
async function failEmbedJobs(
  db: Database,
  jobs: readonly MemoryJob[],
  workerId: string,
  error: unknown,
): Promise<{ retried: number; dead: number }> {
  let retried = 0;
  let dead = 0;
  for (const job of jobs) {
    if ((await failJob(db, job, workerId, error, { retryDelayMs: embedRetryDelayMs })) === "dead") dead++;
    else retried++;
  }
  return { retried, dead };
}

/**
 * Processes up to `limit` due embed jobs. Returns what happened; throws only when the database
 * itself fails (a provider failure is recorded on the jobs and retried later).
 */
export async function processEmbedJobs(
  db: Database,
  params: { limit?: number; provider?: EmbeddingProvider; workerId?: string; leaseMs?: number } = {},
): Promise<ProcessEmbedJobsResult> {
  const provider = params.provider ?? getEmbeddingProvider();
  const workerId = params.workerId ?? newId("wrk");
  const limit = Math.min(Math.max(Math.trunc(params.limit ?? 50), 1), 1000);
  const out: ProcessEmbedJobsResult = { leased: 0, succeeded: 0, retried: 0, dead: 0, embedded: 0 };

  const leaseMs = params.leaseMs ?? DEFAULT_LEASE_MS;
  const jobs = await leaseJobs(db, { limit, workerId, leaseMs, types: ["embed"] });
  out.leased = jobs.length;
  if (jobs.length === 0) return out;
  // A slow provider (a local model on CPU) can take longer than the lease for a batch of 50.
  const leases = keepLeases(db, { workerId, jobIds: jobs.map((job) => job.id), leaseMs });
  try {
    await embedLeasedJobs(db, provider, { jobs, workerId, out });
  } finally {
    await leases.stop();
  }
  return out;
}

async function embedLeasedJobs(
  db: Database,
  provider: EmbeddingProvider,
  params: { jobs: readonly MemoryJob[]; workerId: string; out: ProcessEmbedJobsResult },
) {
  const { jobs, workerId, out } = params;
  await ensureIndexOnce(db, provider);

  const byTenant = new Map<string, MemoryJob[]>();
  for (const job of jobs) byTenant.set(job.tenantId, [...(byTenant.get(job.tenantId) ?? []), job]);

  for (const [tenantId, tenantJobs] of byTenant) {
    const malformed = tenantJobs.filter((job) => !targetOf(job.payload));
    if (malformed.length) {
      // A payload that names nothing never gets better: no retries.
      const failed = await failEmbedJobs(
        db,
        malformed.map((job) => ({ ...job, attempts: job.maxAttempts })),
        workerId,
        "payload names no node, message or chunk id",
      );
      out.dead += failed.dead;
    }
    const valid = tenantJobs.filter((job) => targetOf(job.payload));
    if (valid.length > 0) await embedJobBatch(db, provider, { tenantId, jobs: valid, workerId, out });
  }
}

/** A provider's answer that retrying will not change (HTTP 400 or 413: an input it refuses). */
const isPermanentProviderError = (error: unknown) =>
  error instanceof ServiceError && error.details?.retryable === false;

/**
 * Embeds one tenant's jobs in one provider call. When the provider refuses the batch for good, each
 * job is tried on its own: one input it refuses (too long for its context, say) no longer takes up to
 * 49 others down with it, retried together until all were dead; the refused one is dead at once.
 */
async function embedJobBatch(
  db: Database,
  provider: EmbeddingProvider,
  params: { tenantId: string; jobs: readonly MemoryJob[]; workerId: string; out: ProcessEmbedJobsResult },
) {
  const { tenantId, jobs, workerId, out } = params;
  try {
    const outcome = await embedTargets(db, provider, { tenantId, targets: jobs.map((job) => targetOf(job.payload)!) });
    await completeJobs(db, jobs, workerId, { model: provider.model, ...outcome });
    out.succeeded += jobs.length;
    out.embedded += outcome.embedded;
  } catch (error) {
    const permanent = isPermanentProviderError(error);
    if (permanent && jobs.length > 1) {
      for (const job of jobs) await embedJobBatch(db, provider, { ...params, jobs: [job] });
      return;
    }
    log("warn", `embed jobs failed for tenant ${tenantId}: ${error instanceof Error ? error.message : String(error)}`);
    const failed = await failEmbedJobs(
      db,
      permanent ? jobs.map((job) => ({ ...job, attempts: job.maxAttempts })) : jobs,
      workerId,
      error,
    );
    out.retried += failed.retried;
    out.dead += failed.dead;
  }
}

/**
 * One `embed` job as a handler for a general worker loop (src/server/jobs/worker.ts): embeds its
 * target and returns the outcome, or throws so that the worker's own retry/backoff applies.
 */
export async function handleEmbedJob(
  db: Database,
  job: { tenantId: string; payload: Record<string, unknown> },
  provider: EmbeddingProvider = getEmbeddingProvider(),
): Promise<Record<string, unknown>> {
  const target = targetOf(job.payload);
  if (!target) throw new Error("embed job payload names no node, message or chunk id");
  await ensureIndexOnce(db, provider);
  const outcome = await embedTargets(db, provider, { tenantId: job.tenantId, targets: [target] });
  return { model: provider.model, ...outcome };
}
