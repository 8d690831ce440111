import type { Database } from "~/db/types";
import { describeError, log } from "~/server/log";
import { processEmbedJobs } from "~/server/memory";
import { createLlmClient } from "~/server/providers/llm";
import { registerTreeSubscribers, scheduleTreeDailyJobs, treeJobHandlers } from "~/server/tree";
import { newWorkerId, processJobsOnce } from "~/server/jobs/worker";

const SCHEDULE_EVERY_MS = 15 * 60_000;

/** Daily work per tenant, each area's own (today: the memory tree's digest and hotness decay). */
export const scheduleDailyJobs = (db: Database, now = new Date()) => scheduleTreeDailyJobs(db, now);

/** One pass over every job type: memory-tree jobs through the generic queue, embeddings in batches. */
export async function runJobsOnce(db: Database, workerId: string, handlers = treeJobHandlers(createLlmClient())) {
  const tree = await processJobsOnce(db, handlers, { workerId });
  const embed = await processEmbedJobs(db, { workerId, limit: 50 });
  return tree.handled + embed.leased;
}

/**
 * The worker loop used inside the web server and by `npm run worker`: drains while there is work,
 * sleeps when idle, schedules the daily jobs, survives database hiccups.
 */
export async function runWorkerLoop(
  db: Database,
  options: { signal?: AbortSignal; idleMs?: number; workerId?: string; onProgress?: (handled: number) => void } = {},
) {
  registerTreeSubscribers();
  const workerId = options.workerId ?? newWorkerId();
  const handlers = treeJobHandlers(createLlmClient());
  let lastSchedule = 0;
  while (!options.signal?.aborted) {
    let handled = 0;
    // Scheduling and processing fail separately: a broken schedule must not stop the queue.
    if (Date.now() - lastSchedule > SCHEDULE_EVERY_MS) {
      try {
        await scheduleDailyJobs(db);
      } catch (error) {
        warn(workerId, "scheduling the daily jobs failed", error);
      }
      lastSchedule = Date.now();
    }
    try {
      handled = await runJobsOnce(db, workerId, handlers);
      if (handled) options.onProgress?.(handled);
    } catch (error) {
      warn(workerId, "processing jobs failed", error);
    }
    if (handled === 0) await idle(options.idleMs ?? 1000, options.signal);
  }
}

const warn = (workerId: string, what: string, error: unknown) =>
  log("warn", `worker ${workerId}: ${what}: ${describeError(error)}`);

/** Waits `ms`, or less when `signal` aborts; leaves no listener behind on the long-lived signal. */
function idle(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
