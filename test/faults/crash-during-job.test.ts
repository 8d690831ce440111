/**
 * Fault 3: a worker is SIGKILLed while it runs a job. Its lease expires, another worker takes the job
 * over (attempts = 2) and completes it; the job never runs in two workers at once, and a late
 * completion from the dead worker's id is refused.
 */
import fs from "node:fs";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "~/db/client";
import { DataDirectoryLockedError } from "~/db/embedded-lock";
import { memoryJobs, type MemoryJob } from "~/db/schema";
import type { Database } from "~/db/types";
import { completeJob, enqueueJob } from "~/server/jobs/queue";
import { processJobsOnce } from "~/server/jobs/worker";
import { createEmptyServerDatabase } from "../support/db";
import { createTenant } from "../support/memory";
import { copyPgliteTemplate, describeServer, FaultChild, sleep, TEMPLATE_TENANT } from "./support";

const LEASE_MS = 500;
const SERVER_LEASE_MS = 3000;

type Run = { worker: string; jobId: number; attempts: number; startedAt: number };

/** Polls like a real worker until it has handled one job; returns what its handler saw. */
async function survivorTakesOver(db: Database, runs: Run[], timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const { handled, succeeded } = await processJobsOnce(
      db,
      {
        digest: async (_db, job) =>
          void runs.push({ worker: "survivor", jobId: job.id, attempts: job.attempts, startedAt: Date.now() }),
      },
      { workerId: "survivor", limit: 1, leaseMs: 60_000 },
    );
    if (handled > 0) return { handled, succeeded };
    await sleep(50);
  }
  throw new Error("the survivor never got the job");
}

async function assertTakenOverOnce(
  db: Database,
  jobId: number,
  first: { workerId: string; leasedUntil: number; killedAt: number },
  runs: Run[],
) {
  // Exactly one run in the survivor, as the second attempt, begun only after the dead worker's lease ran out.
  expect(runs).toHaveLength(1);
  expect(runs[0]).toMatchObject({ jobId, attempts: 2 });
  expect(runs[0]!.startedAt).toBeGreaterThanOrEqual(first.leasedUntil);
  expect(runs[0]!.startedAt).toBeGreaterThanOrEqual(first.killedAt);
  const [job] = await db.select().from(memoryJobs).where(eq(memoryJobs.id, jobId));
  expect(job).toMatchObject({ status: "succeeded", attempts: 2, leasedBy: "survivor" });
  // The dead worker's id can no longer finish it (a zombie that wakes up would be refused).
  expect(await completeJob(db, job as MemoryJob, first.workerId)).toBe(false);
  // Nothing else is left to run.
  expect((await processJobsOnce(db, { digest: async () => undefined }, { workerId: "late" })).handled).toBe(0);
}

describe("SIGKILL during a job: embedded (PGlite data dir)", () => {
  it("re-leases the job to the next process after the lease expires; attempts = 2", async () => {
    const dataDir = copyPgliteTemplate();
    const child = new FaultChild("hang-worker.ts", { dataDir, leaseMs: LEASE_MS, enqueueFor: TEMPLATE_TENANT });
    const jobId = Number((await child.waitFor((e) => e.event === "enqueued", 60_000)).jobId);
    const started = await child.waitFor((e) => e.event === "started", 60_000);
    expect(started).toMatchObject({ jobId, attempts: 1 });
    // While the worker lives, the data directory is its own: no second process can even open it.
    await expect(openDatabase({ dataDir, migrate: false })).rejects.toBeInstanceOf(DataDirectoryLockedError);
    await child.kill();
    const killedAt = Date.now();

    const handle = await openDatabase({ dataDir });
    const runs: Run[] = [];
    await survivorTakesOver(handle.db, runs);
    await assertTakenOverOnce(
      handle.db,
      jobId,
      { workerId: String(started.workerId), leasedUntil: Number(started.leasedUntil), killedAt },
      runs,
    );
    await handle.close();
    fs.rmSync(path.dirname(dataDir), { recursive: true, force: true });
  });
});

describeServer("SIGKILL during a job: server (Postgres)", () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const fn of cleanup.reverse()) await fn();
  });

  it("a survivor polling all along gets nothing while the lease holds, then runs the job once (attempts = 2)", async () => {
    const { url, drop } = await createEmptyServerDatabase();
    cleanup.push(drop);
    const handle = await openDatabase({ url, poolMax: 2 });
    cleanup.push(() => handle.close());
    const tenantId = await createTenant(handle.db);
    const jobId = (await enqueueJob(handle.db, { tenantId, type: "digest" }))!;

    // A longer lease here: the survivor polls during it, and must be refused the whole time.
    const child = new FaultChild("hang-worker.ts", { url, leaseMs: SERVER_LEASE_MS });
    const started = await child.waitFor((e) => e.event === "started", 60_000);
    expect(started).toMatchObject({ jobId, attempts: 1 });
    const runs: Run[] = [];
    let polls = 0;
    const killAt = Date.now() + 1000;
    while (Date.now() < killAt) {
      const early = await processJobsOnce(
        handle.db,
        {
          digest: async (_db, job) =>
            void runs.push({ worker: "survivor", jobId: job.id, attempts: job.attempts, startedAt: Date.now() }),
        },
        { workerId: "survivor", leaseMs: 60_000 },
      );
      expect(early.handled).toBe(0);
      polls++;
      await sleep(50);
    }
    expect(polls).toBeGreaterThan(1);
    expect(Date.now()).toBeLessThan(Number(started.leasedUntil));
    await child.kill();
    const killedAt = Date.now();
    await survivorTakesOver(handle.db, runs);
    await assertTakenOverOnce(
      handle.db,
      jobId,
      { workerId: String(started.workerId), leasedUntil: Number(started.leasedUntil), killedAt },
      runs,
    );
  });
});
