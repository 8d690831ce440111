import { tenants } from "~/db/schema";
import type { Database } from "~/db/types";
import { log } from "~/server/log";
import { processEmbedJobs } from "~/server/memory/embeddings-jobs";
import { createLlmClient } from "~/server/providers/llm";
import { treeJobHandlers } from "~/server/tree/jobs";
import { enqueueOnce } from "./queue";
import { newWorkerId, processJobsOnce } from "./worker";

const SCHEDULE_EVERY_MS = 15 * 60_000;

/** Daily work per tenant: yesterday's digest (L2) and one day of hotness decay; each runs once per day. */
export async function scheduleDailyJobs(db: Database, now = new Date()) {
  const today = now.toISOString().slice(0, 10);
  const yesterday = new Date(now.getTime() - 86_400_000).toISOString().slice(0, 10);
  let scheduled = 0;
  for (const { id } of await db.select({ id: tenants.id }).from(tenants)) {
    if (await enqueueOnce(db, { tenantId: id, type: "digest", dedupeKey: `digest:${yesterday}`, payload: { day: yesterday } })) scheduled++;
    if (await enqueueOnce(db, { tenantId: id, type: "hotness_decay", dedupeKey: `hotness_decay:${today}` })) scheduled++;
  }
  return scheduled;
}

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
export async function runWorkerLoop(db: Database, options: { signal?: AbortSignal; idleMs?: number; workerId?: string; onProgress?: (handled: number) => void } = {}) {
  const workerId = options.workerId ?? newWorkerId();
  const handlers = treeJobHandlers(createLlmClient());
  let lastSchedule = 0;
  while (!options.signal?.aborted) {
    let handled = 0;
    try {
      if (Date.now() - lastSchedule > SCHEDULE_EVERY_MS) {
        await scheduleDailyJobs(db);
        lastSchedule = Date.now();
      }
      handled = await runJobsOnce(db, workerId, handlers);
      if (handled) options.onProgress?.(handled);
    } catch (error) {
      log("warn", `worker ${workerId}: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (handled === 0) await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, options.idleMs ?? 1000);
      options.signal?.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
    });
  }
}
