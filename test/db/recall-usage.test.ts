import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "~/db/raw";
import { memoryNodeUsage } from "~/db/schema";
import { getCardDetail } from "~/server/dashboard/card-detail";
import { buildUserCallContext } from "~/server/auth/permissions";
import { recordQuery } from "~/server/memory/retrieval/query-log";
import { coolRecallHotness, flushRecalls, recordRecalls } from "~/server/memory/retrieval/recall-usage";
import { memorySearch } from "~/server/memory/retrieval/search";
import { createKey, createOrg } from "../support/agents";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { callerAs } from "../support/trpc";

const card = (itemKey: string, title: string, content: string) => ({
  op: "create" as const,
  kind: "custom_fact",
  itemKey,
  explicitUserIntent: true,
  node: { title, content, valueJson: { food: itemKey } },
});

describe(`recall counts and hotness (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  let org: Awaited<ReturnType<typeof createOrg>>;
  let secret: string;
  const tools = () => callerAs(handle.db, { bearer: secret }).tools;
  const usageOf = async (cardId: string) => {
    await flushRecalls(handle.db);
    const [row] = await handle.db
      .select()
      .from(memoryNodeUsage)
      .where(and(eq(memoryNodeUsage.tenantId, org.tenantId), eq(memoryNodeUsage.nodeId, cardId)));
    return row;
  };
  const write = async (...ops: ReturnType<typeof card>[]) => {
    const written = await tools().memory_write({ operations: ops });
    expect(written, JSON.stringify(written)).toMatchObject({ done: true });
    return written.results.map((r) => r.nodeId!);
  };

  beforeAll(async () => {
    handle = await openTestDatabase();
    org = await createOrg(handle.db);
    secret = (await createKey(handle.db, { tenantId: org.tenantId, ownerUserId: org.memberId })).secret;
  });
  afterAll(async () => handle?.destroy());

  it("counts each card an agent's search, lookup or context hands over, once per call", async () => {
    const [sushi, ramen] = await write(
      card("sushi", "Loves sushi", "The user loves salmon sushi."),
      card("ramen", "Likes ramen", "The user likes miso ramen."),
    );
    for (let i = 0; i < 3; i++)
      expect((await tools().memory_search({ queryText: "salmon sushi" })).relevant.map((h) => h.id)).toContain(sushi);
    expect(await usageOf(sushi!)).toMatchObject({ recallCount: 3 });
    expect((await usageOf(sushi!))!.hotness).toBeCloseTo(0.15, 5);
    expect(await usageOf(ramen!)).toBeUndefined();

    await tools().memory_get({ id: ramen! });
    await tools().memory_get({ kind: "custom_fact", itemKey: "ramen" });
    expect(await usageOf(ramen!)).toMatchObject({ recallCount: 2 });

    const context = await tools().memory_context({
      queryText: "what sushi do I like?",
      turn: { sessionId: "chat-usage" },
    });
    expect(context.usedMemoryIds).toContain(sushi);
    expect(await usageOf(sushi!)).toMatchObject({ recallCount: 4 });
  });

  it("does not count a listing of everything, or people searching in the dashboard", async () => {
    const [tea] = await write(card("oolong", "Drinks oolong tea", "The user drinks oolong tea every morning."));
    const listed = await tools().memory_search({ all: true });
    expect(listed.enumerated).toBe(true);
    expect(listed.exact.map((h) => h.id)).toContain(tea);
    const person = await buildUserCallContext(handle.db, {
      tenantId: org.tenantId,
      userId: org.memberId,
      role: "member",
    });
    expect((await memorySearch(handle.db, person, { queryText: "oolong tea" })).relevant.map((h) => h.id)).toContain(
      tea,
    );
    expect(
      (await callerAs(handle.db, { userId: org.memberId }).memory.search({ queryText: "oolong tea" })).hits.map(
        (h) => h.id,
      ),
    ).toContain(tea);
    expect(await usageOf(tea!)).toBeUndefined();
  });

  it("ranks a hotter card above an equally matching cold one, and shows the counts on the card page", async () => {
    const [cold, hot] = await write(
      card("mango", "Mango smoothie", "The user orders a mango smoothie."),
      card("mango-lassi", "Mango smoothie", "The user orders a mango smoothie."),
    );
    await handle.db
      .insert(memoryNodeUsage)
      .values({ tenantId: org.tenantId, nodeId: hot!, recallCount: 20, lastRecalledAt: new Date(), hotness: 1 });
    const person = await buildUserCallContext(handle.db, {
      tenantId: org.tenantId,
      userId: org.memberId,
      role: "member",
    });
    const hits = (await memorySearch(handle.db, person, { queryText: "mango smoothie" })).relevant;
    const order = hits.map((h) => h.id).filter((id) => id === hot || id === cold);
    expect(order).toEqual([hot, cold]);
    expect(hits.find((h) => h.id === hot)!.score!.hotness).toBeGreaterThan(0);
    expect(hits.find((h) => h.id === cold)!.score!.hotness ?? 0).toBe(0);

    // An update starts a new revision at zero; the page still shows the chain's total.
    const updated = await tools().memory_write({
      operations: [
        {
          op: "update",
          targetId: hot!,
          expectedRevision: 1,
          explicitUserIntent: true,
          node: { content: "The user orders a mango lassi." },
        },
      ],
    });
    expect(updated, JSON.stringify(updated)).toMatchObject({ done: true });
    const next = updated.results[0]!.nodeId!;
    await tools().memory_get({ id: next });
    await flushRecalls(handle.db);
    const detail = await getCardDetail(handle.db, person, next);
    expect(detail.usage).toMatchObject({ recallCount: 1, chainRecallCount: 21 });
    expect(detail.usage.lastRecalledAt).not.toBeNull();
  });

  it("cools every recalled card by 0.95 a day and drops the faint ones to zero", async () => {
    const [warm, faint] = await write(
      card("pho", "Likes pho", "The user likes pho."),
      card("bun", "Likes bun cha", "The user likes bun cha."),
    );
    await handle.db.insert(memoryNodeUsage).values([
      { tenantId: org.tenantId, nodeId: warm!, recallCount: 10, lastRecalledAt: new Date(), hotness: 0.5 },
      { tenantId: org.tenantId, nodeId: faint!, recallCount: 1, lastRecalledAt: new Date(), hotness: 0.01 },
    ]);
    const cooled = await coolRecallHotness(handle.db, { tenantId: org.tenantId });
    expect(cooled.cards).toBeGreaterThanOrEqual(2);
    expect((await usageOf(warm!))!.hotness).toBeCloseTo(0.475, 5);
    expect((await usageOf(faint!))!.hotness).toBe(0);
    expect((await usageOf(faint!))!.recallCount).toBe(1);
  });

  it("goes with a hard-deleted card, and a recall of a card deleted meanwhile is skipped, not an error", async () => {
    const [gone, kept] = await write(
      card("durian", "Eats durian", "The user eats durian."),
      card("lychee", "Eats lychee", "The user eats lychee."),
    );
    await tools().memory_get({ id: gone! });
    expect(await usageOf(gone!)).toMatchObject({ recallCount: 1 });
    const person = await buildUserCallContext(handle.db, {
      tenantId: org.tenantId,
      userId: org.memberId,
      role: "member",
    });
    const forgotten = await callerAs(handle.db, { userId: org.memberId }).memory.forget({
      id: gone!,
      expectedRevision: 1,
      mode: "hard",
      reason: "erase it",
    });
    expect(forgotten.done).toBe(true);
    expect(await usageOf(gone!)).toBeUndefined();

    // Recalled before the delete, flushed after it: the other card still counts.
    await recordRecalls(handle.db, org.tenantId, [gone!, kept!]);
    await flushRecalls(handle.db);
    expect(await usageOf(gone!)).toBeUndefined();
    expect(await usageOf(kept!)).toMatchObject({ recallCount: 1 });
    expect(person.tenantId).toBe(org.tenantId);
  });

  it("inside a caller's transaction writes there and leaves the caller's commit synchronous", async () => {
    const [inTx] = await write(card("kimchi", "Eats kimchi", "The user eats kimchi."));
    const setting = await handle.db.transaction(async (tx) => {
      await recordRecalls(tx, org.tenantId, [inTx!]);
      await recordQuery(
        tx,
        { tenantId: org.tenantId, actor: { type: "system", id: "test" } },
        { operation: "memory_search", latencyMs: 1, resultCount: 1 },
      );
      const [row] = await queryRows<{ value: string; lock: string }>(
        tx,
        sql`select current_setting('synchronous_commit') as value, current_setting('lock_timeout') as lock`,
      );
      return row;
    });
    expect(setting).toMatchObject({ value: "on", lock: "0" });
    expect(await usageOf(inTx!)).toMatchObject({ recallCount: 1 });
  });
});
