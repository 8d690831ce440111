import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { idempotencyKeys, memoryJobs, memoryQueryLog, rateLimitBuckets } from "~/db/schema";
import { SIGN_IN_THROTTLE } from "~/server/auth/sign-in-throttle";
import { runMaintenance } from "~/server/jobs/maintenance";
import { pruneExpiredRecords } from "~/server/jobs/retention";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { createTenant } from "../support/memory";

const DAY = 86_400_000;
const ago = (days: number) => new Date(Date.now() - days * DAY);

describe(`retention of operational records (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  beforeAll(async () => {
    handle = await openTestDatabase();
  });
  afterAll(async () => handle?.destroy());

  /** A tenant with query log rows, idempotency replies and jobs of the given ages (days). */
  async function seedTenant(ages: number[]) {
    const tenantId = await createTenant(handle.db);
    for (const [i, days] of ages.entries()) {
      const at = ago(days);
      await handle.db.insert(memoryQueryLog).values({
        tenantId,
        operation: "memory_search",
        actorType: "api_key",
        actorId: "key_x",
        latencyMs: 3,
        resultCount: 1,
        createdAt: at,
      });
      await handle.db.insert(idempotencyKeys).values({
        tenantId,
        principalId: "key_x",
        key: `idem-${i}`,
        requestHash: "h",
        response: { done: true },
        createdAt: at,
      });
      for (const status of ["succeeded", "dead", "queued"] as const) {
        await handle.db
          .insert(memoryJobs)
          .values({ tenantId, type: "embed", status, createdAt: at, finishedAt: status === "queued" ? null : at });
      }
    }
    return tenantId;
  }

  const count = async (
    table: typeof memoryQueryLog | typeof idempotencyKeys | typeof memoryJobs,
    tenantId: string,
    extra?: ReturnType<typeof eq>,
  ) =>
    (
      await handle.db
        .select({ n: sql<number>`count(*)::int` })
        .from(table)
        .where(and(eq(table.tenantId, tenantId), extra))
    )[0]!.n;

  it("deletes what is older than the policy in every tenant and keeps the rest (dead and queued jobs always)", async () => {
    const a = await seedTenant([1, 10, 40, 400]);
    const b = await seedTenant([2, 45]);
    const pruned = await pruneExpiredRecords(handle.db, { queryLogDays: 30, idempotencyDays: 7, finishedJobDays: 7 });
    expect(pruned.queryLog).toBeGreaterThanOrEqual(3);
    for (const [tenantId, logKept, idemKept, succeededKept] of [
      [a, 2, 1, 1],
      [b, 1, 1, 1],
    ] as const) {
      expect(await count(memoryQueryLog, tenantId)).toBe(logKept);
      expect(await count(idempotencyKeys, tenantId)).toBe(idemKept);
      expect(await count(memoryJobs, tenantId, eq(memoryJobs.status, "succeeded"))).toBe(succeededKept);
    }
    expect(await count(memoryJobs, a, eq(memoryJobs.status, "dead"))).toBe(4);
    expect(await count(memoryJobs, a, eq(memoryJobs.status, "queued"))).toBe(4);
  });

  it("keeps each session's last extraction run (where extraction stopped), however old", async () => {
    const tenantId = await createTenant(handle.db);
    const extract = (sessionId: string, days: number, lastSeq: number) =>
      handle.db
        .insert(memoryJobs)
        .values({
          tenantId,
          type: "extract",
          status: "succeeded",
          payload: { sessionId },
          result: { lastSeq },
          createdAt: ago(days),
          finishedAt: ago(days),
        })
        .returning({ id: memoryJobs.id });
    const [older] = await extract("s-week", 20, 10);
    const [last] = await extract("s-week", 9, 42);
    const [other] = await extract("s-other", 30, 7);
    await pruneExpiredRecords(handle.db, { queryLogDays: 0, idempotencyDays: 0, finishedJobDays: 7 });
    const kept = (
      await handle.db.select({ id: memoryJobs.id }).from(memoryJobs).where(eq(memoryJobs.tenantId, tenantId))
    )
      .map((r) => r.id)
      .sort();
    expect(kept).toEqual([last!.id, other!.id].sort());
    expect(kept).not.toContain(older!.id);
  });

  it("keeps everything when a retention is 0, and finds nothing left on a second run", async () => {
    const t = await seedTenant([100, 200]);
    expect(await pruneExpiredRecords(handle.db, { queryLogDays: 0, idempotencyDays: 0, finishedJobDays: 0 })).toEqual({
      queryLog: 0,
      idempotencyKeys: 0,
      jobs: 0,
    });
    expect(await count(memoryQueryLog, t)).toBe(2);
    await pruneExpiredRecords(handle.db, { queryLogDays: 30, idempotencyDays: 30, finishedJobDays: 30 });
    expect(
      await pruneExpiredRecords(handle.db, { queryLogDays: 30, idempotencyDays: 30, finishedJobDays: 30 }),
    ).toEqual({ queryLog: 0, idempotencyKeys: 0, jobs: 0 });
    expect(await count(memoryQueryLog, t)).toBe(0);
  });

  it("deletes more than one batch", async () => {
    const tenantId = await createTenant(handle.db);
    const rows = Array.from({ length: 12_000 }, () => ({
      tenantId,
      operation: "memory_search",
      actorType: "api_key" as const,
      actorId: "key_x",
      latencyMs: 1,
      resultCount: 0,
      createdAt: ago(90),
    }));
    for (let i = 0; i < rows.length; i += 2_000)
      await handle.db.insert(memoryQueryLog).values(rows.slice(i, i + 2_000));
    const pruned = await pruneExpiredRecords(handle.db, { queryLogDays: 30, idempotencyDays: 0, finishedJobDays: 0 });
    expect(pruned.queryLog).toBe(12_000);
    expect(await count(memoryQueryLog, tenantId)).toBe(0);
  });

  it("is part of the periodic maintenance, which says what it did", async () => {
    const t = await seedTenant([60]);
    const line = await runMaintenance(handle.db, {
      vacuum: TEST_BACKEND === "pglite",
      policy: { queryLogDays: 30, idempotencyDays: 7, finishedJobDays: 7 },
    });
    expect(line).toMatch(/pruned \d+ query log rows, \d+ idempotency replies, \d+ finished jobs/);
    expect(await count(memoryQueryLog, t)).toBe(0);
  });

  it("deletes sign-in counters whose window ended more than a window ago, and nothing else", async () => {
    const now = Date.now();
    const old = now - 3 * SIGN_IN_THROTTLE.windowMs;
    await handle.db.insert(rateLimitBuckets).values([
      { bucket: "signin:pair:old@example.com|192.0.2.1", windowStart: old, count: 5 },
      { bucket: "signin:acct:new@example.com", windowStart: now - (now % SIGN_IN_THROTTLE.windowMs), count: 2 },
      { bucket: "user:someone", windowStart: old, count: 7 },
    ]);
    const line = await runMaintenance(handle.db, {
      vacuum: false,
      policy: { queryLogDays: 30, idempotencyDays: 7, finishedJobDays: 7 },
    });
    expect(line).toMatch(/1 old sign-in counters/);
    const left = (await handle.db.select().from(rateLimitBuckets)).map((b) => b.bucket);
    expect(left).not.toContain("signin:pair:old@example.com|192.0.2.1");
    expect(left).toEqual(expect.arrayContaining(["signin:acct:new@example.com", "user:someone"]));
  });
});
