import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "~/db/raw";
import type { MemoryCallContext } from "~/server/memory/call-context";
import { appendMessages } from "~/server/memory/evidence/messages";
import { parseScopePattern } from "~/server/memory/scope";
import { queryTerms } from "~/server/memory/retrieval/query-terms";
import { rankingFeaturesWithout } from "~/server/memory/retrieval/ranking-features";
import { memorySearch } from "~/server/memory/retrieval/search";
import { fullTextMatch } from "~/server/memory/retrieval/signals";
import { MESSAGE_SOURCE } from "~/server/memory/retrieval/text-sources";
import { withTranslationsInScope } from "~/server/memory/retrieval/translation-presence";
import { sql } from "drizzle-orm";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { agentContext, createOp, createTenant, noVectors, writeCards } from "../support/memory";

/** The CC-CEDICT bridge end to end: a question in one language finds what was said in the other. */
describe(`cross-language search (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  beforeAll(async () => {
    handle = await openTestDatabase();
  });
  afterAll(async () => handle?.destroy());

  const search = (ctx: MemoryCallContext, input: Record<string, unknown>) =>
    memorySearch(handle.db, ctx, input, noVectors);
  const diary = async (ctx: MemoryCallContext, sessionId: string, lines: string[]) =>
    appendMessages(handle.db, ctx, {
      sessionId,
      userScopeId: "u1",
      messages: lines.map((content) => ({ role: "user" as const, content })),
    });

  it("answers a Chinese question from English messages and an English one from Chinese messages", async () => {
    const ctx = agentContext(await createTenant(handle.db));
    await diary(ctx, "en", [
      "We walked along the river this morning.",
      "My cousin is allergic to peanuts, so no satay at the party.",
      "The printer on the second floor jams again.",
    ]);
    await diary(ctx, "zh", ["今天下雨了，没出门。", "我女儿周末要去学跳舞。", "晚饭吃了饺子。"]);
    const zh = await search(ctx, { queryText: "谁对花生过敏？", includeEvidence: true });
    expect(zh.evidence?.[0]?.content).toMatch(/allergic to peanuts/);
    const en = await search(ctx, { queryText: "What is my daughter learning at the weekend?", includeEvidence: true });
    expect(en.evidence?.[0]?.content).toBe("我女儿周末要去学跳舞。");
    // Without the bridge neither question has a word in common with its answer.
    const off = rankingFeaturesWithout(["crossLanguage"]);
    const plain = await memorySearch(
      handle.db,
      ctx,
      { queryText: "谁对花生过敏？", includeEvidence: true },
      {
        ...noVectors,
        ranking: off,
      },
    );
    expect(plain.evidence?.some((e) => /peanuts/.test(e.content))).toBe(false);
  });

  it("keeps a translated word only where the caller's scope holds it, never by another tenant's text", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId);
    await diary(ctx, "zh-only", ["我的狗叫旺财。", "周末带狗去公园。"]);
    // Another tenant's English text holds the translations; it must not count for this one.
    const other = agentContext(await createTenant(handle.db));
    await diary(other, "en-other", ["My dog chases every ball in the park."]);
    const where = sql`memory_messages.tenant_id = ${tenantId}`;
    const terms = queryTerms("我的狗在公园");
    expect(terms.some((t) => t.translated && t.term === "dog")).toBe(true);
    const now = Date.now();
    const probe = (at: number) =>
      withTranslationsInScope(handle.db, { source: MESSAGE_SOURCE, where, terms, scopeKey: tenantId, now: at });
    const kept = await probe(now);
    expect(kept.filter((t) => t.translated)).toEqual([]);
    expect(kept.filter((t) => !t.translated)).toEqual(terms.filter((t) => !t.translated));
    // English written now: a word not found is looked for again after 15 seconds, not two minutes.
    await diary(ctx, "en-now", ["The dog sleeps all afternoon."]);
    expect((await probe(now + 1_000)).filter((t) => t.translated)).toEqual([]);
    const later = await probe(now + 16_000);
    expect(later.filter((t) => t.translated).map((t) => t.term)).toEqual(["dog"]);
  });

  it("searches the caller's readable scopes only, with translations as with its own words", async () => {
    const tenantId = await createTenant(handle.db);
    const writer = agentContext(tenantId);
    await appendMessages(handle.db, writer, {
      sessionId: "mine",
      userScopeId: "u1",
      messages: [{ role: "user", content: "My sister works as a nurse in Lyon." }],
    });
    await appendMessages(handle.db, writer, {
      sessionId: "theirs",
      userScopeId: "u2",
      messages: [{ role: "user", content: "Secret: my sister works as a nurse in Oslo." }],
    });
    const reader = agentContext(tenantId, { readScopes: ["user:u1", "session:mine"].map(parseScopePattern) });
    const result = await search(reader, { queryText: "我姐姐做什么工作？", includeEvidence: true });
    expect(result.evidence?.[0]?.content).toMatch(/Lyon/);
    expect(result.evidence?.some((e) => e.content.startsWith("Secret"))).toBe(false);
  });

  it("leaves translations out where the question's own words occur, however few rows they find", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId);
    // A memory kept in both languages: every fact has its twin.
    await diary(ctx, "zh", ["我的狗叫旺财。", "周末带狗去公园。"]);
    await diary(ctx, "en", ["My dog is called Wangcai.", "At the weekend I take the dog to the park."]);
    const where = sql`memory_messages.tenant_id = ${tenantId}`;
    const match = (text: string, minimum: number) =>
      fullTextMatch(handle.db, {
        source: MESSAGE_SOURCE,
        where,
        terms: queryTerms(text),
        limit: 10,
        minimum,
        statsKey: tenantId,
      });
    for (const minimum of [1, 10]) {
      const zh = await match("我的狗在公园", minimum);
      expect(zh.terms.some((t) => t.translated)).toBe(false);
      expect(zh.hits).toHaveLength(2);
      const en = await match("my dog in the park", minimum);
      expect(en.terms.some((t) => t.translated)).toBe(false);
      expect(en.hits).toHaveLength(2);
    }
    // Words this memory does not hold in the question's language: its translations search.
    const other = await match("我的狗在哪里睡觉", 10);
    expect(other.terms.filter((t) => t.translated).length).toBeGreaterThan(0);
  });

  it("flags translations by id on the rows the own words found, as a match of them would", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId);
    // "live" finds the English rows; a sister is spoken of in Chinese only (one row holds both languages).
    await diary(ctx, "en", ["I live near the river.", "We live on the fifth floor.", "They live in Berlin now."]);
    await diary(ctx, "zh", ["我的姐妹住在广州。", "We live together now, 我和姐妹住在一起。"]);
    const where = sql`memory_messages.tenant_id = ${tenantId}`;
    const terms = queryTerms("Where does my sister live?");
    const match = (minimum: number) =>
      fullTextMatch(handle.db, { source: MESSAGE_SOURCE, where, terms, limit: 10, minimum, statsKey: tenantId });
    // Enough rows found by the own words: they are kept, and flagged for the translations the scope holds.
    const enough = await match(3);
    expect(enough.terms.filter((t) => t.translated).map((t) => t.term)).toEqual(["姐妹", "住"]);
    expect(enough.hits).toHaveLength(4);
    const contentOf = async (id: string) =>
      (
        await queryRows<{ content: string }>(
          handle.db,
          sql`select content from memory_messages where tenant_id = ${tenantId} and id = ${id}`,
        )
      )[0]?.content;
    const flaggedOn = (id: string) => {
      const doc = enough.docs.find((d) => d.id === id)!;
      return enough.terms.filter((_, i) => doc.tf[i]! > 0).map((t) => t.term);
    };
    // The row holding both languages comes first, flagged for exactly the terms it holds; the English
    // rows for "live" alone.
    expect(enough.hits[0]!.score).toBeGreaterThan(enough.hits[1]!.score);
    expect(await contentOf(enough.hits[0]!.id)).toBe("We live together now, 我和姐妹住在一起。");
    expect(flaggedOn(enough.hits[0]!.id)).toEqual(["live", "姐妹", "住"]);
    for (const hit of enough.hits.slice(1)) expect(flaggedOn(hit.id)).toEqual(["live"]);
    // Too few: every term the scope holds selects, and the Chinese-only line is found as well.
    const few = await match(10);
    expect(few.hits).toHaveLength(5);
  });

  it("ranks by translations the rows a name found when the question's own words are not in the scope", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId);
    await diary(ctx, "en", [
      "Wangcai barks at night.",
      "Wangcai chases the ball in the park.",
      "Wangcai sleeps all day.",
    ]);
    const where = sql`memory_messages.tenant_id = ${tenantId}`;
    const match = await fullTextMatch(handle.db, {
      source: MESSAGE_SOURCE,
      where,
      terms: queryTerms("Wangcai 在公园里追什么"),
      limit: 10,
      minimum: 2,
      statsKey: tenantId,
    });
    expect(match.terms.filter((t) => t.translated).map((t) => t.term)).toContain("park");
    expect(match.hits).toHaveLength(3);
    const [best, next] = match.hits;
    expect(best!.score).toBeGreaterThan(next!.score);
    const messages = await search(ctx, { queryText: "Wangcai 在公园里追什么", includeEvidence: true });
    expect(messages.evidence?.[0]?.content).toBe("Wangcai chases the ball in the park.");
  });

  it("ranks by translations the cards a name found, each card's classes flagged by id", async () => {
    const ctx = agentContext(await createTenant(handle.db));
    const fact = (i: number, content: string) =>
      createOp("custom_fact", { title: `Mia ${i}`, content }, { itemKey: `mia_${i}` });
    // Twelve cards name Mia: more than the match needs, so the name's rows are the candidates.
    const others = [
      "在学钢琴",
      "周末去公园",
      "不喜欢下雨天",
      "有一只猫",
      "住在上海",
      "会说法语",
      "在读小学",
      "怕打雷",
      "生日在五月",
      "喜欢画画",
      "有个哥哥",
    ];
    await writeCards(
      handle.db,
      ctx,
      ...others.map((text, i) => fact(i, `Mia${text}。`)),
      fact(99, "Mia最喜欢吃饺子。"),
    );
    const question = { queryText: "What food does Mia like to eat?", limit: 5 };
    const found = await search(ctx, question);
    expect(found.relevant[0]?.content).toBe("Mia最喜欢吃饺子。");
    // The English words are in none of them: without the bridge only the name matches.
    const off = await memorySearch(handle.db, ctx, question, {
      ...noVectors,
      ranking: rankingFeaturesWithout(["crossLanguage"]),
    });
    expect(off.relevant[0]?.content).not.toBe("Mia最喜欢吃饺子。");
  });
});
