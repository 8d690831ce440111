import { eq, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type DatabaseHandle } from "~/db/client";
import { queryRows } from "~/db/raw";
import * as schema from "~/db/schema";
import { memoryAuditEvents, memoryNodes } from "~/db/schema";
import type { Database } from "~/db/types";
import { memoryForget } from "~/server/memory/forget/forget";
import { pgErrorCode } from "~/db/pg-errors";
import { memoryWrite } from "~/server/memory/write/write";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { agentContext, createTenant } from "../support/memory";

describe(`concurrency (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  /** On Postgres, writers get their own pool so they really run in parallel. */
  let writers: DatabaseHandle;
  beforeAll(async () => {
    handle = await openTestDatabase();
    writers = handle.url ? await openDatabase({ url: handle.url, poolMax: 20, migrate: false }) : handle;
  });
  afterAll(async () => {
    if (writers !== handle) await writers.close();
    await handle?.destroy();
  });

  it("50 writers racing on one slot with expectedRevision: one winner per revision, gapless, no lost update", async () => {
    const t = await createTenant(handle.db);
    const ctx = agentContext(t);
    const created = await memoryWrite(handle.db, ctx, {
      operations: [
        {
          op: "create",
          kind: "custom_fact",
          itemKey: "counter",
          explicitUserIntent: true,
          node: { title: "Counter", content: "value 0", valueJson: 0 },
        },
      ],
    });
    let current = { id: created.results[0]!.nodeId!, revision: 1 };
    const winners: number[] = [];
    let conflicts = 0;
    // Rounds of 50 concurrent attempts against the revision everyone read; the winner's revision is read by the next round.
    for (let round = 0; round < 5; round++) {
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          memoryWrite(writers.db, ctx, {
            operations: [
              {
                op: "update",
                targetId: current.id,
                expectedRevision: current.revision,
                explicitUserIntent: true,
                node: { content: `value ${round}-${i}`, valueJson: round * 100 + i },
              },
            ],
          }),
        ),
      );
      const won = results.filter((r) => r.done);
      expect(won).toHaveLength(1);
      conflicts += results.filter((r) => !r.done && r.results[0]!.status === "conflict").length;
      const winner = won[0]!.results[0]!;
      winners.push(winner.revision!);
      current = { id: winner.nodeId!, revision: winner.revision! };
    }
    expect(conflicts).toBe(5 * 49);
    expect(winners).toEqual([2, 3, 4, 5, 6]);
    const rows = await handle.db.select().from(memoryNodes).where(eq(memoryNodes.tenantId, t));
    expect(rows.map((r) => r.revision).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(rows.filter((r) => r.status === "active")).toHaveLength(1);
    const updates = await handle.db.select().from(memoryAuditEvents).where(eq(memoryAuditEvents.tenantId, t));
    expect(updates.filter((e) => e.eventType === "update")).toHaveLength(5);
  });

  it("50 concurrent creates of the same new slot: one card, the rest noop or a clean supersede chain", async () => {
    const t = await createTenant(handle.db);
    const ctx = agentContext(t);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        memoryWrite(writers.db, ctx, {
          operations: [
            {
              op: "create",
              kind: "custom_fact",
              itemKey: "race",
              explicitUserIntent: true,
              node: { title: "Race", content: `writer ${i % 2}`, valueJson: i % 2 },
            },
          ],
        }),
      ),
    );
    expect(results.every((r) => r.done || r.results[0]!.status === "conflict")).toBe(true);
    const rows = await handle.db.select().from(memoryNodes).where(eq(memoryNodes.tenantId, t));
    expect(rows.filter((r) => r.status === "active")).toHaveLength(1);
    const revisions = rows.map((r) => r.revision).sort((a, b) => a - b);
    expect(revisions).toEqual(Array.from({ length: revisions.length }, (_, i) => i + 1));
  });

  it("overlapping batch writes and forgets finish without deadlock and leave a consistent state", async () => {
    const t = await createTenant(handle.db);
    const ctx = agentContext(t, { forgetIntent: true });
    const keys = ["a", "b", "c", "d"];
    const created = await memoryWrite(handle.db, ctx, {
      operations: keys.map((k) => ({
        op: "create" as const,
        kind: "custom_fact",
        itemKey: k,
        explicitUserIntent: true,
        node: { title: k, content: `fact ${k}`, valueJson: k },
      })),
    });
    const ids = created.results.map((r) => r.nodeId!);
    const started = Date.now();
    await Promise.all([
      // Opposite lock orders on purpose.
      ...Array.from({ length: 10 }, (_, i) =>
        memoryWrite(writers.db, ctx, {
          operations: (i % 2 ? [...keys].reverse() : keys).map((k) => ({
            op: "create" as const,
            kind: "custom_fact",
            itemKey: k,
            explicitUserIntent: true,
            node: { title: k, content: `fact ${k} v${i}`, valueJson: `${k}${i}` },
          })),
        }),
      ),
      ...ids.map((id) => memoryForget(writers.db, ctx, { id, expectedRevision: 1, reason: "race" })),
    ]);
    expect(Date.now() - started).toBeLessThan(30_000);
    const rows = await handle.db.select().from(memoryNodes).where(eq(memoryNodes.tenantId, t));
    for (const key of keys) {
      const slot = rows.filter((r) => r.itemKey === key);
      expect(slot.filter((r) => r.status === "active").length).toBeLessThanOrEqual(1);
      // A forgotten card ends its chain; a later create starts a new one. Each chain is gapless.
      for (const lineage of new Set(slot.map((r) => r.lineageId))) {
        const revisions = slot
          .filter((r) => r.lineageId === lineage)
          .map((r) => r.revision)
          .sort((a, b) => a - b);
        expect(revisions).toEqual(Array.from({ length: revisions.length }, (_, i) => i + 1));
      }
    }
  });

  it.runIf(TEST_BACKEND === "postgres")(
    "batches writing the same slots in opposite orders from different scopes: every call ends clean, none waits on a deadlock",
    async () => {
      const t = await createTenant(handle.db);
      const ctx = agentContext(t, { forgetIntent: true });
      const keys = ["k1", "k2", "k3"];
      const create = (scope: string, key: string, version: number) => ({
        op: "create" as const,
        kind: "custom_fact",
        itemKey: key,
        scope,
        explicitUserIntent: true,
        node: { title: key, content: `fact ${key} v${version}`, valueJson: `${key}${version}` },
      });
      // Slot locks are per scope, but a card's shadow mark (0013) is held per slot across scopes: taken
      // in each batch's own order, a user-scope batch and a session-scope batch in opposite orders waited
      // for each other (a second per deadlock; 24 such batches took 38 s and 3 failed after 8 retries).
      const deadlocks = async () => {
        const [row] = await queryRows<{ n: string }>(
          writers.db,
          sql`select deadlocks::text as n from pg_stat_database where datname = current_database()`,
        );
        return Number(row?.n ?? 0);
      };
      const before = await deadlocks();
      const started = Date.now();
      const settled = await Promise.allSettled(
        Array.from({ length: 24 }, (_, i) => {
          const scope = i % 2 ? "user:u1" : `session:race${i}`;
          return memoryWrite(writers.db, ctx, {
            operations: (i % 2 ? keys : [...keys].reverse()).map((k) => create(scope, k, i)),
          });
        }),
      );
      expect(
        settled.filter((r) => r.status === "rejected").map((r) => String((r as PromiseRejectedResult).reason)),
      ).toEqual([]);
      expect(Date.now() - started).toBeLessThan(15_000);
      const results = settled.map((r) => (r as PromiseFulfilledResult<Awaited<ReturnType<typeof memoryWrite>>>).value);
      expect(results.filter((r) => !r.done).map((r) => r.message)).toEqual([]);
      // Every slot of every scope holds one current card, and the user's cards carry the sessions' marks.
      const rows = await handle.db.select().from(memoryNodes).where(eq(memoryNodes.tenantId, t));
      const active = rows.filter((r) => r.status === "active");
      for (const key of keys) {
        expect(active.filter((r) => r.itemKey === key && r.scopeType === "user")).toHaveLength(1);
        expect(active.filter((r) => r.itemKey === key && r.scopeType === "session")).toHaveLength(12);
        expect(active.find((r) => r.itemKey === key && r.scopeType === "user")!.shadowed).toBe(true);
      }
      await new Promise((resolve) => setTimeout(resolve, 1100)); // statistics reach pg_stat_database within a second
      console.info(`deadlocks broken by Postgres (and retried) meanwhile: ${(await deadlocks()) - before}`);
    },
  );

  it.runIf(TEST_BACKEND === "postgres")(
    "reports a slot lock that failed, not the aborted read sent with it, and writes nothing",
    async () => {
      const t = await createTenant(handle.db);
      const ctx = agentContext(t);
      const op = (content: string) => ({
        op: "create" as const,
        kind: "custom_fact",
        itemKey: "held",
        explicitUserIntent: true,
        node: { title: "Held", content },
      });
      const first = (await memoryWrite(handle.db, ctx, { operations: [op("first")] })).results[0]!;
      const [card] = await handle.db.select().from(memoryNodes).where(eq(memoryNodes.id, first.nodeId!));
      const slot = `${t}|${card!.scopeType}:${card!.scopeId}|${card!.key}`;
      // Another session holds the slot's lock; this writer gives up after 200 ms (lock_timeout).
      const holder = postgres(handle.url!, { max: 1, onnotice: () => {} });
      const impatient = postgres(handle.url!, { max: 1, onnotice: () => {}, connection: { lock_timeout: 200 } });
      try {
        await holder`select pg_advisory_lock(hashtextextended(${slot}, 0))`;
        const db = drizzle(impatient, { schema }) as unknown as Database;
        const error = await memoryWrite(db, ctx, { operations: [op("second")] }).catch((e: unknown) => e);
        expect(pgErrorCode(error)).toBe("55P03"); // lock_not_available, not 25P02 (in failed transaction)
        const rows = await handle.db.select().from(memoryNodes).where(eq(memoryNodes.tenantId, t));
        expect(rows.map((r) => [r.content, r.status])).toEqual([["first", "active"]]);
      } finally {
        await holder.end();
        await impatient.end();
      }
    },
  );
});
