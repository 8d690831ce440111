import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memorySummaries, tenants } from "~/db/schema";
import type { Actor } from "~/server/memory/call-context";
import { appendMessages } from "~/server/memory/evidence/messages";
import { pgErrorCode } from "~/db/pg-errors";
import { appendSummary, getSummaryChain } from "~/server/memory/evidence/summaries";
import { getLatestSummary } from "~/server/memory/store/summaries";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";

const system: Actor = { type: "system", id: null };
const tenantA = "ten_summaries_a";
const tenantB = "ten_summaries_b";
const ctxA = { tenantId: tenantA, actor: system };
const ctxB = { tenantId: tenantB, actor: system };

describe(`chained summaries (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  let ids: string[];

  beforeAll(async () => {
    handle = await openTestDatabase();
    await handle.db.insert(tenants).values([
      { id: tenantA, name: "A", slug: "summaries-a" },
      { id: tenantB, name: "B", slug: "summaries-b" },
    ]);
    const appended = await appendMessages(handle.db, ctxA, {
      sessionId: "s1",
      messages: Array.from({ length: 9 }, (_, i) => ({
        role: i % 2 ? ("assistant" as const) : ("user" as const),
        content: `turn ${i}`,
      })),
    });
    ids = appended.messages.map((m) => m.id);
  });
  afterAll(async () => handle?.destroy());

  const range = (from: number, to: number) => ({ fromMessageId: ids[from]!, toMessageId: ids[to]! });

  it("appends a chain, reports the latest and walks it newest to oldest", async () => {
    expect(await getLatestSummary(handle.db, { tenantId: tenantA, sessionId: "s1" })).toBeUndefined();
    expect(await getSummaryChain(handle.db, { tenantId: tenantA, sessionId: "s1" })).toEqual([]);

    const first = await appendSummary(handle.db, ctxA, {
      sessionId: "s1",
      parentSummaryId: null,
      ...range(0, 3),
      summary: "User wants recipes without coriander.",
      currentGoal: "plan dinner",
      preferences: ["no coriander", "  "],
      pendingWork: ["pick a dish"],
    });
    expect(first).toMatchObject({
      parentSummaryId: null,
      messageCount: 4,
      generator: "rules",
      preferences: ["no coriander"],
      constraints: [],
    });
    const second = await appendSummary(handle.db, ctxA, {
      sessionId: "s1",
      parentSummaryId: first.id,
      ...range(4, 6),
      summary: "Picked tomato eggs.",
    });
    const third = await appendSummary(handle.db, ctxA, {
      sessionId: "s1",
      parentSummaryId: second.id,
      ...range(7, 8),
      summary: "Cooked it.",
      completedWork: ["dinner"],
      generator: "gpt-test",
    });
    expect(second.messageCount).toBe(3);
    expect(third.messageCount).toBe(2);

    expect((await getLatestSummary(handle.db, { tenantId: tenantA, sessionId: "s1" }))?.id).toBe(third.id);
    const chain = await getSummaryChain(handle.db, { tenantId: tenantA, sessionId: "s1" });
    expect(chain.map((s) => s.id)).toEqual([third.id, second.id, first.id]);
    expect(chain[0]).toMatchObject({ completedWork: ["dinner"], generator: "gpt-test" });
    const limited = await getSummaryChain(handle.db, { tenantId: tenantA, sessionId: "s1", limit: 2 });
    expect(limited.map((s) => s.id)).toEqual([third.id, second.id]);
  });

  it("refuses a stale or missing parent with summary_chain_moved and the current latest id", async () => {
    const latest = await getLatestSummary(handle.db, { tenantId: tenantA, sessionId: "s1" });
    const chain = await getSummaryChain(handle.db, { tenantId: tenantA, sessionId: "s1" });
    const stale = chain.at(-1)!.id;
    await expect(
      appendSummary(handle.db, ctxA, { sessionId: "s1", parentSummaryId: stale, ...range(7, 8), summary: "late" }),
    ).rejects.toMatchObject({
      code: "CONFLICT",
      reason: "summary_chain_moved",
      details: { latestSummaryId: latest!.id },
    });
    await expect(
      appendSummary(handle.db, ctxA, {
        sessionId: "s1",
        parentSummaryId: null,
        ...range(0, 1),
        summary: "second root",
      }),
    ).rejects.toMatchObject({
      reason: "summary_chain_moved",
    });
    expect(await getSummaryChain(handle.db, { tenantId: tenantA, sessionId: "s1" })).toHaveLength(3);
  });

  it("makes a fork impossible even for a writer that bypasses the service", async () => {
    const chain = await getSummaryChain(handle.db, { tenantId: tenantA, sessionId: "s1" });
    const parent = chain.at(-1)!; // already has a child
    const error = await handle.db
      .insert(memorySummaries)
      .values({
        tenantId: tenantA,
        id: "sum_fork",
        sessionId: "s1",
        parentSummaryId: parent.id,
        fromMessageId: ids[0]!,
        toMessageId: ids[1]!,
        summary: "fork",
      })
      .then(() => null)
      .catch((e: unknown) => e);
    expect(pgErrorCode(error)).toBe("23505");
  });

  it("lets only one of two racing writers extend the chain", async () => {
    const latest = await getLatestSummary(handle.db, { tenantId: tenantA, sessionId: "s1" });
    const attempt = (summary: string) =>
      appendSummary(handle.db, ctxA, { sessionId: "s1", parentSummaryId: latest!.id, ...range(8, 8), summary });
    const results = await Promise.allSettled([attempt("racer one"), attempt("racer two")]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const failed = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(failed.reason).toMatchObject({ code: "CONFLICT", reason: "summary_chain_moved" });
    expect(await getSummaryChain(handle.db, { tenantId: tenantA, sessionId: "s1" })).toHaveLength(4);
  });

  it("requires from/to messages of the same session, in order", async () => {
    const other = await appendMessages(handle.db, ctxA, {
      sessionId: "s2",
      messages: [{ role: "user", content: "other session" }],
    });
    const latest = await getLatestSummary(handle.db, { tenantId: tenantA, sessionId: "s1" });
    await expect(
      appendSummary(handle.db, ctxA, {
        sessionId: "s1",
        parentSummaryId: latest!.id,
        fromMessageId: other.messages[0]!.id,
        toMessageId: ids[8]!,
        summary: "x",
      }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST", reason: "message_not_in_session" });
    await expect(
      appendSummary(handle.db, ctxA, { sessionId: "s1", parentSummaryId: latest!.id, ...range(5, 2), summary: "x" }),
    ).rejects.toMatchObject({
      reason: "invalid_message_range",
    });
    await expect(
      appendSummary(handle.db, ctxA, { sessionId: "s1", parentSummaryId: latest!.id, ...range(0, 1), summary: " " }),
    ).rejects.toMatchObject({
      reason: "invalid_summary",
    });
  });

  it("keeps each tenant's chains to itself", async () => {
    expect(await getLatestSummary(handle.db, { tenantId: tenantB, sessionId: "s1" })).toBeUndefined();
    expect(await getSummaryChain(handle.db, { tenantId: tenantB, sessionId: "s1" })).toEqual([]);
    // Tenant B cannot summarise A's messages, and its own chain of a same-named session is independent.
    await expect(
      appendSummary(handle.db, ctxB, { sessionId: "s1", parentSummaryId: null, ...range(0, 1), summary: "peek" }),
    ).rejects.toMatchObject({
      reason: "message_not_in_session",
    });
    const own = await appendMessages(handle.db, ctxB, {
      sessionId: "s1",
      messages: [{ role: "user", content: "B's turn" }],
    });
    const rootB = await appendSummary(handle.db, ctxB, {
      sessionId: "s1",
      parentSummaryId: null,
      fromMessageId: own.messages[0]!.id,
      toMessageId: own.messages[0]!.id,
      summary: "B's summary",
    });
    expect(rootB.messageCount).toBe(1);
    expect((await getSummaryChain(handle.db, { tenantId: tenantB, sessionId: "s1" })).map((s) => s.id)).toEqual([
      rootB.id,
    ]);
    expect(await getSummaryChain(handle.db, { tenantId: tenantA, sessionId: "s1" })).toHaveLength(4);
  });
});
