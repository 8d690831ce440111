import { eq } from "drizzle-orm";
import { memoryJobs } from "~/db/schema";
import type { Database } from "~/db/types";
import { processJobsOnce, type JobHandlers } from "~/server/jobs/worker";
import { treeJobHandlers } from "~/server/tree/jobs";

/** Runs every queued job (the memory tree's by default) until the queue is empty, or a safety limit. */
export async function drainJobs(db: Database, handlers: JobHandlers = treeJobHandlers(null)) {
  for (let i = 0; i < 50; i++) {
    const { handled } = await processJobsOnce(db, handlers, { workerId: "test-worker" });
    if (handled === 0) {
      // Sealing re-queues itself a second ahead; run it now instead of waiting.
      const [later] = await db
        .update(memoryJobs)
        .set({ runAt: new Date(0) })
        .where(eq(memoryJobs.status, "queued"))
        .returning({ id: memoryJobs.id });
      if (!later) return;
    }
  }
}
