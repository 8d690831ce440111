import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type DatabaseHandle } from "~/db/client";
import { enqueueJob } from "~/server/jobs/queue";
import { processJobsOnce, type JobHandlers } from "~/server/jobs/worker";
import { consumeRateLimit, postgresCounter } from "~/server/rate-limit/limiter";
import { memorySearch } from "~/server/memory/retrieval/search";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { agentContext, createOp as create, createTenant, noVectors, writeCards } from "../support/memory";
import { createKey, createOrg, trpcHttp } from "../support/agents";
import { clearOfMinuteEnd } from "../support/clock";

/**
 * Two app instances on one Postgres: each instance is its own process with its own pool, which is
 * what a second database handle on the same URL is to the service core. (Embedded mode is one
 * process by design: PGlite's data directory is locked to it.)
 */
describe.runIf(TEST_BACKEND === "postgres")("two instances on one Postgres", () => {
  let handle: TestDatabase;
  let second: DatabaseHandle;
  beforeAll(async () => {
    handle = await openTestDatabase();
    second = await openDatabase({ url: handle.url!, poolMax: 5 });
  });
  afterAll(async () => {
    await second?.close();
    await handle?.destroy();
  });

  it("answers the same search identically from either instance, including right after a write on the other", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId);
    await writeCards(
      handle.db,
      ctx,
      create("avoid_ingredient", {
        title: "用户不吃香菜 (cilantro)",
        content: "推荐菜谱时避免香菜。",
        valueJson: "香菜",
      }),
      create("occupation", { title: "Job", content: "Works night shifts as a nurse.", valueJson: "nurse" }),
      create(
        "active_task",
        { title: "Plan Kyoto trip", content: "Planning a trip to Kyoto in April.", valueJson: "kyoto" },
        { itemKey: "kyoto" },
      ),
    );
    const now = new Date();
    const ids = (r: Awaited<ReturnType<typeof memorySearch>>) => ({
      exact: r.exact.map((n) => n.id),
      relevant: r.relevant.map((n) => [n.id, n.score?.final]),
      omitted: r.omitted,
    });
    for (const input of [
      { queryText: "香菜" },
      { queryText: "what is my job" },
      { all: true },
      { kinds: ["occupation"] },
    ]) {
      const [a, b] = await Promise.all([
        memorySearch(handle.db, ctx, input, { ...noVectors, now }),
        memorySearch(second.db, ctx, input, { ...noVectors, now }),
      ]);
      expect(ids(b), JSON.stringify(input)).toEqual(ids(a));
      expect(a.exact.length + a.relevant.length).toBeGreaterThan(0);
    }
    // Read-your-writes across instances: a card written through one is found through the other.
    const [trip] = await writeCards(
      second.db,
      ctx,
      create(
        "active_task",
        { title: "Book Osaka hotel", content: "Hotel near Namba for the trip." },
        { itemKey: "osaka_hotel" },
      ),
    );
    const found = await memorySearch(handle.db, ctx, { queryText: "Osaka hotel" }, noVectors);
    expect(found.relevant.map((n) => n.id)).toContain(trip);
  });

  it("runs every queued job exactly once with workers on both instances", async () => {
    const tenantId = await createTenant(handle.db);
    for (let i = 0; i < 60; i++)
      await enqueueJob(i % 2 ? handle.db : second.db, { tenantId, type: "digest", payload: { i } });
    const ran: { job: number; instance: string }[] = [];
    const handlers = (instance: string): JobHandlers => ({
      digest: async (_db, job) => void ran.push({ job: job.id, instance }),
    });
    const worker = async (db: typeof handle.db, instance: string, id: string) => {
      for (let round = 0; round < 25; round++)
        await processJobsOnce(db, handlers(instance), { workerId: id, limit: 2 });
    };
    await Promise.all([
      worker(handle.db, "a", "a1"),
      worker(handle.db, "a", "a2"),
      worker(second.db, "b", "b1"),
      worker(second.db, "b", "b2"),
    ]);
    expect(ran).toHaveLength(60);
    expect(new Set(ran.map((r) => r.job)).size).toBe(60);
    // Both instances did part of the work.
    expect(new Set(ran.map((r) => r.instance))).toEqual(new Set(["a", "b"]));
  });

  it("counts one rate limit per key across both instances, on the agent endpoint itself", async () => {
    const org = await createOrg(handle.db);
    const key = await createKey(handle.db, { tenantId: org.tenantId, ownerUserId: org.adminId, rateLimitPerMinute: 6 });
    await clearOfMinuteEnd();
    const calls = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        trpcHttp(i % 2 ? second.db : handle.db, "tools.memory_search", {
          bearer: key.secret,
          body: { queryText: "anything", turn: { sessionId: "limits" } },
        }),
      ),
    );
    expect(calls.filter((c) => c.status === 200)).toHaveLength(6);
    const limited = calls.filter((c) => c.status === 429);
    expect(limited).toHaveLength(4);
    for (const c of limited) expect(c.json.error?.data.reason).toBe("rate_limited");
  });

  it("counts one rate limit per key across both instances", async () => {
    const now = Date.now();
    const stores = [postgresCounter(handle.db), postgresCounter(second.db)];
    const decisions = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        consumeRateLimit(stores[i % 2]!, { bucket: "key:shared-two-instances", limit: 6, now }),
      ),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(6);
    expect(decisions.map((d) => d.count).sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });
});
