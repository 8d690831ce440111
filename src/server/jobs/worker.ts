import { hostname } from "node:os";
import type { Database } from "~/db/types";
import type { JobType, MemoryJob } from "~/db/schema";
import { newId } from "~/server/ids";
import { log } from "~/server/log";
import { keepLeases } from "./lease-keeper";
import { completeJob, failJob, leaseJobs } from "./queue";

export type JobHandler = (db: Database, job: MemoryJob) => Promise<unknown>;
export type JobHandlers = Partial<Record<JobType, JobHandler>>;

export const newWorkerId = () => `${hostname()}:${process.pid}:${newId("w").slice(2, 10)}`;

/** Leases one batch and runs it, renewing the leases meanwhile; returns how many jobs it handled. */
export async function processJobsOnce(
  db: Database,
  handlers: JobHandlers,
  options: { workerId: string; limit?: number; leaseMs?: number },
): Promise<{ handled: number; succeeded: number; failed: number; lost: number }> {
  const types = Object.keys(handlers) as JobType[];
  const leaseMs = options.leaseMs ?? 60_000;
  const jobs = await leaseJobs(db, { workerId: options.workerId, limit: options.limit ?? 10, leaseMs, types });
  let succeeded = 0;
  let failed = 0;
  let lost = 0;
  const leases = keepLeases(db, { workerId: options.workerId, jobIds: jobs.map((job) => job.id), leaseMs });
  try {
    for (const job of jobs) {
      // Taken over while it waited here (this worker stalled past its lease): the new holder runs it.
      if (!leases.holds(job.id)) {
        lost++;
        log("warn", `job ${job.id} (${job.type}) was leased by another worker while it waited; skipped here`);
        continue;
      }
      const outcome = await runJob(db, handlers[job.type], job, options.workerId);
      if (outcome === "succeeded") succeeded++;
      else if (outcome === "failed") failed++;
      else lost++;
      leases.release(job.id);
    }
  } finally {
    await leases.stop();
  }
  return { handled: jobs.length, succeeded, failed, lost };
}

/** Runs one job and records its outcome; "lost" when another worker held its lease by the end. */
async function runJob(
  db: Database,
  handler: JobHandler | undefined,
  job: MemoryJob,
  workerId: string,
): Promise<"succeeded" | "failed" | "lost"> {
  try {
    if (!handler) throw new Error(`no handler for job type ${job.type}`);
    const result = await handler(db, job);
    return (await completeJob(db, job, workerId, result ?? null)) ? "succeeded" : "lost";
  } catch (error) {
    const outcome = await failJob(db, job, workerId, error);
    log(
      outcome === "dead" ? "error" : "warn",
      `job ${job.id} (${job.type}) failed: ${error instanceof Error ? error.message : String(error)} → ${outcome}`,
    );
    return "failed";
  }
}
