import { and, eq, inArray, sql } from "drizzle-orm";
import { memoryJobs } from "~/db/schema";
import type { DbOrTx } from "~/db/types";
import { describeError, log } from "~/server/log";

export type LeaseKeeper = {
  /** Whether this worker still holds the job's lease (false once a renewal found it taken over). */
  holds: (jobId: number) => boolean;
  /** Stops renewing one job (it is finished). */
  release: (jobId: number) => void;
  /** Stops renewing them all; waits for a renewal in flight. */
  stop: () => Promise<void>;
};

/**
 * Renews a worker's leases while it works through a batch. A lease ran out while the worker was still
 * alive: a batch of ten LLM-bound jobs outlasted the 60 s lease, and another worker leased and ran
 * the jobs still waiting in it. The renewal extends each held lease by `leaseMs` every third of it;
 * a job no longer held (taken over after a stall longer than the lease) is reported by `holds`, so
 * the worker skips it rather than running it beside the new holder. A dead worker renews nothing, so
 * its jobs still pass to a survivor once the lease expires.
 */
export function keepLeases(
  db: DbOrTx,
  params: { workerId: string; jobIds: readonly number[]; leaseMs: number; everyMs?: number },
): LeaseKeeper {
  const held = new Set(params.jobIds);
  let inFlight: Promise<void> | undefined;
  const renew = async () => {
    const ids = [...held];
    if (ids.length === 0) return;
    try {
      const kept = await db
        .update(memoryJobs)
        .set({ leasedUntil: sql`now() + make_interval(secs => ${params.leaseMs / 1000})` })
        .where(
          and(inArray(memoryJobs.id, ids), eq(memoryJobs.leasedBy, params.workerId), eq(memoryJobs.status, "running")),
        )
        .returning({ id: memoryJobs.id });
      const still = new Set(kept.map((row) => row.id));
      // Only a job this worker has not released can be lost; one released meanwhile is simply finished.
      for (const id of ids) if (!still.has(id) && held.has(id)) held.delete(id);
    } catch (error) {
      // A renewal that fails is tried again at the next tick; the lease itself still runs for a while.
      log("warn", `worker ${params.workerId}: renewing ${ids.length} job lease(s) failed: ${describeError(error)}`);
    }
  };
  const timer = setInterval(
    () => {
      inFlight ??= renew().finally(() => (inFlight = undefined));
    },
    params.everyMs ?? Math.max(50, Math.floor(params.leaseMs / 3)),
  );
  timer.unref();
  return {
    holds: (jobId) => held.has(jobId),
    release: (jobId) => void held.delete(jobId),
    stop: async () => {
      clearInterval(timer);
      held.clear();
      await inFlight;
    },
  };
}
