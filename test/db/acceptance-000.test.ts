/**
 * Twelve acceptance tests of the memory model ("测试验收"): evidence, summaries, exact and default recall,
 * supersede, expiry, soft and hard forget, confirmation, atomic writes, degraded context, normalization.
 * One `it` each, through the public services.
 */
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "~/db/client";
import { queryRows } from "~/db/raw";
import { memoryAuditEvents, memoryEmbeddings, memoryNodes } from "~/db/schema";
import { newId } from "~/server/ids";
import { memoryForget } from "~/server/memory/forget/forget";
import { appendMessages } from "~/server/memory/evidence/messages";
import { listRecentMessages } from "~/server/memory/store/messages";
import { buildMemoryContext } from "~/server/memory/retrieval/memory-context";
import { memorySearch } from "~/server/memory/retrieval/search";
import { appendSummary } from "~/server/memory/evidence/summaries";
import { getLatestSummary } from "~/server/memory/store/summaries";
import { memoryWrite } from "~/server/memory/write/write";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { agentContext, createTenant } from "../support/memory";

const cilantro = {
  op: "create" as const,
  kind: "avoid_ingredient",
  itemKey: "香菜",
  explicitUserIntent: true,
  node: {
    title: "用户不吃香菜",
    content: "用户明确要求以后做饭推荐不要香菜。",
    valueJson: "香菜",
    tags: ["忌口", "菜谱推荐"],
    entities: ["香菜"],
  },
};

describe(`acceptance tests: messages, summaries, cards, forgetting, failures (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  beforeAll(async () => {
    handle = await openTestDatabase();
  });
  afterAll(async () => handle?.destroy());

  it("1. append message, then read the session's recent messages", async () => {
    const t = await createTenant(handle.db);
    await appendMessages(
      handle.db,
      { tenantId: t, actor: { type: "api_key", id: "k" } },
      {
        sessionId: "s1",
        messages: [
          { role: "user", content: "今晚吃什么？" },
          { role: "assistant", content: "番茄炒蛋如何？" },
        ],
      },
    );
    const recent = await listRecentMessages(handle.db, { tenantId: t, sessionId: "s1", limit: 8 });
    expect(recent.map((m) => [m.role, m.content])).toEqual([
      ["user", "今晚吃什么？"],
      ["assistant", "番茄炒蛋如何？"],
    ]);
  });

  it("2. append summary, then read the latest summary", async () => {
    const t = await createTenant(handle.db);
    const { messages } = await appendMessages(
      handle.db,
      { tenantId: t, actor: { type: "api_key", id: "k" } },
      {
        sessionId: "s1",
        messages: [
          { role: "user", content: "帮我规划菜谱" },
          { role: "assistant", content: "好的" },
        ],
      },
    );
    const summary = await appendSummary(
      handle.db,
      { tenantId: t, actor: { type: "system", id: null } },
      {
        sessionId: "s1",
        parentSummaryId: null,
        fromMessageId: messages[0]!.id,
        toMessageId: messages[1]!.id,
        summary: "用户在规划一周菜谱。",
        currentGoal: "规划菜谱",
      },
    );
    expect((await getLatestSummary(handle.db, { tenantId: t, sessionId: "s1" }))?.id).toBe(summary.id);
  });

  it("3. a created node is found by an active query", async () => {
    const t = await createTenant(handle.db);
    const created = await memoryWrite(handle.db, agentContext(t), { operations: [cilantro] });
    const found = await memorySearch(handle.db, agentContext(t), { kinds: ["avoid_ingredient"] });
    expect(found.exact.map((n) => n.id)).toEqual([created.results[0]!.nodeId]);
  });

  it("4. key/valueJson exact queries hit the cooking preference", async () => {
    const t = await createTenant(handle.db);
    await memoryWrite(handle.db, agentContext(t), {
      operations: [
        cilantro,
        {
          op: "create",
          kind: "flavor_profile",
          explicitUserIntent: true,
          node: {
            title: "用户偏好少油少辣",
            content: "推荐菜谱时优先少油少辣。",
            valueJson: { oil: "low", spicy: "low" },
          },
        },
      ],
    });
    const byValue = await memorySearch(handle.db, agentContext(t), { kinds: ["avoid_ingredient"], valueJson: "香菜" });
    expect(byValue.exact.map((n) => n.title)).toEqual(["用户不吃香菜"]);
    const byCategory = await memorySearch(handle.db, agentContext(t), {
      domain: "生活技能",
      categoryPathPrefix: ["生活技能", "做饭"],
      types: ["preference"],
      key: "cooking.flavor_profile",
      valueJson: { spicy: "low" },
    });
    expect(byCategory.exact.map((n) => n.title)).toEqual(["用户偏好少油少辣"]);
  });

  it("5. after supersede, the old node no longer enters the default context", async () => {
    const t = await createTenant(handle.db);
    const ctx = agentContext(t);
    const first = await memoryWrite(handle.db, ctx, {
      operations: [
        {
          op: "create",
          kind: "language_preference",
          explicitUserIntent: true,
          node: { title: "Language", content: "Answer in English.", valueJson: "en" },
        },
      ],
    });
    const second = await memoryWrite(handle.db, ctx, {
      operations: [
        {
          op: "supersede",
          targetId: first.results[0]!.nodeId!,
          expectedRevision: 1,
          explicitUserIntent: true,
          node: { title: "Language", content: "以后用中文回答。", valueJson: "zh-CN" },
        },
      ],
    });
    const context = await buildMemoryContext(handle.db, ctx, { queryText: "今晚吃什么", sessionId: "s1" });
    expect(context.usedMemoryIds).toContain(second.results[0]!.nodeId);
    expect(context.usedMemoryIds).not.toContain(first.results[0]!.nodeId);
    expect(context.prompt).toContain("以后用中文回答");
    expect(context.prompt).not.toContain("Answer in English");
  });

  it("6. after expiresAt passes, the node is no longer injected", async () => {
    const t = await createTenant(handle.db);
    const ctx = agentContext(t);
    const expiresAt = new Date(Date.now() + 60_000);
    // Read again a second after it expired: the reads take that moment, no waiting.
    const afterExpiry = { now: new Date(expiresAt.getTime() + 1000) };
    const created = await memoryWrite(handle.db, ctx, {
      operations: [
        {
          op: "create",
          kind: "hard_constraint",
          explicitUserIntent: true,
          node: {
            title: "今天少辣",
            content: "今天胃不舒服，推荐少辣。",
            valueJson: ["今天少辣"],
            expiresAt: expiresAt.toISOString(),
          },
        },
      ],
    });
    expect(created.done).toBe(true);
    expect((await buildMemoryContext(handle.db, ctx, { queryText: "今晚吃什么" })).usedMemoryIds).toContain(
      created.results[0]!.nodeId,
    );
    const later = await buildMemoryContext(handle.db, ctx, { queryText: "今晚吃什么" }, afterExpiry);
    expect(later.usedMemoryIds).not.toContain(created.results[0]!.nodeId);
    expect((await memorySearch(handle.db, ctx, { kinds: ["hard_constraint"] }, afterExpiry)).exact).toEqual([]);
  });

  it("7. after soft delete, the node is no longer retrieved", async () => {
    const t = await createTenant(handle.db);
    const ctx = agentContext(t, { forgetIntent: true });
    const created = await memoryWrite(handle.db, ctx, { operations: [cilantro] });
    await memoryForget(handle.db, ctx, {
      id: created.results[0]!.nodeId,
      expectedRevision: 1,
      reason: "忘掉我不吃香菜这件事",
    });
    const exact = await memorySearch(handle.db, ctx, { kinds: ["avoid_ingredient"] });
    const text = await memorySearch(handle.db, ctx, { queryText: "香菜" });
    expect([...exact.exact, ...text.exact, ...text.relevant]).toEqual([]);
  });

  it("8. after hard delete, the node, its search vector and its embeddings are gone", async () => {
    const t = await createTenant(handle.db);
    const ctx = agentContext(t, { forgetIntent: true });
    const created = await memoryWrite(handle.db, ctx, { operations: [cilantro] });
    const id = created.results[0]!.nodeId!;
    await handle.db.insert(memoryEmbeddings).values({
      tenantId: t,
      id: newId("emb"),
      nodeId: id,
      model: "test",
      dimensions: 2,
      embedding: [1, 0],
      contentHash: "h",
    });
    await memoryForget(handle.db, ctx, { id, expectedRevision: 1, mode: "hard", reason: "彻底删除" });
    expect(await handle.db.select().from(memoryNodes).where(eq(memoryNodes.tenantId, t))).toEqual([]);
    expect(await handle.db.select().from(memoryEmbeddings).where(eq(memoryEmbeddings.tenantId, t))).toEqual([]);
    const fts = await queryRows(
      handle.db,
      sql`select id from memory_nodes where tenant_id = ${t} and search_vector @@ to_tsquery('simple', '香菜')`,
    );
    expect(fts).toEqual([]);
  });

  it("9. a forget that matches several candidates returns requiresConfirmation", async () => {
    const t = await createTenant(handle.db);
    const ctx = agentContext(t, { forgetIntent: true });
    await memoryWrite(handle.db, ctx, {
      operations: [
        cilantro,
        {
          ...cilantro,
          itemKey: "葱",
          node: { ...cilantro.node, title: "用户不吃葱", content: "不要放葱。", valueJson: "葱", entities: ["葱"] },
        },
      ],
    });
    const result = await memoryForget(handle.db, ctx, {
      selector: { kind: "avoid_ingredient" },
      reason: "删除我的忌口",
    });
    expect(result).toMatchObject({ requiresConfirmation: true, done: false, deletedIds: [] });
  });

  it("10. a failed transaction leaves no half-written state", async () => {
    const t = await createTenant(handle.db);
    await handle.db.execute(
      sql.raw(
        `create or replace function fail_on_boom() returns trigger language plpgsql as $$ begin if new.title = 'boom' then raise exception 'injected'; end if; return new; end $$`,
      ),
    );
    await handle.db.execute(
      sql.raw(`create trigger boom_${t} before insert on memory_nodes for each row execute function fail_on_boom()`),
    );
    try {
      await memoryWrite(handle.db, agentContext(t), {
        operations: [
          cilantro,
          { ...cilantro, itemKey: "葱", node: { ...cilantro.node, title: "boom", valueJson: "葱" } },
        ],
      }).catch(() => undefined);
      expect(await handle.db.select().from(memoryNodes).where(eq(memoryNodes.tenantId, t))).toEqual([]);
      expect(await handle.db.select().from(memoryAuditEvents).where(eq(memoryAuditEvents.tenantId, t))).toEqual([]);
    } finally {
      await handle.db.execute(sql.raw(`drop trigger boom_${t} on memory_nodes`));
    }
  });

  it("11. when the memory store fails, the agent's context degrades instead of throwing", async () => {
    const broken = await openDatabase({ dataDir: null });
    await broken.close();
    const context = await buildMemoryContext(broken.db, agentContext("ten_missing"), {
      queryText: "今晚吃什么",
      sessionId: "s1",
    });
    expect(context.diagnostics).toMatchObject({ enabled: false, storeStatus: "disabled" });
    expect(context.diagnostics.warnings[0]).toMatch(/unavailable/);
    expect(context.prompt).toBe("");
  });

  it("12. schema normalization maps synonym keys and values to the controlled key", async () => {
    const t = await createTenant(handle.db);
    const result = await memoryWrite(handle.db, agentContext(t), {
      operations: [{ ...cilantro, kind: "disliked_ingredient" }],
    });
    expect(result.results[0]!.key).toBe("cooking.avoid_ingredient:香菜");
    const flavor = await memoryWrite(handle.db, agentContext(t), {
      operations: [
        {
          op: "create",
          kind: "flavor_profile",
          explicitUserIntent: true,
          node: { title: "口味", content: "少辣", valueJson: "少辣" },
        },
      ],
    });
    const [row] = await handle.db.select().from(memoryNodes).where(eq(memoryNodes.id, flavor.results[0]!.nodeId!));
    expect(row?.valueJson).toEqual({ spicy: "low" });
  });
});
