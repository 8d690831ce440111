import { getEventListeners } from "node:events";
import { and, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryJobs } from "~/db/schema";
import { runWorkerLoop, scheduleDailyJobs } from "~/server/background-work";
import { appendMessages } from "~/server/memory/evidence/messages";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { createTenant } from "../support/memory";

const until = async (check: () => Promise<boolean>, ms = 15_000) => {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
};

describe(`worker loop (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  beforeAll(async () => {
    handle = await openTestDatabase();
  });
  afterAll(async () => handle?.destroy());

  it("schedules each tenant's daily digest and hotness decay once per day", async () => {
    const t = await createTenant(handle.db);
    const now = new Date("2026-06-15T08:00:00Z");
    await scheduleDailyJobs(handle.db, now);
    await scheduleDailyJobs(handle.db, now);
    const jobs = await handle.db
      .select({ dedupeKey: memoryJobs.dedupeKey, status: memoryJobs.status })
      .from(memoryJobs)
      .where(eq(memoryJobs.tenantId, t));
    expect(jobs.sort((a, b) => (a.dedupeKey! < b.dedupeKey! ? -1 : 1))).toEqual([
      { dedupeKey: "digest:2026-06-14", status: "queued" },
      { dedupeKey: "hotness_decay:2026-06-15", status: "queued" },
    ]);
  });

  it("runs queued work (the memory tree, the daily digest) and stops on abort without piling up listeners", async () => {
    const t = await createTenant(handle.db);
    await appendMessages(
      handle.db,
      { tenantId: t, actor: { type: "api_key", id: "key_test" } },
      { sessionId: "s1", messages: [{ role: "user", content: "The budget review for project Hermes is important." }] },
    );
    // Extraction waits for the agent's own writes (EXTRACT_DELAY_MS); here it is due at once.
    await handle.db
      .update(memoryJobs)
      .set({ runAt: new Date() })
      .where(and(eq(memoryJobs.tenantId, t), eq(memoryJobs.type, "extract")));
    const stop = new AbortController();
    const loop = runWorkerLoop(handle.db, { signal: stop.signal, idleMs: 10, workerId: "test-loop" });
    try {
      const drained = await until(async () => {
        const open = await handle.db
          .select({ id: memoryJobs.id })
          .from(memoryJobs)
          .where(and(eq(memoryJobs.tenantId, t), inArray(memoryJobs.status, ["queued", "running"])));
        return open.length === 0;
      });
      expect(drained).toBe(true);
      // The daily jobs the loop scheduled ran too (they are due at once), and the tree's jobs.
      const jobs = await handle.db
        .select({ type: memoryJobs.type, status: memoryJobs.status })
        .from(memoryJobs)
        .where(eq(memoryJobs.tenantId, t));
      expect(jobs.filter((j) => j.status !== "succeeded")).toEqual([]);
      expect(jobs.map((j) => j.type)).toEqual(expect.arrayContaining(["digest", "hotness_decay", "deep_score"]));
      await new Promise((r) => setTimeout(r, 200)); // a few idle rounds
      expect(getEventListeners(stop.signal, "abort").length).toBeLessThanOrEqual(1);
    } finally {
      stop.abort();
      await loop;
    }
  });
});
