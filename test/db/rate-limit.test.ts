import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import net from "node:net";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "~/db/client";
import { queryRows } from "~/db/raw";
import { rateLimitBuckets } from "~/db/schema";
import { env } from "~/env";
import { admitMeteredAgentCall } from "~/server/auth/agent-call";
import { revokeApiKey } from "~/server/auth/api-keys";
import {
  consumeRateLimit,
  enforceKeyRateLimit,
  fallbackCounter,
  postgresCounter,
  redisCounter,
  RATE_LIMIT_WINDOW_MS,
} from "~/server/rate-limit/limiter";
import { RedisClient } from "~/server/rate-limit/redis";
import { openTestDatabase, recordingDb, TEST_BACKEND, type TestDatabase } from "../support/db";
import { createKey, createOrg, trpcHttp } from "../support/agents";
import { callerAs } from "../support/trpc";
import { clearOfMinuteEnd } from "../support/clock";

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

describe(`per-key rate limits (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  let org: Awaited<ReturnType<typeof createOrg>>;

  beforeAll(async () => {
    handle = await openTestDatabase();
    org = await createOrg(handle.db);
  });
  afterAll(async () => handle?.destroy());

  it("counts a fixed window atomically, refuses past the limit and recovers in the next window", async () => {
    const store = postgresCounter(handle.db);
    const now = Date.UTC(2030, 0, 1, 12, 0, 10);
    const hits = await Promise.all(
      Array.from({ length: 12 }, () => consumeRateLimit(store, { bucket: "t:atomic", limit: 10, now })),
    );
    expect(hits.map((h) => h.count).sort((x, y) => x - y)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    const refused = hits.filter((h) => !h.allowed);
    expect(refused).toHaveLength(2);
    expect(refused[0]).toMatchObject({ remaining: 0, retryAfterSeconds: 50 });

    const later = await consumeRateLimit(store, { bucket: "t:atomic", limit: 10, now: now + RATE_LIMIT_WINDOW_MS });
    expect(later).toMatchObject({ allowed: true, count: 1 });
    // A straggler from the old window (another instance's slow clock) does not reset the new one.
    const straggler = await consumeRateLimit(store, { bucket: "t:atomic", limit: 10, now });
    expect(straggler.count).toBe(2);
  });

  it("counts several hits at once and reads a count without adding to it (Postgres)", async () => {
    const store = postgresCounter(handle.db);
    const now = Date.UTC(2030, 0, 1, 13, 0, 0);
    expect(await store.peek("t:amount", now)).toBe(0);
    expect(await store.hit("t:amount", now, RATE_LIMIT_WINDOW_MS, 4)).toBe(4);
    expect(await store.hit("t:amount", now, RATE_LIMIT_WINDOW_MS)).toBe(5);
    expect(await store.peek("t:amount", now)).toBe(5);
    // A newer window starts from its own hits; the old window's count is not read for it.
    expect(await store.peek("t:amount", now + RATE_LIMIT_WINDOW_MS)).toBe(0);
    expect(await store.hit("t:amount", now + RATE_LIMIT_WINDOW_MS, RATE_LIMIT_WINDOW_MS, 3)).toBe(3);
  });

  it("takes hits back with a negative amount, never below 0 in a new window (Postgres)", async () => {
    const store = postgresCounter(handle.db);
    const now = Date.UTC(2030, 0, 1, 14, 0, 0);
    expect(await store.hit("t:undo", now, RATE_LIMIT_WINDOW_MS, 2)).toBe(2);
    expect(await store.hit("t:undo", now, RATE_LIMIT_WINDOW_MS, -1)).toBe(1);
    expect(await store.hit("t:undo", now + RATE_LIMIT_WINDOW_MS, RATE_LIMIT_WINDOW_MS, -1)).toBe(0);
    expect(await store.hit("t:undo-new", now, RATE_LIMIT_WINDOW_MS, -1)).toBe(0);
  });

  it("trips an agent key with TOO_MANY_REQUESTS and a retry hint, then lets it through again", async () => {
    const { apiKey, secret } = await createKey(handle.db, {
      tenantId: org.tenantId,
      ownerUserId: org.adminId,
      rateLimitPerMinute: 3,
    });
    const tools = callerAs(handle.db, { bearer: secret }).tools;
    await clearOfMinuteEnd();
    for (let i = 0; i < 3; i++) await tools.memory_search({ all: true });
    const error = await tools.memory_search({ all: true }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: "TOO_MANY_REQUESTS",
      cause: { reason: "rate_limited", details: { limit: 3, retryAfterSeconds: expect.any(Number) } },
    });

    const http = await trpcHttp(handle.db, "tools.list", { bearer: secret });
    expect(http.status).toBe(429);
    expect(http.json.error?.data).toMatchObject({
      code: "TOO_MANY_REQUESTS",
      reason: "rate_limited",
      details: { retryAfterSeconds: expect.any(Number) },
    });

    // Another key of the same owner has its own budget.
    const sibling = await createKey(handle.db, {
      tenantId: org.tenantId,
      ownerUserId: org.adminId,
      rateLimitPerMinute: 3,
    });
    expect((await callerAs(handle.db, { bearer: sibling.secret }).tools.list()).tools.length).toBeGreaterThan(0);

    // The window passes (moved back instead of waiting a minute): calls are accepted again.
    await handle.db
      .update(rateLimitBuckets)
      .set({ windowStart: 0 })
      .where(eq(rateLimitBuckets.bucket, `key:${org.tenantId}:${apiKey.id}`));
    expect((await tools.memory_search({ all: true })).enumerated).toBe(true);
  });

  it("counts a tool call in its key lookup (one statement) and nothing for me.agent, refused or unlimited keys", async () => {
    const bucketCount = async (keyId: string) =>
      (
        await handle.db
          .select({ count: rateLimitBuckets.count })
          .from(rateLimitBuckets)
          .where(eq(rateLimitBuckets.bucket, `key:${org.tenantId}:${keyId}`))
      )[0]?.count ?? null;
    const { apiKey, secret } = await createKey(handle.db, {
      tenantId: org.tenantId,
      ownerUserId: org.adminId,
      rateLimitPerMinute: 5,
    });
    const { db: logged, statements } = await recordingDb(handle);
    const admitted = await admitMeteredAgentCall(logged, secret);
    expect(admitted.apiKey.id).toBe(apiKey.id);
    // The count rides on the key lookup; the only other statement is the first use's last_used_at note.
    const counting = statements.filter((s) => s.includes("rate_limit_buckets"));
    expect(counting).toHaveLength(1);
    expect(counting[0]).toMatch(/from "api_keys"/);
    expect(
      statements
        .filter((s) => !s.includes("rate_limit_buckets"))
        .every((s) => s.startsWith('update "api_keys" set "last_used_at"')),
    ).toBe(true);
    expect(await bucketCount(apiKey.id)).toBe(1);

    await callerAs(handle.db, { bearer: secret }).tools.memory_search({ all: true });
    expect(await bucketCount(apiKey.id)).toBe(2);
    await callerAs(handle.db, { bearer: secret }).me.agent();
    expect(await bucketCount(apiKey.id)).toBe(2);

    await revokeApiKey(handle.db, { tenantId: org.tenantId, keyId: apiKey.id, actorUserId: org.adminId });
    await expect(callerAs(handle.db, { bearer: secret }).tools.memory_search({ all: true })).rejects.toMatchObject({
      cause: { reason: "revoked_api_key" },
    });
    expect(await bucketCount(apiKey.id)).toBe(2);

    const unlimited = await createKey(handle.db, {
      tenantId: org.tenantId,
      ownerUserId: org.adminId,
      rateLimitPerMinute: 0,
    });
    await callerAs(handle.db, { bearer: unlimited.secret }).tools.memory_search({ all: true });
    expect(await bucketCount(unlimited.apiKey.id)).toBeNull();
  });

  it("counts the same in one statement as in two (Postgres counter), refusing the call past the limit", async () => {
    const { apiKey, secret } = await createKey(handle.db, {
      tenantId: org.tenantId,
      ownerUserId: org.adminId,
      rateLimitPerMinute: 2,
    });
    const now = Date.UTC(2031, 0, 1, 9, 0, 30);
    await admitMeteredAgentCall(handle.db, secret, { now });
    await admitMeteredAgentCall(handle.db, secret, { now, store: postgresCounter(handle.db) });
    const refused = await admitMeteredAgentCall(handle.db, secret, { now }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ reason: "rate_limited", details: { limit: 2, retryAfterSeconds: 30 } });
    const [row] = await handle.db
      .select()
      .from(rateLimitBuckets)
      .where(eq(rateLimitBuckets.bucket, `key:${org.tenantId}:${apiKey.id}`));
    expect(row).toMatchObject({ count: 3, windowStart: Date.UTC(2031, 0, 1, 9, 0, 0) });
  });

  it("does not leave synchronous_commit off after a counted call", async () => {
    const { secret } = await createKey(handle.db, {
      tenantId: org.tenantId,
      ownerUserId: org.adminId,
      rateLimitPerMinute: 100,
    });
    const single = handle.url ? await openDatabase({ url: handle.url, migrate: false, poolMax: 1 }) : null;
    const db = single?.db ?? handle.db;
    try {
      await admitMeteredAgentCall(db, secret);
      const [row] = await queryRows<{ synchronous_commit: string }>(db, sql`show synchronous_commit`);
      expect(row?.synchronous_commit).toBe("on");
    } finally {
      await single?.close();
    }
  });

  it("uses RATE_LIMIT_PER_MINUTE for keys without their own limit", async () => {
    const { apiKey } = await createKey(handle.db, { tenantId: org.tenantId, ownerUserId: org.adminId });
    const decision = await enforceKeyRateLimit(handle.db, apiKey);
    expect(decision?.limit).toBe(env.RATE_LIMIT_PER_MINUTE);
  });

  it("shares one count between app instances on the same database", async () => {
    if (!handle.url) {
      // Embedded mode is one process by construction (the data directory is locked); nothing to share.
      expect(TEST_BACKEND).toBe("pglite");
      return;
    }
    const second = await openDatabase({ url: handle.url, migrate: false, poolMax: 2 });
    try {
      const now = Date.UTC(2030, 0, 1, 13, 0, 0);
      const a = postgresCounter(handle.db);
      const b = postgresCounter(second.db);
      const counts = await Promise.all(
        [a, b, a, b, a, b].map((store) => consumeRateLimit(store, { bucket: "t:shared", limit: 4, now })),
      );
      expect(counts.map((c) => c.count).sort()).toEqual([1, 2, 3, 4, 5, 6]);
      expect(counts.filter((c) => !c.allowed)).toHaveLength(2);
    } finally {
      await second.close();
    }
  });

  it("falls back to Postgres when Redis cannot be reached", async () => {
    const port = await freePort();
    const client = new RedisClient(`redis://127.0.0.1:${port}`, 500);
    const store = fallbackCounter(redisCounter(client), postgresCounter(handle.db));
    const now = Date.UTC(2030, 0, 1, 14, 0, 0);
    expect((await consumeRateLimit(store, { bucket: "t:fallback", limit: 5, now })).count).toBe(1);
    expect((await consumeRateLimit(store, { bucket: "t:fallback", limit: 5, now })).count).toBe(2);
    const [row] = await handle.db.select().from(rateLimitBuckets).where(eq(rateLimitBuckets.bucket, "t:fallback"));
    expect(row?.count).toBe(2);
    client.close();
  });

  const hasRedis = spawnSync("redis-server", ["--version"]).status === 0;
  describe.runIf(hasRedis)("with a real Redis (redis-server on PATH)", () => {
    let redis: ChildProcess;
    let url: string;
    beforeAll(async () => {
      const port = await freePort();
      redis = spawn(
        "redis-server",
        ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        { stdio: "ignore" },
      );
      url = `redis://127.0.0.1:${port}`;
      for (let i = 0; i < 50; i++) {
        const probe = new RedisClient(url, 200);
        const up = await probe.command(["PING"]).then(
          () => true,
          () => false,
        );
        probe.close();
        if (up) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error("redis-server did not start");
    });
    afterAll(() => {
      redis?.kill();
    });

    it("counts several hits at once and reads a count without adding to it (Redis)", async () => {
      const client = new RedisClient(url);
      const store = redisCounter(client);
      const now = Date.UTC(2030, 0, 1, 16, 0, 0);
      expect(await store.peek("t:redis-amount", now)).toBe(0);
      expect(await store.hit("t:redis-amount", now, RATE_LIMIT_WINDOW_MS, 4)).toBe(4);
      expect(await store.hit("t:redis-amount", now, RATE_LIMIT_WINDOW_MS)).toBe(5);
      expect(await store.peek("t:redis-amount", now)).toBe(5);
      const ttl = await client.command(["PTTL", `memory:rl:t:redis-amount:${now}`]);
      expect(typeof ttl === "number" && ttl > 0).toBe(true);
      client.close();
    });

    it("counts in Redis, shared between clients, with the window expiring", async () => {
      const one = new RedisClient(url);
      const two = new RedisClient(url);
      const now = Date.UTC(2030, 0, 1, 15, 0, 0);
      const counts = await Promise.all(
        [one, two, one, two, one].map((c) => consumeRateLimit(redisCounter(c), { bucket: "t:redis", limit: 4, now })),
      );
      expect(counts.map((c) => c.count).sort()).toEqual([1, 2, 3, 4, 5]);
      expect(counts.filter((c) => !c.allowed)).toHaveLength(1);
      expect(
        (await consumeRateLimit(redisCounter(one), { bucket: "t:redis", limit: 4, now: now + RATE_LIMIT_WINDOW_MS }))
          .count,
      ).toBe(1);
      const ttl = await one.command(["PTTL", `memory:rl:t:redis:${now}`]);
      expect(typeof ttl === "number" && ttl > 0 && ttl <= 2 * RATE_LIMIT_WINDOW_MS).toBe(true);
      one.close();
      two.close();
    });
  });
});
