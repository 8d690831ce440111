import http from "node:http";
import type { AddressInfo } from "node:net";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryAuditEvents, memoryMessages, memoryNodes } from "~/db/schema";
import { appendMessages } from "~/server/memory/evidence/messages";
import { parseScopePattern } from "~/server/memory/scope";
import { getLatestSummary } from "~/server/memory/store/summaries";
import { createLlmClient } from "~/server/providers/llm";
import { extractFromSession, treeJobHandlers } from "~/server/tree/jobs";
import { registerAccount } from "~/server/auth/accounts";
import { drainJobs } from "../support/jobs";
import { callerAs } from "../support/trpc";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { createKey, createOrg } from "../support/agents";
import { agentContext } from "../support/memory";

/** A member's agent key capturing the member's conversations (profile and any session writable). */
async function capturingAgent(db: TestDatabase["db"]) {
  const org = await createOrg(db);
  const { apiKey } = await createKey(db, { tenantId: org.tenantId, ownerUserId: org.memberId });
  const ctx = agentContext(org.tenantId, {
    actor: { type: "api_key", id: apiKey.id },
    readScopes: [`user:${org.memberId}`, "session:*"].map(parseScopePattern),
    writeScopes: [`user:${org.memberId}`, "session:*"].map(parseScopePattern),
    defaults: { user: { type: "user", id: org.memberId }, session: { type: "session", id: "trip" } },
  });
  return { t: org.tenantId, u: org.memberId, ctx };
}

const trip = (n: number) => `我们在做北京的旅行计划，预算5万，第${n}天去故宫和长城。`;

describe(`memory that forms by itself (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  beforeAll(async () => {
    handle = await openTestDatabase();
  });
  afterAll(async () => handle?.destroy());

  it("keeps the budget card at revision 1 while 14 turns repeat it, and audits each restatement as a noop", async () => {
    const { t, u, ctx } = await capturingAgent(handle.db);
    // Half the turns are extracted one by one (a job per turn), the rest in one run.
    for (let n = 1; n <= 7; n++) {
      await appendMessages(handle.db, ctx, {
        sessionId: "trip",
        userScopeId: u,
        messages: [{ role: "user", content: trip(n) }],
      });
      await drainJobs(handle.db);
    }
    await appendMessages(handle.db, ctx, {
      sessionId: "trip",
      userScopeId: u,
      messages: Array.from({ length: 7 }, (_, i) => ({ role: "user" as const, content: trip(i + 8) })),
    });
    await drainJobs(handle.db);
    const budget = await handle.db
      .select()
      .from(memoryNodes)
      .where(and(eq(memoryNodes.tenantId, t), eq(memoryNodes.itemKey, "budget")));
    expect(budget.map((card) => [card.revision, card.status, card.valueJson])).toEqual([[1, "active", "5万"]]);
    const noops = await handle.db
      .select()
      .from(memoryAuditEvents)
      .where(
        and(
          eq(memoryAuditEvents.tenantId, t),
          eq(memoryAuditEvents.nodeId, budget[0]!.id),
          eq(memoryAuditEvents.eventType, "noop"),
        ),
      );
    expect(noops).toHaveLength(13);
    // The goal and the destination became cards too, inferred (session scope), each at revision 1.
    const cards = await handle.db
      .select()
      .from(memoryNodes)
      .where(and(eq(memoryNodes.tenantId, t), eq(memoryNodes.status, "active")));
    const goal = cards.find((card) => card.kind === "long_term_goal");
    expect(goal).toMatchObject({
      valueJson: "北京的旅行计划",
      revision: 1,
      scopeType: "session",
      explicitUserIntent: false,
    });
    expect(cards.find((card) => card.itemKey === "trip_北京")).toMatchObject({ valueJson: "北京", revision: 1 });
    // Each card cites the turn it came from: the first one that said it.
    const [firstTurn] = await handle.db
      .select()
      .from(memoryMessages)
      .where(
        and(
          eq(memoryMessages.tenantId, t),
          eq(
            memoryMessages.seq,
            Math.min(
              ...(
                await handle.db
                  .select({ seq: memoryMessages.seq })
                  .from(memoryMessages)
                  .where(eq(memoryMessages.tenantId, t))
              ).map((m) => m.seq),
            ),
          ),
        ),
      );
    expect(goal!.sourceMessageIds).toEqual([firstTurn!.id]);
    // The summary states the goal and the budget, in its fields and in its text, once each.
    const summary = await getLatestSummary(handle.db, { tenantId: t, sessionId: "trip" });
    expect(summary).toMatchObject({ currentGoal: "北京的旅行计划", generator: "rules" });
    expect(summary!.constraints).toContain("预算 5万");
    expect(summary!.summary).toContain("目标：北京的旅行计划");
    expect(summary!.summary.split("预算 5万")).toHaveLength(2);
  });

  it("supersedes a card when the user corrects it, in Chinese and English, and says so in the audit", async () => {
    const { t, u, ctx } = await capturingAgent(handle.db);
    const say = async (content: string) => {
      await appendMessages(handle.db, ctx, {
        sessionId: "trip",
        userScopeId: u,
        messages: [{ role: "user", content }],
      });
      await drainJobs(handle.db);
    };
    await say("我住在北京，平时上班很忙。");
    await say("其实我住的不是北京，而是深圳。");
    const homes = await handle.db
      .select()
      .from(memoryNodes)
      .where(and(eq(memoryNodes.tenantId, t), eq(memoryNodes.kind, "home_location")));
    expect(homes.map((card) => [card.revision, card.status, card.valueJson]).sort()).toEqual([
      [1, "superseded", { city: "北京" }],
      [2, "active", { city: "深圳" }],
    ]);
    const [audit] = await handle.db
      .select()
      .from(memoryAuditEvents)
      .where(and(eq(memoryAuditEvents.tenantId, t), eq(memoryAuditEvents.eventType, "supersede")));
    expect(audit?.reason).toBe("user corrected an earlier statement");
    await say("I really love jazz concerts.");
    await say("I don't like jazz concerts anymore.");
    const tastes = await handle.db
      .select()
      .from(memoryNodes)
      .where(and(eq(memoryNodes.tenantId, t), eq(memoryNodes.kind, "custom_fact")));
    expect(tastes.filter((card) => card.status === "active").map((card) => card.itemKey)).toEqual([
      "dislikes_jazz_concerts",
    ]);
    expect(tastes.find((card) => card.itemKey === "likes_jazz_concerts")?.status).toBe("superseded");
  });

  it("marks an extracted card explicit only when the user asked to remember it", async () => {
    const { t, u, ctx } = await capturingAgent(handle.db);
    await appendMessages(handle.db, ctx, {
      sessionId: "trip",
      userScopeId: u,
      messages: [
        { role: "user", content: "Remember: my wife Anna is allergic to cats." },
        { role: "user", content: "My brother Tom lives nearby." },
      ],
    });
    await drainJobs(handle.db);
    const people = await handle.db
      .select()
      .from(memoryNodes)
      .where(and(eq(memoryNodes.tenantId, t), eq(memoryNodes.kind, "personal_relationship")));
    expect(people.map((card) => [card.itemKey, card.explicitUserIntent, card.scopeType]).sort()).toEqual([
      ["anna", true, "user"],
      ["tom", false, "session"],
    ]);
  });

  it("falls back to the rules when the model times out: the summary's fields and the cards still form", async () => {
    // A local chat endpoint that never answers (no network, no real model).
    const hanging: http.ServerResponse[] = [];
    const server = http.createServer((_req, res) => void hanging.push(res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const llm = createLlmClient({
        baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
        model: "stand-in",
        apiKey: "test",
        timeoutMs: 150,
      });
      const { t, u, ctx } = await capturingAgent(handle.db);
      await appendMessages(handle.db, ctx, {
        sessionId: "trip",
        userScopeId: u,
        messages: Array.from({ length: 10 }, (_, i) => ({ role: "user" as const, content: trip(i + 1) })),
      });
      await drainJobs(handle.db, treeJobHandlers(llm));
      expect(hanging.length).toBeGreaterThan(0);
      const summary = await getLatestSummary(handle.db, { tenantId: t, sessionId: "trip" });
      expect(summary).toMatchObject({ generator: "rules", currentGoal: "北京的旅行计划" });
      expect(summary!.constraints).toContain("预算 5万");
      const budget = await handle.db
        .select()
        .from(memoryNodes)
        .where(and(eq(memoryNodes.tenantId, t), eq(memoryNodes.itemKey, "budget")));
      expect(budget.map((card) => [card.revision, card.status])).toEqual([[1, "active"]]);
    } finally {
      for (const res of hanging) res.destroy();
      server.close();
    }
  });

  it("lets a person review extracted cards: accept makes one explicit, reject forgets it with the reason, both audited", async () => {
    const account = await registerAccount(handle.db, {
      email: `reviewer-${Date.now()}@example.com`,
      password: "correct horse battery",
      name: "Rae",
      openSignup: true,
    });
    const t = account.tenantId;
    const by = { tenantId: t, actor: { type: "user" as const, id: account.user.id } };
    const turn = await appendMessages(handle.db, by, {
      sessionId: "review",
      userScopeId: account.user.id,
      messages: [{ role: "user", content: "My brother Tom lives nearby. I really love jazz concerts." }],
    });
    await drainJobs(handle.db);
    const api = callerAs(handle.db, { userId: account.user.id });
    const before = await api.memory.session({ sessionId: "review" });
    const pending = before.cards.filter((c) => c.extracted && !c.explicit && c.status === "active");
    expect(pending.map((c) => c.kind).sort()).toEqual(["custom_fact", "personal_relationship"]);
    expect(pending.every((c) => c.sourceMessageIds.includes(turn.messages[0]!.id))).toBe(true);
    expect(before.messages[0]!.savedAs.every((card) => card.extracted)).toBe(true);
    const brother = pending.find((c) => c.kind === "personal_relationship")!;
    const jazz = pending.find((c) => c.kind === "custom_fact")!;

    const accepted = await api.memory.write({
      operations: [
        {
          op: "update",
          targetId: brother.id,
          expectedRevision: brother.revision,
          node: {},
          reason: "accepted in review",
        },
      ],
    });
    expect(accepted.results[0]).toMatchObject({ status: "updated", revision: 2 });
    const rejected = await api.memory.forget({
      id: jazz.id,
      expectedRevision: jazz.revision,
      mode: "soft",
      reason: "not true any more",
    });
    expect(rejected.done).toBe(true);

    const after = await api.memory.session({ sessionId: "review" });
    const brotherNow = after.cards.find((c) => c.id === accepted.results[0]!.nodeId)!;
    expect(brotherNow).toMatchObject({ explicit: true, extracted: false, status: "active", revision: 2 });
    expect(after.cards.find((c) => c.id === jazz.id)?.status).toBe("deleted");
    const audits = await handle.db.select().from(memoryAuditEvents).where(eq(memoryAuditEvents.tenantId, t));
    expect(audits.find((a) => a.nodeId === brotherNow.id)).toMatchObject({
      eventType: "update",
      reason: "accepted in review",
    });
    expect(audits.find((a) => a.nodeId === jazz.id && a.reason === "not true any more")).toBeDefined();
  });

  it("caps what one session's chit-chat turns into cards per hour", async () => {
    const { t, u, ctx } = await capturingAgent(handle.db);
    const start = Date.parse("2026-05-01T10:00:00Z");
    const say = (minutes: number, content: string) => ({
      role: "user" as const,
      content,
      createdAt: new Date(start + minutes * 60_000),
    });
    const hobbies = ["hiking", "chess", "pottery", "jazz", "surfing", "baking"];
    // Six new likes within the first hour, then two more an hour and a half later.
    await appendMessages(handle.db, ctx, {
      sessionId: "chatty",
      userScopeId: u,
      messages: [
        ...hobbies.map((h, i) => say(i * 5, `I really love ${h}.`)),
        say(95, "I really love painting."),
        say(100, "I really love cycling."),
      ],
    });
    const run = await extractFromSession(handle.db, {
      tenantId: t,
      sessionId: "chatty",
      llm: null,
      maxCardsPerHour: 4,
    });
    expect(run).toMatchObject({ written: 6, capped: 2 });
    const cards = await handle.db
      .select()
      .from(memoryNodes)
      .where(and(eq(memoryNodes.tenantId, t), eq(memoryNodes.status, "active")));
    expect(cards.map((c) => c.itemKey).sort()).toEqual([
      "likes_chess",
      "likes_cycling",
      "likes_hiking",
      "likes_jazz",
      "likes_painting",
      "likes_pottery",
    ]);
  });

  it("still supersedes the budget when a later turn changes its value", async () => {
    const { t, u, ctx } = await capturingAgent(handle.db);
    await appendMessages(handle.db, ctx, {
      sessionId: "trip",
      userScopeId: u,
      messages: [{ role: "user", content: trip(1) }],
    });
    await drainJobs(handle.db);
    await appendMessages(handle.db, ctx, {
      sessionId: "trip",
      userScopeId: u,
      messages: [{ role: "user", content: "预算改成8万吧。" }],
    });
    await drainJobs(handle.db);
    const budget = await handle.db
      .select()
      .from(memoryNodes)
      .where(and(eq(memoryNodes.tenantId, t), eq(memoryNodes.itemKey, "budget")));
    expect(budget.map((card) => [card.revision, card.status, card.valueJson]).sort()).toEqual([
      [1, "superseded", "5万"],
      [2, "active", "8万"],
    ]);
  });
});
