/**
 * A job worker whose handler never returns: it leases one job with a short lease, reports it, and
 * hangs until the parent SIGKILLs it (a worker dying mid-job).
 */
import { enqueueJob } from "~/server/jobs/queue";
import { newWorkerId, processJobsOnce } from "~/server/jobs/worker";
import { childArgs, emit, openTarget, runChild, type ChildTarget } from "./common";

/** `enqueueFor`: first queue one digest job for this tenant (saves the parent an open of the data dir). */
type Args = ChildTarget & { leaseMs: number; enqueueFor?: string };

runChild(async () => {
  const args = childArgs<Args>();
  const handle = await openTarget(args);
  const workerId = newWorkerId();
  if (args.enqueueFor)
    emit("enqueued", { jobId: await enqueueJob(handle.db, { tenantId: args.enqueueFor, type: "digest" }) });
  emit("ready", { pid: process.pid, workerId });
  for (;;) {
    const { handled } = await processJobsOnce(
      handle.db,
      {
        digest: async (_db, job) => {
          emit("started", {
            jobId: job.id,
            attempts: job.attempts,
            leasedBy: job.leasedBy,
            leasedUntil: job.leasedUntil?.getTime() ?? null,
            workerId,
          });
          // Hang, keeping the event loop alive (a bare pending promise would let Node exit).
          await new Promise<never>(() => setInterval(() => {}, 1000));
        },
      },
      { workerId, limit: 1, leaseMs: args.leaseMs },
    );
    if (handled === 0) await new Promise((resolve) => setTimeout(resolve, 50));
  }
});
