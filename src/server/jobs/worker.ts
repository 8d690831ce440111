import { hostname } from "node:os";
import type { Database } from "~/db/types";
import type { JobType, MemoryJob } from "~/db/schema";
import { newId } from "~/server/ids";
import { log } from "~/server/log";
import { completeJob, failJob, leaseJobs } from "./queue";

export type JobHandler = (db: Database, job: MemoryJob) => Promise<unknown>;
export type JobHandlers = Partial<Record<JobType, JobHandler>>;

export const newWorkerId = () => `${hostname()}:${process.pid}:${newId("w").slice(2, 10)}`;

/** Leases one batch and runs it; returns how many jobs it handled. */
export async function processJobsOnce(
  db: Database,
  handlers: JobHandlers,
  options: { workerId: string; limit?: number; leaseMs?: number },
): Promise<{ handled: number; succeeded: number; failed: number }> {
  const types = Object.keys(handlers) as JobType[];
  const jobs = await leaseJobs(db, { workerId: options.workerId, limit: options.limit ?? 10, leaseMs: options.leaseMs ?? 60_000, types });
  let succeeded = 0;
  let failed = 0;
  for (const job of jobs) {
    const handler = handlers[job.type];
    try {
      if (!handler) throw new Error(`no handler for job type ${job.type}`);
      const result = await handler(db, job);
      if (await completeJob(db, job, options.workerId, result ?? null)) succeeded++;
    } catch (error) {
      failed++;
      const outcome = await failJob(db, job, options.workerId, error);
      log(outcome === "dead" ? "error" : "warn", `job ${job.id} (${job.type}) failed: ${error instanceof Error ? error.message : String(error)} → ${outcome}`);
    }
  }
  return { handled: jobs.length, succeeded, failed };
}
