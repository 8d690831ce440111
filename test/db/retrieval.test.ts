import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "~/db/raw";
import { memoryChunks, memoryMessages, memoryQueryLog } from "~/db/schema";
import { ServiceError } from "~/server/errors";
import type { MemoryCallContext } from "~/server/memory/call-context";
import { memoryForget } from "~/server/memory/forget/forget";
import { appendMessages } from "~/server/memory/evidence/messages";
import { parseScopePattern } from "~/server/memory/scope";
import { loadKindRegistry } from "~/server/memory/kinds/custom";
import { cardWhere } from "~/server/memory/retrieval/card-search";
import { REPLY_SHARE } from "~/server/memory/retrieval/context-spread";
import { BELOW_LENDER } from "~/server/memory/retrieval/lending";
import { queryTerms } from "~/server/memory/retrieval/query-terms";
import { rankingFeaturesWithout, type RankingFeature } from "~/server/memory/retrieval/ranking-features";
import { flushQueryLog, recordQuery } from "~/server/memory/retrieval/query-log";
import { memorySearch } from "~/server/memory/retrieval/search";
import { disjointScopes } from "~/server/memory/retrieval/read-scopes";
import { fullTextHits, fullTextMatch, scopeStats } from "~/server/memory/retrieval/signals";
import { CARD_SOURCE, MESSAGE_SOURCE } from "~/server/memory/retrieval/text-sources";
import { termShare, termShares } from "~/server/memory/retrieval/term-shares";
import { memoryWrite } from "~/server/memory/write/write";
import { reindexSearchText } from "~/server/memory/store/reindex-search-text";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { steppingClock } from "../support/clock";
import {
  agentContext,
  appendLog,
  createOp as create,
  createTenant,
  importedChunk,
  noVectors,
  type Op,
  writeCards,
  writeCardsAt,
} from "../support/memory";

describe(`memory_search (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  beforeAll(async () => {
    handle = await openTestDatabase();
  });
  afterAll(async () => handle?.destroy());

  const write = (ctx: MemoryCallContext, ...operations: Op[]) => writeCards(handle.db, ctx, ...operations);
  const writeAt = (now: Date, ctx: MemoryCallContext, ...operations: Op[]) =>
    writeCardsAt(handle.db, ctx, now, ...operations);
  const search = (ctx: MemoryCallContext, input: Record<string, unknown>) =>
    memorySearch(handle.db, ctx, input, noVectors);
  type Found = Awaited<ReturnType<typeof search>>;
  /** The score components of the evidence line `content` (undefined when it was not found). */
  const partsOf = (result: Found, content: string) => result.evidence?.find((e) => e.content === content)?.components;
  /** The place of the evidence line `content` in the list (-1 when it was not found). */
  const rankOf = (result: Found, content: string) => result.evidence?.findIndex((e) => e.content === content) ?? -1;
  /** The caller's active cards, as a full-text match reads them. */
  const activeCardsWhere = async (tenantId: string, ctx: MemoryCallContext) =>
    cardWhere({
      tenantId,
      scopes: ctx.readScopes,
      filter: {},
      registry: await loadKindRegistry(handle.db, tenantId),
      statuses: ["active"],
    });

  it("finds a card exactly by kind + valueJson and by canonical key", async () => {
    const ctx = agentContext(await createTenant(handle.db));
    const [cilantro] = await write(
      ctx,
      create("avoid_ingredient", {
        title: "用户不吃香菜 (cilantro)",
        content: "推荐菜谱时避免香菜。",
        valueJson: "香菜",
      }),
      create("avoid_ingredient", { title: "No peanuts", content: "Avoid peanuts.", valueJson: "peanut" }),
    );
    const byValue = await search(ctx, { kinds: ["avoid_ingredient"], valueJson: "香菜" });
    expect(byValue.exact.map((n) => n.id)).toEqual([cilantro]);
    expect(byValue.exact[0]!.matchedBy).toEqual(["exact"]);
    expect(byValue.relevant).toEqual([]);
    const byKey = await search(ctx, { key: byValue.exact[0]!.key });
    expect(byKey.exact.map((n) => n.id)).toEqual([cilantro]);
    expect(byValue.enumerated).toBe(false);
  });

  it("finds by valueJson the way writes store it: a field of an object value, the item, the kind's normalized form", async () => {
    const t = await createTenant(handle.db);
    const ctx = agentContext(t, { forgetIntent: true });
    const [cilantro, peanuts, flavor] = await write(
      ctx,
      create("avoid_ingredient", {
        title: "用户不吃香菜",
        content: "推荐菜谱时避免香菜，讨厌它的味道。",
        valueJson: { ingredient: "香菜", note: "讨厌味道" },
      }),
      create("food_avoidance", {
        title: "Peanut allergy",
        content: "The user is allergic to peanuts.",
        valueJson: { food: "peanuts", reason: "allergy" },
      }),
      create("flavor_profile", { title: "口味", content: "推荐菜谱时少油少辣。", valueJson: "少油少辣" }),
    );
    const exactIds = async (input: Record<string, unknown>) => (await search(ctx, input)).exact.map((n) => n.id);
    expect(await exactIds({ kinds: ["avoid_ingredient"], valueJson: "香菜" })).toEqual([cilantro]);
    expect(await exactIds({ key: "avoid_ingredient", valueJson: "香菜" })).toEqual([cilantro]);
    expect(await exactIds({ kinds: ["food_avoidance"], valueJson: "peanuts" })).toEqual([peanuts]);
    expect(await exactIds({ kinds: ["flavor_profile"], valueJson: "少辣" })).toEqual([flavor]);
    expect(await exactIds({ kinds: ["flavor_profile"], valueJson: { 辣: "少" } })).toEqual([flavor]);
    expect(await exactIds({ kinds: ["flavor_profile"], valueJson: "多辣" })).toEqual([]);
    expect(await exactIds({ kinds: ["avoid_ingredient"], valueJson: "香" })).toEqual([]);
    // A full forget selector as agents send it (docs/memory-model.md, Forget).
    const forgot = await memoryForget(handle.db, ctx, {
      selector: {
        domain: "生活技能",
        categoryPathPrefix: ["生活技能", "做饭", "饮食偏好"],
        type: "preference",
        key: "avoid_ingredient",
        valueJson: "香菜",
      },
      mode: "soft",
      reason: "用户明确要求忘记该饮食偏好",
    });
    expect(forgot).toMatchObject({ done: true, deletedIds: [cilantro] });
    // asOf reads the same filter in memory.
    const before = await search(ctx, { kinds: ["flavor_profile"], valueJson: "少辣", asOf: new Date().toISOString() });
    expect(before.exact.map((n) => n.id)).toEqual([flavor]);
  });

  it("says when queryText holds no word to search for", async () => {
    const ctx = agentContext(await createTenant(handle.db));
    await write(
      ctx,
      create(
        "custom_fact",
        { title: "Coffee", content: "Drinks coffee at 9.", valueJson: "coffee" },
        { itemKey: "coffee" },
      ),
    );
    const result = await search(ctx, { queryText: "☕" });
    expect(result.relevant).toEqual([]);
    expect(result.warnings?.join(" ")).toMatch(/holds no word to search for/);
  });

  it("searches within kinds when queryText comes with them, instead of listing the kinds' most important cards", async () => {
    const ctx = agentContext(await createTenant(handle.db));
    const facts = Array.from({ length: 15 }, (_, i) =>
      create(
        "custom_fact",
        {
          title: `Fact ${i}`,
          content: `Household fact number ${i} about the garden.`,
          valueJson: `f${i}`,
          importance: 0.9,
        },
        { itemKey: `fact_${i}` },
      ),
    );
    const written = await write(
      ctx,
      ...facts,
      create(
        "custom_fact",
        { title: "家里的WiFi名称", content: "家里的 WiFi 叫 Orchard-5G。", valueJson: "Orchard-5G", importance: 0.5 },
        { itemKey: "wifi" },
      ),
      create("occupation", {
        title: "Job",
        content: "Configures wifi routers at work.",
        valueJson: "network engineer",
      }),
    );
    const result = await search(ctx, { kinds: ["custom_fact"], queryText: "wifi" });
    expect([...result.exact, ...result.relevant].map((n) => n.id)).toEqual([written[15]]);
    expect(result.omitted.filter((o) => o.reason === "over_limit")).toEqual([]);
  });

  it("finds traditional-script cards from simplified queries and the other way round; reindex-text folds rows stored before", async () => {
    const t = await createTenant(handle.db);
    const ctx = agentContext(t);
    const [allergy, tea] = await write(
      ctx,
      create("food_avoidance", { title: "花生过敏", content: "用户对花生过敏。", valueJson: "花生" }),
      create(
        "custom_fact",
        { title: "喜歡烏龍茶", content: "用戶每天早上喝烏龍茶。", valueJson: "烏龍茶" },
        { itemKey: "tea" },
      ),
    );
    const relevantIds = async (queryText: string) => (await search(ctx, { queryText })).relevant.map((n) => n.id);
    expect(await relevantIds("我對什麼過敏")).toContain(allergy);
    expect(await relevantIds("乌龙茶")).toEqual([tea]);
    // A row indexed before the fold holds the traditional tokens; the command rewrites them.
    const traditional = (column: string) =>
      sql.raw(
        `${column} = replace(replace(replace(replace(${column}, '乌', '烏'), '龙', '龍'), '欢', '歡'), '户', '戶')`,
      );
    await handle.db.execute(
      sql`update memory_nodes set ${traditional("search_title")}, ${traditional("search_values")}, ${traditional("search_body")} where tenant_id = ${t} and id = ${tea}`,
    );
    expect(await relevantIds("乌龙")).toEqual([]);
    const changed = await reindexSearchText(handle.db, { tenantId: t });
    expect(changed.memory_nodes).toBe(1);
    expect(await relevantIds("乌龙")).toEqual([tea]);
    expect(await reindexSearchText(handle.db, { tenantId: t })).toMatchObject({ memory_nodes: 0 });
  });

  it("finds Chinese and mixed Chinese/English cards from Chinese and English queries", async () => {
    const ctx = agentContext(await createTenant(handle.db));
    const [cilantro, spicy, other] = await write(
      ctx,
      create("avoid_ingredient", {
        title: "用户不吃香菜 (cilantro)",
        content: "推荐菜谱时避免香菜。",
        valueJson: "香菜",
      }),
      create("flavor_profile", {
        title: "用户偏好少油少辣",
        content: "推荐菜谱时优先少油少辣。",
        valueJson: { oil: "low", spicy: "low" },
      }),
      create("occupation", { title: "Job", content: "The user works as a nurse.", valueJson: "nurse" }),
    );
    const zh = await search(ctx, { queryText: "香菜" });
    expect(zh.relevant[0]?.id).toBe(cilantro);
    expect(zh.relevant[0]?.matchedBy).toContain("full_text");
    expect(zh.relevant.map((n) => n.id)).not.toContain(other);
    const en = await search(ctx, { queryText: "cilantro" });
    expect(en.relevant[0]?.id).toBe(cilantro);
    const sentence = await search(ctx, { queryText: "我做饭要少辣一点" });
    expect(sentence.relevant[0]?.id).toBe(spicy);
    // A typo still lands, through trigram similarity.
    const typo = await search(ctx, { queryText: "cilantor" });
    expect(typo.relevant.map((n) => n.id)).toContain(cilantro);
    expect(typo.relevant.find((n) => n.id === cilantro)?.matchedBy).toContain("trigram");
  });

  it("runs the trigram rescue only for a word that full text found nowhere in scope", async () => {
    const ctx = agentContext(await createTenant(handle.db));
    const [person, other] = await write(
      ctx,
      create(
        "personal_relationship",
        { title: "Priyanka Sharma", content: "Priyanka Sharma leads the Cedar project.", valueJson: "Priyanka Sharma" },
        { itemKey: "priyanka" },
      ),
      create(
        "personal_relationship",
        { title: "Li Na", content: "Li Na runs the design review.", valueJson: "Li Na" },
        { itemKey: "li-na" },
      ),
    );
    // Both words are on the card: full text found them, so nothing is left for trigrams to rescue.
    const known = await search(ctx, { queryText: "who is Priyanka Sharma" });
    expect(known.relevant[0]?.id).toBe(person);
    expect(known.relevant.flatMap((n) => n.matchedBy)).not.toContain("trigram");
    // One word is found nowhere (a typo): the rescue runs, and the card comes back through it.
    const typo = await search(ctx, { queryText: "who is Priyanka Shamra" });
    expect(typo.relevant.find((n) => n.id === person)?.matchedBy).toEqual(
      expect.arrayContaining(["full_text", "trigram"]),
    );
    expect(typo.relevant.map((n) => n.id)).not.toContain(other);
  });

  it("ranks an English paraphrase above an unrelated card, with score components", async () => {
    const ctx = agentContext(await createTenant(handle.db));
    const [herbs, rust] = await write(
      ctx,
      create(
        "custom_fact",
        { title: "Herbs", content: "The user avoids eating cilantro and dislikes parsley." },
        { itemKey: "herbs" },
      ),
      create(
        "custom_fact",
        { title: "Favourite language", content: "The user's favourite programming language is Rust." },
        { itemKey: "rust" },
      ),
    );
    const result = await search(ctx, { queryText: "Which herbs does the user avoid when she eats?" });
    const ids = result.relevant.map((n) => n.id);
    expect(ids[0]).toBe(herbs);
    // The unrelated card shares only "user" with the question: below the paraphrase, or absent.
    const rustScore = result.relevant.find((n) => n.id === rust)?.score?.final ?? 0;
    expect(rustScore).toBeLessThan(result.relevant[0]!.score!.final);
    const score = result.relevant[0]!.score!;
    expect(score.fullText).toBeGreaterThan(0);
    expect(score.final).toBeGreaterThanOrEqual(score.fused!);
    expect(score.importance).toBeGreaterThan(0);
  });

  it("never returns superseded, expired or deleted cards by default, and says why they were left out", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId);
    // A search a moment after this card expires (its clock, not a wait).
    const expiresAt = new Date(Date.now() + 60_000);
    const later = (input: Record<string, unknown>) =>
      memorySearch(handle.db, ctx, input, { ...noVectors, now: new Date(expiresAt.getTime() + 1000) });
    const [nurse] = await write(
      ctx,
      create("occupation", { title: "Job", content: "Works as a nurse in Boston.", valueJson: "nurse" }),
    );
    const [doctor] = await write(
      ctx,
      create("occupation", { title: "Job", content: "Works as a doctor in Boston.", valueJson: "doctor" }),
    );
    const [expiring] = await write(
      ctx,
      create(
        "temporary_state",
        {
          title: "Upset stomach",
          content: "Stomach upset today in Boston: nothing spicy.",
          valueJson: "upset stomach",
          expiresAt: expiresAt.toISOString(),
        },
        { scope: "user:u1", itemKey: "stomach" },
      ),
    );
    const [expired] = await write(
      ctx,
      create(
        "custom_fact",
        { title: "Boston visit", content: "Visiting Boston this week.", valueJson: "boston" },
        { itemKey: "boston_visit" },
      ),
    );
    await memoryWrite(handle.db, ctx, { operations: [{ op: "expire", targetId: expired!, expectedRevision: 1 }] });
    const [deleted] = await write(
      ctx,
      create(
        "custom_fact",
        { title: "Boston flat", content: "Rents a flat in Boston.", valueJson: "flat" },
        { itemKey: "boston_flat" },
      ),
    );
    const forgot = await memoryForget(
      handle.db,
      { ...ctx, forgetIntent: true },
      { id: deleted!, expectedRevision: 1, reason: "user asked" },
    );
    expect(forgot.deletedIds).toEqual([deleted]);

    const result = await later({ queryText: "Boston" });
    const returned = [...result.exact, ...result.relevant].map((n) => n.id);
    expect(returned).toContain(doctor);
    for (const gone of [nurse, expiring, expired, deleted]) expect(returned).not.toContain(gone);
    expect(result.omitted).toEqual(
      expect.arrayContaining([
        { nodeId: nurse, reason: "superseded" },
        { nodeId: expiring, reason: "expired" },
        { nodeId: expired, reason: "expired" },
      ]),
    );
    expect(result.omitted.map((o) => o.nodeId)).not.toContain(deleted);

    const exact = await later({ kinds: ["occupation"] });
    expect(exact.exact.map((n) => n.id)).toEqual([doctor]);
    expect(exact.omitted).toContainEqual({ nodeId: nurse, reason: "superseded" });

    const withExpired = await later({ queryText: "Boston", includeExpired: true });
    const all = [...withExpired.exact, ...withExpired.relevant].map((n) => n.id);
    expect(all).toEqual(expect.arrayContaining([doctor, expiring, expired]));
    expect(all).not.toContain(deleted);
    expect(all).not.toContain(nurse);
  });

  it("answers a text search that found only an overridden card with the card overriding it in this turn", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId);
    const lang = (scope: string, title: string, content: string, value: string) =>
      create("language_preference", { title, content, valueJson: value }, { scope });
    const [userEn] = await write(ctx, lang("user:u1", "Language", "Answer in English.", "en"));
    const [sessionZh] = await write(ctx, lang("session:s1", "语言", "这次对话用中文回答", "zh"));
    const found = await search(ctx, { queryText: "English" });
    expect(found.relevant.map((n) => n.id)).toEqual([sessionZh]);
    expect(found.relevant[0]!.matchedBy).toEqual(["slot"]);
    expect(found.omitted).toContainEqual({ nodeId: userEn, reason: "conflict_lost" });

    // Another conversation has no override: the user's card is the answer there.
    const otherTurn = agentContext(tenantId, {
      defaults: { user: { type: "user", id: "u1" }, session: { type: "session", id: "s2" } },
    });
    expect((await search(otherTurn, { queryText: "English" })).relevant.map((n) => n.id)).toEqual([userEn]);
    // Asked for the user scope alone, the session's card is not read.
    expect((await search(ctx, { queryText: "English", scopes: ["user:u1"] })).relevant.map((n) => n.id)).toEqual([
      userEn,
    ]);

    // A workspace overrides the user, and a session the workspace; a forgotten override shadows nothing.
    const tone = (scope: string, content: string) =>
      create("communication_preference", { title: "Tone", content, valueJson: content }, { scope, itemKey: "tone" });
    const [userTone] = await write(ctx, tone("user:u1", "Use a playful tone."));
    const [workspaceTone] = await write(ctx, tone("workspace:w1", "Formal, please."));
    const playful = await search(ctx, { queryText: "playful" });
    expect(playful.relevant.map((n) => n.id)).toEqual([workspaceTone]);
    expect(playful.omitted).toContainEqual({ nodeId: userTone, reason: "conflict_lost" });
    const [sessionTone] = await write(ctx, tone("session:s1", "Terse answers today."));
    expect((await search(ctx, { queryText: "playful" })).relevant.map((n) => n.id)).toEqual([sessionTone]);
    await memoryForget(
      handle.db,
      { ...ctx, forgetIntent: true },
      {
        targets: [
          { id: sessionTone, expectedRevision: 1 },
          { id: workspaceTone, expectedRevision: 1 },
        ],
        reason: "the user dropped both",
      },
    );
    expect((await search(ctx, { queryText: "playful" })).relevant.map((n) => n.id)).toEqual([userTone]);

    // Found by a filter the override does not match (a tag): the override answers there too.
    const [taggedUser] = await write(
      ctx,
      create(
        "custom_fact",
        { title: "Gym day", content: "Mondays.", valueJson: "monday", tags: ["sport"] },
        { scope: "user:u1", itemKey: "gym" },
      ),
    );
    const [sessionGym] = await write(
      ctx,
      create(
        "custom_fact",
        { title: "Gym day", content: "Thursday this week.", valueJson: "thursday" },
        { scope: "session:s1", itemKey: "gym" },
      ),
    );
    const byTag = await search(ctx, { tags: ["sport"] });
    expect(byTag.exact.map((n) => [n.id, n.matchedBy])).toEqual([[sessionGym, ["slot"]]]);
    expect(byTag.omitted).toContainEqual({ nodeId: taggedUser, reason: "conflict_lost" });

    // Found among more matches than come back with their records (read by id afterwards): the same.
    const many = Array.from({ length: 120 }, (_, i) =>
      create(
        "custom_fact",
        { title: `English note ${i}`, content: `An English note, number ${i}.` },
        { itemKey: `english_${i}` },
      ),
    );
    for (let i = 0; i < many.length; i += 40) await write(ctx, ...many.slice(i, i + 40));
    const crowded = await search(ctx, { queryText: "answer English", limit: 5 });
    expect(crowded.relevant.map((n) => n.id)).toContain(sessionZh);
    expect(crowded.relevant.map((n) => n.id)).not.toContain(userEn);
  });

  it("lets a term whose rows would pass the row budget score but not select, unless the rarer find too few", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId);
    const note = (i: number, text: string): Op =>
      create("custom_fact", { title: `Note ${i}`, content: text }, { itemKey: `share_${i}` });
    const common: string[] = [];
    for (let batch = 0; batch < 7; batch++)
      common.push(
        ...(await write(
          ctx,
          ...Array.from({ length: 50 }, (_, i) => note(batch * 50 + i, `The quokka report, part ${batch * 50 + i}.`)),
        )),
      );
    const rare = await write(
      ctx,
      ...Array.from({ length: 12 }, (_, i) => note(1000 + i, `A narwhal sighting, number ${i}.`)),
    );
    const [both] = await write(ctx, note(2000, "The quokka report mentions a narwhal."));
    await handle.db.execute(sql`analyze memory_nodes`);
    const shares = await termShares(handle.db, "memory_nodes", { maxAgeMs: 0 });
    const terms = queryTerms("quokka narwhal").filter((t) => !t.translated);
    expect(terms.map((t) => t.term)).toEqual(["quokka", "narwhal"]);
    expect(termShare(shares, terms[0]!)).toBeGreaterThan(termShare(shares, terms[1]!));

    const where = await activeCardsWhere(tenantId, ctx);
    // A budget just over the rare term's estimated rows (its share of the table × the scope's 363
    // cards): the common term's estimate does not fit beside it.
    const rowBudget = Math.floor(termShare(shares, terms[1]!) * 363) + 1;
    const budget = { source: CARD_SOURCE, where, terms, rowBudget };
    const selective = await fullTextHits(handle.db, { ...budget, limit: 100, minimum: 10 });
    // Only rows with the rare term were read (the common one still scores them).
    expect(selective.map((h) => h.id).sort()).toEqual([both, ...rare].sort());
    // Too few rare matches for the caller: the common term selects too, ranked below them.
    const fallback = await fullTextHits(handle.db, { ...budget, limit: 500, minimum: 20 });
    expect(fallback).toHaveLength(1 + rare.length + common.length);
    // A budget that holds both terms' rows: both select.
    const ample = await fullTextHits(handle.db, { ...budget, rowBudget: 5000, limit: 500, minimum: 10 });
    expect(ample).toHaveLength(1 + rare.length + common.length);
    expect(
      fallback
        .slice(0, 13)
        .map((h) => h.id)
        .sort(),
    ).toEqual([both, ...rare].sort());
  });

  it("flags every term, quotes, backslashes and SQL in it included, as the term and nothing else", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId);
    const [card] = await write(
      ctx,
      create("custom_fact", { title: "Quokka", content: "The quokka report." }, { itemKey: "quokka" }),
    );
    const odd = (term: string, prefix = false) => ({ term, prefix, weight: 1 });
    const terms = [odd("quokka"), odd("it's\\'); drop table memory_nodes; --"), odd("back\\slash", true), odd("\\")];
    const where = await activeCardsWhere(tenantId, ctx);
    const match = await fullTextMatch(handle.db, { source: CARD_SOURCE, where, terms, limit: 10 });
    expect(match.hits.map((h) => h.id)).toEqual([card]);
    expect(match.found).toEqual([true, false, false, false]);
    const [row] = await queryRows<{ n: number | string }>(
      handle.db,
      sql`select count(*) as n from memory_nodes where tenant_id = ${tenantId}`,
    );
    expect(Number(row?.n)).toBe(1);
  });

  it("resolves conflicts per slot: session over user, unexpired first, then explicit, temporary, newer", async () => {
    const tenantId = await createTenant(handle.db);
    const scopes = ["user:u1", "session:*", "context:app/a", "context:app/b"];
    const ctx = agentContext(tenantId, {
      readScopes: scopes.map(parseScopePattern),
      writeScopes: scopes.map(parseScopePattern),
    });
    const lang = (scope: string, value: string, extra: Op = {}) =>
      create(
        "language_preference",
        { title: "Language", content: `Answer in ${value}.`, valueJson: value },
        { scope, ...extra },
      );
    const [userZh] = await write(ctx, lang("user:u1", "Chinese"));
    const [sessionEn] = await write(ctx, lang("session:s1", "English"));
    const first = await search(ctx, { kinds: ["language_preference"] });
    expect(first.exact.map((n) => n.id)).toEqual([sessionEn]);
    expect(first.omitted).toContainEqual({ nodeId: userZh, reason: "conflict_lost" });

    // Another session's card is only visible in that session (session scope = this conversation).
    const [otherSession] = await write(ctx, lang("session:s2", "French"));
    const second = await search(ctx, { kinds: ["language_preference"] });
    expect(second.exact.map((n) => n.id)).toEqual([sessionEn]);
    expect([...second.relevant, ...second.omitted.map((o) => ({ id: o.nodeId }))].map((n) => n.id)).not.toContain(
      otherSession,
    );
    // Asked for by scope, it is searched — and is still no override for this session's card.
    const asked = await search(ctx, { kinds: ["language_preference"], scopes: ["session:*", "user:u1"] });
    expect(asked.exact.map((n) => n.id).sort()).toEqual([sessionEn, otherSession].sort());

    // Same priority (two context scopes): explicit beats inferred even when older; then newer wins.
    const contexts = agentContext(tenantId, {
      readScopes: ["context:app/a", "context:app/b"].map(parseScopePattern),
      writeScopes: scopes.map(parseScopePattern),
      defaults: {},
    });
    const decision = (scope: string, text: string, explicit: boolean): Op => ({
      op: "create",
      kind: "durable_decision",
      scope,
      explicitUserIntent: explicit,
      node: { title: "Database", content: text, valueJson: text },
    });
    const clock = steppingClock();
    const [explicitA] = await writeAt(clock(), contexts, decision("context:app/a", "Use Postgres.", true));
    const [inferredB] = await writeAt(clock(), contexts, decision("context:app/b", "Use SQLite.", false));
    const decided = await search(contexts, { kinds: ["durable_decision"] });
    expect(decided.exact.map((n) => n.id)).toEqual([explicitA]);
    expect(decided.omitted).toContainEqual({ nodeId: inferredB, reason: "conflict_lost" });
    const [newerB] = await writeAt(
      clock(),
      contexts,
      create(
        "communication_preference",
        { title: "Tone", content: "Be brief.", valueJson: "brief" },
        { scope: "context:app/b", itemKey: "tone" },
      ),
    );
    const [newestA] = await writeAt(
      clock(),
      contexts,
      create(
        "communication_preference",
        { title: "Tone", content: "Be detailed.", valueJson: "detailed" },
        { scope: "context:app/a", itemKey: "tone" },
      ),
    );
    const tone = await search(contexts, { kinds: ["communication_preference"] });
    expect(tone.exact.map((n) => n.id)).toEqual([newestA]);
    expect(tone.omitted).toContainEqual({ nodeId: newerB, reason: "conflict_lost" });
  });

  it("omits low-confidence cards and reports cards beyond the limit as over_limit", async () => {
    const ctx = agentContext(await createTenant(handle.db));
    const [shaky] = await write(
      ctx,
      create(
        "custom_fact",
        { title: "Maybe likes jazz", content: "Might like jazz music.", valueJson: "jazz", confidence: 0.2 },
        { itemKey: "jazz" },
      ),
    );
    const ids = await write(
      ctx,
      ...["blues", "rock", "soul"].map((g) =>
        create(
          "custom_fact",
          { title: `Likes ${g} music`, content: `Listens to ${g} music.`, valueJson: g },
          { itemKey: g },
        ),
      ),
    );
    const result = await search(ctx, { queryText: "music", limit: 2 });
    expect(result.relevant).toHaveLength(2);
    expect(result.omitted).toContainEqual({ nodeId: shaky, reason: "low_confidence" });
    expect(result.omitted.filter((o) => o.reason === "over_limit")).toHaveLength(1);
    expect(ids).toContain(result.omitted.find((o) => o.reason === "over_limit")!.nodeId);
  });

  it("turns list-all phrasing in Chinese and English into an enumeration, and only then says memory is empty", async () => {
    const ctx = agentContext(await createTenant(handle.db));
    const none = await search(ctx, { queryText: "香菜" });
    expect(none.enumerated).toBe(false);
    expect(none.message).not.toMatch(/memory is empty/i);
    expect(none.message).toMatch(/only an enumeration/);
    const emptyList = await search(ctx, { queryText: "列出所有记忆" });
    expect(emptyList.enumerated).toBe(true);
    expect(emptyList.message).toMatch(/memory is empty/);

    const ids = await write(
      ctx,
      create("avoid_ingredient", { title: "不吃香菜", content: "避免香菜。", valueJson: "香菜" }),
      create("occupation", { title: "Job", content: "Nurse.", valueJson: "nurse" }),
    );
    for (const phrase of ["列出所有记忆", "我的全部记忆", "show all my memories", "List everything you remember"]) {
      const result = await search(ctx, { queryText: phrase });
      expect(result.enumerated, phrase).toBe(true);
      expect(result.exact.map((n) => n.id).sort(), phrase).toEqual([...ids].sort());
      expect(result.exact[0]!.matchedBy).toEqual(["enumeration"]);
    }
    // A page at a time: the cursor continues exactly where the last page ended.
    const first = await search(ctx, { all: true, limit: 1 });
    expect(first.exact).toHaveLength(1);
    expect(first.nextCursor).toEqual(expect.any(String));
    expect(first.message).toMatch(/More remain: send nextCursor as cursor/);
    const second = await search(ctx, { all: true, limit: 1, cursor: first.nextCursor });
    expect(second.nextCursor).toBeUndefined();
    expect([...first.exact, ...second.exact].map((n) => n.id).sort()).toEqual([...ids].sort());
  });

  it("finds what the user said in one language when asked in the other, by CC-CEDICT's words", async () => {
    const ctx = agentContext(await createTenant(handle.db));
    const [mia] = await write(
      ctx,
      create(
        "personal_relationship",
        {
          title: "Daughter Mia",
          content: "Daughter Mia, 7, likes dinosaurs.",
          valueJson: { name: "Mia", relation: "daughter" },
        },
        { itemKey: "mia" },
      ),
    );
    const [xiaomi] = await write(
      ctx,
      create(
        "personal_relationship",
        { title: "儿子小米", content: "儿子小米九岁，喜欢踢足球。", valueJson: { name: "小米", relation: "儿子" } },
        { itemKey: "xiaomi" },
      ),
    );
    await write(ctx, create("occupation", { title: "Job", content: "Works as a nurse.", valueJson: "nurse" }));
    const zh = await search(ctx, { queryText: "我女儿喜欢什么" });
    expect(zh.relevant[0]?.id).toBe(mia);
    const en = await search(ctx, { queryText: "what does my son like to do" });
    expect(en.relevant[0]?.id).toBe(xiaomi);
  });

  it("pages an enumeration of any size with a cursor, resolving each page's conflicts against every page", async () => {
    const ctx = agentContext(await createTenant(handle.db));
    const facts = Array.from({ length: 120 }, (_, i) =>
      create(
        "custom_fact",
        { title: `Fact ${i}`, content: `Fact number ${i}.`, valueJson: i, importance: (i % 7) / 10 },
        { itemKey: `fact_${i}` },
      ),
    );
    const ids: string[] = [];
    for (let i = 0; i < facts.length; i += 40) ids.push(...(await write(ctx, ...facts.slice(i, i + 40))));
    // The same slot in the session (wins in this turn) and in the user's profile (shadowed), far apart in the order.
    const [shadowed] = await write(
      ctx,
      create(
        "custom_fact",
        { title: "Commute (profile)", content: "Drives.", valueJson: "car", importance: 1 },
        { itemKey: "commute", scope: "user:u1" },
      ),
    );
    const [winner] = await write(
      ctx,
      create(
        "custom_fact",
        { title: "Commute (today)", content: "Walks today.", valueJson: "walk", importance: 0 },
        { itemKey: "commute", scope: "session:s1" },
      ),
    );

    const listed: string[] = [];
    const omitted: { nodeId: string; reason: string }[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await search(ctx, { all: true, limit: 50, ...(cursor ? { cursor } : {}) });
      pages++;
      listed.push(...page.exact.map((n) => n.id));
      omitted.push(...page.omitted);
      cursor = page.nextCursor;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(listed).toHaveLength(new Set(listed).size);
    expect(listed.sort()).toEqual([...ids, winner].sort());
    expect(omitted).toEqual([{ nodeId: shadowed, reason: "conflict_lost" }]);

    await expect(search(ctx, { all: true, cursor: "not-a-cursor" })).rejects.toMatchObject({
      reason: "invalid_cursor",
    });
    await expect(search(ctx, { queryText: "fact", cursor: "x" })).rejects.toMatchObject({
      reason: "cursor_without_enumeration",
    });
  });

  it("answers as of an earlier moment", async () => {
    const ctx = agentContext(await createTenant(handle.db));
    const clock = steppingClock();
    const [nurse] = await writeAt(
      clock(),
      ctx,
      create("occupation", { title: "Job", content: "Works as a nurse.", valueJson: "nurse" }),
    );
    const between = clock().toISOString();
    const [doctor] = await writeAt(
      clock(),
      ctx,
      create("occupation", { title: "Job", content: "Works as a doctor.", valueJson: "doctor" }),
    );
    const then = await search(ctx, { kinds: ["occupation"], asOf: between });
    expect(then.exact.map((n) => n.id)).toEqual([nurse]);
    const thenText = await search(ctx, { queryText: "nurse", asOf: between });
    expect(thenText.relevant.map((n) => n.id)).toEqual([nurse]);
    const now = await search(ctx, { kinds: ["occupation"] });
    expect(now.exact.map((n) => n.id)).toEqual([doctor]);
  });

  it("searches evidence messages with session context, within readable scopes only", async () => {
    const tenantId = await createTenant(handle.db);
    const writer = agentContext(tenantId);
    await appendMessages(handle.db, writer, {
      sessionId: "s1",
      userScopeId: "u1",
      messages: [
        { role: "assistant", content: "What did you do at the weekend?" },
        { role: "user", content: "I went hiking at Mount Tamalpais with my sister." },
        { role: "assistant", content: "Sounds lovely." },
        { role: "user", content: "We also tried a new ramen place in the evening." },
      ],
    });
    await appendMessages(handle.db, writer, {
      sessionId: "s-other",
      userScopeId: "u2",
      messages: [{ role: "user", content: "Secret: I went hiking at Mount Tamalpais alone." }],
    });
    const reader = agentContext(tenantId, { readScopes: ["user:u1", "session:s1"].map(parseScopePattern) });
    const result = await search(reader, { queryText: "hiking Tamalpais", includeEvidence: true });
    expect(result.evidence?.[0]?.content).toMatch(/Mount Tamalpais with my sister/);
    expect(result.evidence?.[0]?.components?.fullText).toBeGreaterThan(0);
    // Each hit shows its row as stored, whether read with the second stage's head or after it (with
    // neither the second stage nor the hop, nothing is read on the way).
    const stored = await handle.db
      .select()
      .from(memoryMessages)
      .where(and(eq(memoryMessages.tenantId, tenantId), eq(memoryMessages.sessionId, "s1")));
    const readLate = await memorySearch(
      handle.db,
      reader,
      { queryText: "hiking Tamalpais", includeEvidence: true },
      { ...noVectors, ranking: rankingFeaturesWithout(["secondStage", "secondHop"]) },
    );
    expect(readLate.evidence?.length).toBeGreaterThan(0);
    for (const hit of [...(result.evidence ?? []), ...(readLate.evidence ?? [])]) {
      const row = stored.find((m) => m.id === hit.id);
      expect(hit).toMatchObject({ kind: "message", sessionId: "s1", role: row?.role, content: row?.content });
      expect(hit.createdAt).toBe(row?.createdAt.toISOString());
    }
    expect(result.evidence?.some((e) => e.content.startsWith("Secret"))).toBe(false);
    // The turn before a strong hit is lent part of its score: the question it answers ranks too.
    const question = result.evidence?.find((e) => e.content.startsWith("What did you do"));
    expect(question?.components?.context).toBeGreaterThan(0);
    expect(result.message).toMatch(/evidence/);

    const owner = agentContext(tenantId, { readScopes: ["user:u2"].map(parseScopePattern) });
    const own = await search(owner, { queryText: "hiking Tamalpais", includeEvidence: true });
    expect(own.evidence?.map((e) => e.content)).toEqual(["Secret: I went hiking at Mount Tamalpais alone."]);
  });

  it("spreads context in full only in a dialogue: along one speaker's log the next line is another matter", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId, { readScopes: ["user:u1", "session:*"].map(parseScopePattern) });
    await appendMessages(handle.db, ctx, {
      sessionId: "diary",
      userScopeId: "u1",
      messages: [
        { role: "user", content: "今天去超市买了牛奶。" },
        { role: "user", content: "我姐姐的丈夫在银行工作。" },
        { role: "user", content: "晚上看了一部电影。" },
      ],
    });
    await appendMessages(handle.db, ctx, {
      sessionId: "chat",
      userScopeId: "u1",
      messages: [
        { role: "assistant", content: "你表哥做什么？" },
        { role: "user", content: "我表哥的妻子是老师。" },
        { role: "assistant", content: "好的。" },
      ],
    });
    // Relative to its lender's own score, what the line after a hit is lent.
    const lentAfter = (result: Awaited<ReturnType<typeof search>>, hit: string, next: string) =>
      (result.evidence?.find((e) => e.content === next)?.components?.context ?? 0) /
      (result.evidence?.find((e) => e.content === hit)?.components?.fullText ?? 1);
    const diary = await search(ctx, { queryText: "姐姐的丈夫", includeEvidence: true });
    expect(diary.evidence?.[0]?.content).toBe("我姐姐的丈夫在银行工作。");
    // Along the log, half a dialogue's share: the next line adds none of the question's words.
    expect(lentAfter(diary, "我姐姐的丈夫在银行工作。", "晚上看了一部电影。")).toBeCloseTo(0.25, 5);
    const chat = await search(ctx, { queryText: "表哥的妻子", includeEvidence: true });
    expect(chat.evidence?.[0]?.content).toBe("我表哥的妻子是老师。");
    // In the dialogue, the full share (and more from the question two turns before it).
    expect(lentAfter(chat, "我表哥的妻子是老师。", "好的。")).toBeGreaterThanOrEqual(0.5);
  });

  it("lends along a log more to a line holding the question's words its lender lacks, and keeps it below the lender", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId, { readScopes: ["user:u1"].map(parseScopePattern) });
    const named = "表姐的婚礼来了六百位客人。";
    const answer = "婚宴一共办了三天。";
    const chatter = "晚上看了一部电影。";
    await appendMessages(handle.db, ctx, {
      sessionId: "log",
      userScopeId: "u1",
      messages: ["今天去超市买了牛奶。", chatter, named, answer, "明天早上去跑步。"].map((content) => ({
        role: "user",
        content,
      })),
    });
    const question = { queryText: "六百位客人那次办了几天？", includeEvidence: true };
    const contextOf = (result: Awaited<ReturnType<typeof search>>, content: string) =>
      result.evidence?.find((e) => e.content === content)?.components?.context ?? 0;
    const without = await memorySearch(handle.db, ctx, question, {
      ...noVectors,
      ranking: rankingFeaturesWithout(["logSpread", "secondHop"]),
    });
    expect(contextOf(without, answer)).toBe(0);
    expect(contextOf(without, chatter)).toBe(0);
    const lent = await memorySearch(handle.db, ctx, question, {
      ...noVectors,
      ranking: rankingFeaturesWithout(["secondHop"]),
    });
    const [first, second] = lent.evidence ?? [];
    expect(first?.content).toBe(named);
    expect(second?.content).toBe(answer);
    const parts = second?.components;
    // Both lines sit next to the hit; the one that adds the question's words (办, 天) is lent more.
    expect(parts?.context).toBeGreaterThan(contextOf(lent, chatter));
    expect(contextOf(lent, chatter)).toBeGreaterThan(0);
    // Below its lender: its own score and the loan stay under the lender's own score.
    expect((parts?.fullText ?? 0) + (parts?.context ?? 0)).toBeLessThan(first?.components?.fullText ?? 0);
    // The answer is a hit too and lends back, but a line never rises above its lender: the stronger
    // line keeps its own score.
    expect(first?.components?.context).toBe(0);
  });

  it("reads the lines after a hit that open with a pronoun as naming whom the hit names", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId, { readScopes: ["user:u1"].map(parseScopePattern) });
    const named = "我表姐叫刘洋。";
    const answer = "她爱吃寿司。";
    await appendMessages(handle.db, ctx, {
      sessionId: "log",
      userScopeId: "u1",
      messages: [
        "今天去超市买了牛奶。",
        named,
        "她在杭州做设计师。",
        answer,
        "晚上看了一部电影。",
        "我同事最爱吃火锅。",
        "刘洋下个月过生日。",
      ].map((content) => ({ role: "user", content })),
    });
    const question = { queryText: "刘洋最爱吃什么？", includeEvidence: true };
    const birthday = "刘洋下个月过生日。";
    // The question asks a food and the answer names one: the answer type alone would lift it, so it is off
    // in both searches, and what is compared is the reference's part.
    const without = await memorySearch(handle.db, ctx, question, {
      ...noVectors,
      ranking: rankingFeaturesWithout(["pronounReference", "answerType"]),
    });
    // Without the reference the answer holds 爱吃 only, and the line naming 刘洋 for her birthday passes it.
    expect(rankOf(without, answer)).toBeGreaterThan(rankOf(without, birthday));
    const read = await memorySearch(handle.db, ctx, question, {
      ...noVectors,
      ranking: rankingFeaturesWithout(["answerType"]),
    });
    // Second in the run after the line naming her, it holds 刘洋 by reference and 爱吃 of its own.
    expect(rankOf(read, answer)).toBeGreaterThanOrEqual(0);
    expect(rankOf(read, answer)).toBeLessThan(rankOf(read, birthday));
    expect(rankOf(read, answer)).toBeLessThan(rankOf(read, named));
    expect(partsOf(read, answer)?.coverage).toBeGreaterThan(partsOf(without, answer)?.coverage ?? 1);
    // The first line of the run holds nothing asked: it ends just below the line it points back at.
    expect(partsOf(read, "她在杭州做设计师。")?.context).toBeCloseTo(
      (partsOf(read, named)?.fullText ?? 0) * BELOW_LENDER,
      5,
    );
    // A line after the run does not point back: it gets what spreading lends it either way.
    const movie = "晚上看了一部电影。";
    expect(partsOf(read, movie)?.context).toBeCloseTo(partsOf(without, movie)?.context ?? -1, 5);
    // With every feature on, the answer still ranks above the other lines naming her.
    const every = await memorySearch(handle.db, ctx, question, noVectors);
    expect(rankOf(every, answer)).toBeLessThan(rankOf(every, birthday));
    expect(rankOf(every, answer)).toBeLessThan(rankOf(every, named));
  });

  it("ends a run of lines pointing back at another role's turn", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId, { readScopes: ["user:u1"].map(parseScopePattern) });
    const named = "我表姐叫刘洋。";
    const reply = "她真厉害！";
    await appendMessages(handle.db, ctx, {
      sessionId: "log",
      userScopeId: "u1",
      messages: [
        { role: "user", content: "今天去超市买了牛奶。" },
        { role: "user", content: named },
        { role: "user", content: "她在杭州做设计师。" },
        { role: "user", content: "她每天都加班。" },
        { role: "assistant", content: reply },
      ],
    });
    const result = await search(ctx, { queryText: "刘洋", includeEvidence: true });
    const parts = (content: string) => result.evidence?.find((e) => e.content === content)?.components;
    const lender = parts(named)?.fullText ?? 0;
    expect(lender).toBeGreaterThan(0);
    // The user's two lines after the hit point back at it; the assistant's reply three lines on does not.
    expect(parts("她每天都加班。")?.context).toBeCloseTo(lender * BELOW_LENDER, 5);
    expect(parts(reply)?.context ?? 0).toBeLessThan(lender * 0.5);
  });

  it("gives the reply to a turn that asks the question its whole score, only where another role replies", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId, { readScopes: ["user:u1"].map(parseScopePattern) });
    const asked = "How long have you been married?";
    const reply = "Five years already, time flies!";
    const noted = "Note to self: how long have we been married?";
    const followed = "Buy flowers on Friday.";
    await appendMessages(handle.db, ctx, {
      sessionId: "chat",
      userScopeId: "u1",
      messages: [
        { role: "user", content: "We went camping last weekend." },
        { role: "assistant", content: asked },
        { role: "user", content: reply },
        { role: "assistant", content: "That is lovely." },
      ],
    });
    await appendMessages(handle.db, ctx, {
      sessionId: "family",
      userScopeId: "u1",
      messages: [
        { role: "user", content: "The user's sister got married in June." },
        { role: "assistant", content: "Congratulations to her." },
      ],
    });
    // A question in a dialogue that its own role goes on from: the next turn is no reply.
    const aside = "Just curious, no reason.";
    await appendMessages(handle.db, ctx, {
      sessionId: "aside",
      userScopeId: "u1",
      messages: [
        { role: "user", content: "We went to the lake on Sunday." },
        { role: "assistant", content: "How long has your neighbour been married?" },
        { role: "assistant", content: aside },
        { role: "user", content: "No idea." },
      ],
    });
    // A question quoted in Chinese corner brackets asks too.
    const quoted = "他问我：「你们结婚多久了？」";
    const answered = "五年了，时间过得真快。";
    await appendMessages(handle.db, ctx, {
      sessionId: "zh",
      userScopeId: "u1",
      messages: [
        { role: "assistant", content: quoted },
        { role: "user", content: answered },
      ],
    });
    // The same kind of question in one speaker's notes: the line after it is no reply.
    await appendMessages(handle.db, ctx, {
      sessionId: "notes",
      userScopeId: "u1",
      messages: [noted, followed, "Call the plumber."].map((content) => ({ role: "user", content })),
    });
    const question = { queryText: "How long has the user been married?", includeEvidence: true };
    // The second hop and the answer type ("how long" asks for a number) left out: only what spreading lends is compared.
    const plain = await memorySearch(handle.db, ctx, question, {
      ...noVectors,
      ranking: rankingFeaturesWithout(["secondHop", "answerType", "replyToQuestion"]),
    });
    const replied = await memorySearch(handle.db, ctx, question, {
      ...noVectors,
      ranking: rankingFeaturesWithout(["secondHop", "answerType"]),
    });
    const asking = partsOf(replied, asked)?.fullText ?? 0;
    expect(asking).toBeGreaterThan(0);
    expect(partsOf(replied, reply)?.fullText ?? 0).toBe(0);
    // A neighbour's half without the feature; the question's whole score with it.
    expect(partsOf(plain, reply)?.context).toBeCloseTo(asking * 0.5, 5);
    expect(partsOf(replied, reply)?.context).toBeCloseTo(asking * REPLY_SHARE, 5);
    // Above the reply to a statement that holds one of the question's words, which it ranks below without.
    const courtesy = "Congratulations to her.";
    for (const result of [plain, replied])
      for (const line of [reply, courtesy]) expect(rankOf(result, line)).toBeGreaterThanOrEqual(0);
    expect(rankOf(plain, reply)).toBeGreaterThan(rankOf(plain, courtesy));
    expect(rankOf(replied, reply)).toBeLessThan(rankOf(replied, courtesy));
    // A statement's reply, and the turn after a question its own role goes on from, get what they got before.
    expect(partsOf(replied, courtesy)?.context).toBeCloseTo(partsOf(plain, courtesy)?.context ?? -1, 5);
    expect(partsOf(replied, aside)?.context ?? 0).toBeGreaterThan(0);
    expect(partsOf(replied, aside)?.context).toBeCloseTo(partsOf(plain, aside)?.context ?? -1, 5);
    // The turn before the question, and the notes' next line, get what they got before.
    const before = "We went camping last weekend.";
    expect(partsOf(replied, before)?.context).toBeCloseTo(partsOf(plain, before)?.context ?? -1, 5);
    expect(partsOf(replied, followed)?.context).toBeCloseTo(partsOf(plain, followed)?.context ?? -1, 5);
    expect(partsOf(replied, followed)?.context ?? 0).toBeLessThan(partsOf(replied, noted)?.fullText ?? 0);
    const zh = await memorySearch(
      handle.db,
      ctx,
      { queryText: "结婚多久了", includeEvidence: true },
      {
        ...noVectors,
        ranking: rankingFeaturesWithout(["secondHop"]),
      },
    );
    const quotedScore = partsOf(zh, quoted)?.fullText ?? 0;
    expect(quotedScore).toBeGreaterThan(0);
    expect(partsOf(zh, answered)?.context).toBeCloseTo(quotedScore * REPLY_SHARE, 5);
  });

  it("reorders the best evidence by its second stage: the question's words together beat its words apart", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId, { readScopes: ["user:u1", "session:*"].map(parseScopePattern) });
    const apart = "Red lamps, an old chair, a bicycle bell.";
    const together = "In the shed we found the old red bicycle my father built.";
    await appendMessages(handle.db, ctx, {
      sessionId: "log",
      userScopeId: "u1",
      messages: [apart, "We watched a film.", together, "Lunch was soup.", "Garage doors painted red."].map(
        (content) => ({ role: "user", content }),
      ),
    });
    const question = { queryText: "the old red bicycle", includeEvidence: true };
    const firstStageOnly = await memorySearch(handle.db, ctx, question, {
      ...noVectors,
      ranking: rankingFeaturesWithout(["secondStage"]),
    });
    expect(firstStageOnly.evidence?.[0]?.content).toBe(apart); // shorter, so BM25 ranks it first
    const staged = await search(ctx, question);
    expect(staged.evidence?.[0]?.content).toBe(together);
    const parts = staged.evidence?.[0]?.components;
    const apartParts = staged.evidence?.find((e) => e.content === apart)?.components;
    expect(parts?.coverage).toBeCloseTo(1, 5); // both hold every word of the question
    expect(apartParts?.coverage).toBeCloseTo(1, 5);
    expect(parts?.proximity).toBeGreaterThan(apartParts?.proximity ?? Number.POSITIVE_INFINITY);
  });

  /** Evidence search as `ctx`, with every ranking feature on but those in `off`. */
  const askWithout =
    (ctx: Parameters<typeof memorySearch>[1]) =>
    (queryText: string, off: RankingFeature[] = []) =>
      memorySearch(
        handle.db,
        ctx,
        { queryText, includeEvidence: true },
        { ...noVectors, ranking: rankingFeaturesWithout(off) },
      );

  it("lifts the lines holding a time, an age or a number when the question asks when, how old or how many", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId, { readScopes: ["user:u1", "session:*"].map(parseScopePattern) });
    const undated = "Mel: the sunrise painting is my favourite.";
    const dated = "Mel: I painted that lake sunrise last year, after a long walk by the water.";
    const noAge = "吴晓东是医生。";
    const age = "吴晓东已经三十二岁了，在杭州的一家医院上班。";
    const dayOut = "吴晓东昨天去钓鱼了。";
    await appendMessages(handle.db, ctx, {
      sessionId: "log",
      userScopeId: "u1",
      messages: [
        undated,
        "Lunch was soup.",
        dated,
        "我们去看电影了。",
        noAge,
        "今天下雨。",
        age,
        "晚饭吃面。",
        dayOut,
      ].map((content) => ({
        role: "user",
        content,
      })),
    });
    const ask = askWithout(ctx);

    const when = "When did Mel paint the sunrise?";
    expect((await ask(when, ["answerType"])).evidence?.[0]?.content).toBe(undated); // shorter, so BM25 ranks it first
    const asked = await ask(when);
    expect(asked.evidence?.[0]?.content).toBe(dated);
    expect(partsOf(asked, dated)?.answerType).toBe(1);
    expect(partsOf(asked, undated)?.answerType).toBeUndefined();

    const howOld = "吴晓东多大了？";
    expect((await ask(howOld, ["answerType"])).evidence?.[0]?.content).toBe(noAge);
    const aged = await ask(howOld);
    expect(aged.evidence?.[0]?.content).toBe(age);
    expect(partsOf(aged, age)?.answerType).toBe(1);
    // A time is no age: the line that holds only 昨天 is not lifted.
    expect(rankOf(aged, dayOut)).toBeGreaterThanOrEqual(0);
    expect(partsOf(aged, dayOut)?.answerType).toBeUndefined();

    // A question asking for a thing lifts nothing: the same order as without the feature.
    const what = "What did Mel paint at sunrise?";
    const plain = await ask(what, ["answerType"]);
    const read = await ask(what);
    expect(read.evidence?.map((e) => e.content)).toEqual(plain.evidence?.map((e) => e.content));
    expect(read.evidence?.some((e) => e.components?.answerType !== undefined)).toBe(false);
  });

  it("lifts the line naming a city for a Chinese question asking where, and the event a described occasion was", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId, { readScopes: ["user:u1"].map(parseScopePattern) });
    const city = "周强是从宜昌出来的，大学毕业以后一直在外面打拼。";
    const event = "读书会上见到了小林和老王，大家聊了一下午的书。";
    const log = [
      "周强人很好。",
      "今天下雨。",
      "周强最近很忙。",
      city,
      "小林最近在学游泳。",
      "晚饭吃面。",
      event,
      "小林说很累。",
    ];
    await appendMessages(handle.db, ctx, {
      sessionId: "log",
      userScopeId: "u1",
      messages: log.map((content) => ({ role: "user", content })),
    });
    const ask = askWithout(ctx);

    // Every line names him and none holds 老家: the shorter ones rank first by their words alone.
    const where = "周强的老家是哪里？";
    expect((await ask(where, ["answerType"])).evidence?.[0]?.content).not.toBe(city);
    const placed = await ask(where);
    expect(placed.evidence?.[0]?.content).toBe(city);
    expect(partsOf(placed, city)?.answerType).toBe(1);
    expect(partsOf(placed, "周强最近很忙。")?.answerType).toBeUndefined();

    // A question describing an occasion lifts no answer type, unless it asks which event the occasion was.
    const which = "小林也去了的那次活动叫什么？";
    expect((await ask(which, ["answerType"])).evidence?.[0]?.content).not.toBe(event);
    const named = await ask(which);
    expect(named.evidence?.[0]?.content).toBe(event);
    expect(partsOf(named, event)?.answerType).toBe(1);
  });

  it("answers a question that describes a thing in two hops: its best hit names it, a second match finds the rest", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId, { readScopes: ["user:u1"].map(parseScopePattern) });
    const named = "周末去了表姐的婚礼，来了六百位客人。";
    const answer = "婚礼一共办了三天，累坏了。";
    const log = ["今天中午吃了面条。", named, "晚上看了一部电影。", "下周要交报告。", answer, "明天早上去跑步。"];
    await appendMessages(handle.db, ctx, {
      sessionId: "log",
      userScopeId: "u1",
      messages: log.map((content) => ({ role: "user", content })),
    });
    // Lines holding the bridge word that the caller cannot read (another user's in this organisation,
    // and another organisation's): the second match keeps to the caller's scope too.
    const unreadable = "婚礼上的蛋糕很好吃。";
    await appendMessages(handle.db, agentContext(tenantId, { readScopes: ["user:u2"].map(parseScopePattern) }), {
      sessionId: "other-log",
      userScopeId: "u2",
      messages: [{ role: "user", content: unreadable }],
    });
    const other = agentContext(await createTenant(handle.db), { readScopes: ["user:u1"].map(parseScopePattern) });
    await appendMessages(handle.db, other, {
      sessionId: "log",
      userScopeId: "u1",
      messages: [{ role: "user", content: unreadable }],
    });
    const question = { queryText: "有六百位客人的那次活动持续了多久？", includeEvidence: true };
    const oneHop = await memorySearch(handle.db, ctx, question, {
      ...noVectors,
      ranking: rankingFeaturesWithout(["secondHop"]),
    });
    expect(oneHop.evidence?.[0]?.content).toBe(named);
    expect(oneHop.evidence?.map((e) => e.content)).not.toContain(answer); // no word in common with the question

    // The hop alone (spreading along the log off: it lends the lines next to the hit a share too).
    const twoHops = await memorySearch(handle.db, ctx, question, {
      ...noVectors,
      ranking: rankingFeaturesWithout(["logSpread"]),
    });
    const contents = twoHops.evidence?.map((e) => e.content) ?? [];
    expect(contents.slice(0, 2)).toEqual([named, answer]);
    expect(twoHops.evidence?.[1]?.components?.hop).toBeGreaterThan(0);
    expect(twoHops.evidence?.[0]?.components?.hop).toBeUndefined();
    expect(contents).not.toContain(unreadable);

    // Everything on: the lines just beside the hit are lent half a dialogue's share along the log;
    // the answer follows them, above the line two away (lent less) and the lines not lent to at all.
    const all = await search(ctx, question);
    const ranked = all.evidence?.map((e) => e.content) ?? [];
    expect(ranked[0]).toBe(named);
    expect(all.evidence?.find((e) => e.content === answer)?.components?.hop).toBeGreaterThan(0);
    expect(ranked.indexOf(answer)).toBeGreaterThan(0);
    expect(ranked.indexOf(answer)).toBeLessThan(ranked.indexOf("下周要交报告。"));
    expect(ranked).not.toContain("明天早上去跑步。");
    expect(ranked).not.toContain(unreadable);
  });

  it("does not hop from a question that names its subject: its best lines' values tie it to other people", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId, { readScopes: ["user:u1"].map(parseScopePattern) });
    const chatter = ["今天中午吃了面条。", "晚上看了一部电影。", "下周要交报告。", "明天早上去跑步。"];
    const log = [
      ...chatter,
      "彭婷老家是山西大同。",
      ...chatter,
      "赵文博是山西大同人。",
      ...chatter,
      "彭婷在京东物流上班。",
      ...chatter,
      "余晓燕老家也是山西大同的。",
    ];
    await appendLog(handle.db, ctx, log);
    const question = { queryText: "彭婷老家在哪？", includeEvidence: true };
    // Without the rule the hop lends from 彭婷's line to the other lines holding its rare words (山西大同).
    const hopped = await memorySearch(handle.db, ctx, question, {
      ...noVectors,
      ranking: rankingFeaturesWithout(["namedNoHop"]),
    });
    const lent = hopped.evidence?.filter((e) => (e.components?.hop ?? 0) > 0).map((e) => e.content) ?? [];
    expect(lent).toEqual(expect.arrayContaining(["赵文博是山西大同人。"]));
    // The question names 彭婷 (two lines hold the name): nothing is lent, her lines come first.
    const named = await search(ctx, question);
    expect(named.evidence?.some((e) => e.components?.hop !== undefined)).toBe(false);
    expect(named.evidence?.slice(0, 2).map((e) => e.content)).toEqual(
      expect.arrayContaining(["彭婷老家是山西大同。", "彭婷在京东物流上班。"]),
    );
    // A question describing its subject (那位 …) is hopped from, rare words and all.
    const described = await search(ctx, { queryText: "老家在山西大同的那位在哪上班？", includeEvidence: true });
    expect(described.evidence?.some((e) => (e.components?.hop ?? 0) > 0)).toBe(true);
  });

  it("lifts no answer type for a question describing its subject: the describing line holds no value", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId, { readScopes: ["user:u1"].map(parseScopePattern) });
    const describing = "我朋友王磊是一名记者。";
    // Other friends' ages share a word with the question (朋友); the one asked about is named by the describing line.
    const ages = [
      "我朋友李娜今年28岁。",
      "我朋友张伟今年40岁。",
      "我朋友刘洋今年33岁。",
      "我朋友陈静今年51岁。",
      "王磊今年35岁。",
    ];
    const chatter = ["今天中午吃了面条。", "晚上看了一部电影。", "下周要交报告。"];
    const log = [...chatter, describing, ...chatter, ...ages, ...chatter];
    await appendLog(handle.db, ctx, log);
    const question = { queryText: "我那个当记者的朋友多大了？", includeEvidence: true };
    const typed = await memorySearch(handle.db, ctx, question, {
      ...noVectors,
      ranking: rankingFeaturesWithout(["describedNoType"]),
    });
    // Without the rule every line holding an age is lifted, other people's too.
    expect(typed.evidence?.filter((e) => e.components?.answerType === 1).length).toBeGreaterThanOrEqual(4);
    const untyped = await search(ctx, question);
    expect(untyped.evidence?.some((e) => e.components?.answerType !== undefined)).toBe(false);
    const rankOf = (hits: { content: string }[] | undefined, content: string) =>
      hits?.findIndex((e) => e.content === content) ?? -1;
    expect(rankOf(untyped.evidence, describing)).toBe(0);
    // The answer follows the line that describes the friend, no longer below other friends' ages.
    const answer = "王磊今年35岁。";
    expect(rankOf(untyped.evidence, answer)).toBeGreaterThan(0);
    expect(rankOf(untyped.evidence, answer)).toBeLessThan(rankOf(typed.evidence, answer));
    // A question naming its subject keeps the lift.
    const named = await search(ctx, { queryText: "王磊今年多大了？", includeEvidence: true });
    expect(named.evidence?.[0]?.content).toBe("王磊今年35岁。");
    expect(named.evidence?.[0]?.components?.answerType).toBe(1);
  });

  it("finds the kin a group word covers: 我妈那边的亲戚 is 舅舅 and 小姨, not 叔叔", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId, { readScopes: ["user:u1"].map(parseScopePattern) });
    const mothers = ["我舅舅在昆明买了房，常住那边。", "我小姨现在人在武汉。"];
    const fathers = "我叔叔一家定居在常德。";
    // Other lines hold the question's words (住, 城市) and no relative.
    const chatter = [
      ["我同事住在北京。", "今天中午吃了面条。", "周末去爬了山。"],
      ["这个城市的夏天太热了。", "晚上看了一部电影。", "买了一箱橙子。"],
      ["朋友住得离公司很近。", "下周要交报告。", "新买的耳机音质不错。"],
    ];
    await appendLog(handle.db, ctx, [
      ...chatter[0]!,
      mothers[0]!,
      ...chatter[1]!,
      fathers,
      mothers[1]!,
      ...chatter[2]!,
    ]);
    const question = { queryText: "我妈那边的亲戚都住在哪个城市？", includeEvidence: true };
    const found = await search(ctx, question);
    const rankOf = (hits: { content: string }[] | undefined, content: string) =>
      hits?.findIndex((e) => e.content === content) ?? -1;
    const ranks = mothers.map((line) => rankOf(found.evidence, line));
    expect(ranks.every((rank) => rank >= 0 && rank < 5)).toBe(true);
    const fathersRank = rankOf(found.evidence, fathers);
    expect(fathersRank === -1 || fathersRank > Math.max(...ranks)).toBe(true);
    // Without the kin terms the relatives' lines share no word with the question but 我 and 在.
    const plain = await memorySearch(handle.db, ctx, question, {
      ...noVectors,
      ranking: rankingFeaturesWithout(["kinship"]),
    });
    const plainRanks = mothers.map((line) => rankOf(plain.evidence, line));
    expect(plainRanks.some((rank) => rank === -1 || rank >= 5)).toBe(true);
    // Of the nineteen kin terms 我妈那边的亲戚 covers, only those the scope holds are matched and flagged.
    const terms = queryTerms(question.queryText);
    expect(terms.filter((term) => term.kin).length).toBeGreaterThan(10);
    const match = await fullTextMatch(handle.db, {
      source: MESSAGE_SOURCE,
      where: sql`memory_messages.tenant_id = ${tenantId}`,
      terms,
      limit: 10,
    });
    expect(
      match.terms
        .filter((term) => term.kin)
        .map((term) => term.term)
        .sort(),
    ).toEqual(["小姨", "舅舅"]);
  });

  it("finds a number written in Chinese numerals by its digits, and the reverse", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId, { readScopes: ["user:u1"].map(parseScopePattern) });
    const bought = "换了台空气净化器，花了一千三百块。";
    const aged = "我表哥今年33岁了。";
    await appendLog(handle.db, ctx, [
      "今天中午吃了面条。",
      "新买的耳机花了两百多。",
      bought,
      "周末去爬了山，走了三个小时。",
      aged,
      "我表哥住在杭州。",
    ]);
    const first = async (queryText: string) =>
      (await search(ctx, { queryText, includeEvidence: true })).evidence?.[0]?.content;
    expect(await first("1300块买的是什么？")).toBe(bought);
    expect(await first("谁三十三岁？")).toBe(aged);
    // A row indexed before numerals were read holds no digits; reindex-text adds them, once.
    await handle.db.execute(
      sql`update memory_messages set search_text = replace(search_text, ' 1300', '') where tenant_id = ${tenantId}`,
    );
    expect(await first("1300块买的是什么？")).not.toBe(bought);
    expect((await reindexSearchText(handle.db, { tenantId })).memory_messages).toBe(1);
    expect(await first("1300块买的是什么？")).toBe(bought);
    expect((await reindexSearchText(handle.db, { tenantId })).memory_messages).toBe(0);
  });

  it("ranks by the question a query ends with above the chit-chat before it", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId, { readScopes: ["user:u1"].map(parseScopePattern) });
    const answer = "说起来吴晓东都已经63岁了，时间过得真快。";
    // Chit-chat repeats itself: the lead-in's words are in more lines than the person's name.
    const chatter = ["今天", "昨天", "晚上", "周末", "这周", "最近"].map((when) => `${when}加班到很晚，好累。`);
    const log = [...chatter, "吴晓东是我舅舅，我们关系很好。", answer, "吴晓东老家是苏州的。", "明天早上去跑步。"];
    await appendMessages(handle.db, ctx, {
      sessionId: "log",
      userScopeId: "u1",
      messages: log.map((content) => ({ role: "user", content })),
    });
    const question = { queryText: "哎，今天有点累。晚上加班到很晚，好累。吴晓东今年多大了？", includeEvidence: true };
    // The answer type left out ("多大" asks for an age, which only the answer holds): the focus alone is compared.
    const unfocused = await memorySearch(handle.db, ctx, question, {
      ...noVectors,
      ranking: rankingFeaturesWithout(["questionFocus", "answerType"]),
    });
    // Without the focus the lead-in's exact twins win: they hold more of the query's words.
    expect(chatter).toContain(unfocused.evidence?.[0]?.content);
    const focused = await search(ctx, question);
    const ranked = focused.evidence?.map((e) => e.content) ?? [];
    expect(ranked.slice(0, 3)).toEqual(
      expect.arrayContaining(["吴晓东是我舅舅，我们关系很好。", answer, "吴晓东老家是苏州的。"]),
    );
    expect(ranked.slice(3)).toEqual(expect.arrayContaining(chatter));
  });

  it("finds a turn's neighbours in its own session when sessions were written at the same time", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId, { readScopes: ["user:u1", "user:u2", "session:*"].map(parseScopePattern) });
    // seq is one sequence for every session: turns appended in turn to two sessions are numbered apart.
    const turns = [
      ["talk-a", "assistant", "What did you do on Saturday?"],
      ["talk-b", "assistant", "How is the new job going?"],
      ["talk-a", "user", "I rebuilt the greenhouse roof with my uncle."],
      ["talk-b", "user", "Busy, lots of meetings."],
      ["talk-a", "assistant", "That sounds like hard work."],
      ["talk-b", "assistant", "Hang in there."],
    ] as const;
    for (const [sessionId, role, content] of turns) {
      const filler =
        sessionId === "talk-b"
          ? Array.from({ length: 5 }, (_, i) => ({ role: "user" as const, content: `${content} (${i})` }))
          : [];
      await appendMessages(handle.db, ctx, {
        sessionId,
        userScopeId: sessionId === "talk-a" ? "u1" : "u2",
        messages: [{ role, content }, ...filler],
      });
    }
    const result = await search(ctx, { queryText: "greenhouse roof uncle", includeEvidence: true });
    expect(result.evidence?.[0]?.content).toMatch(/greenhouse/);
    const lent = (text: string) => result.evidence?.find((e) => e.content === text)?.components?.context ?? 0;
    expect(lent("What did you do on Saturday?")).toBeGreaterThan(0);
    expect(lent("That sounds like hard work.")).toBeGreaterThan(0);
    expect(lent("How is the new job going?")).toBe(0);
    expect(lent("Busy, lots of meetings.")).toBe(0);
  });

  it("lends only to neighbours of the caller's own organisation, whatever the session is called", async () => {
    const [tenantA, tenantB] = [await createTenant(handle.db), await createTenant(handle.db)];
    const a = agentContext(tenantA, { readScopes: ["user:u1", "session:*"].map(parseScopePattern) });
    const b = agentContext(tenantB, { readScopes: ["user:u1", "session:*"].map(parseScopePattern) });
    const turns = [
      [a, "assistant", "What did you do on Saturday?"],
      [b, "assistant", "Organisation B's question about the greenhouse."],
      [a, "user", "I rebuilt the greenhouse roof."],
      [b, "user", "Organisation B's private answer."],
      [a, "assistant", "Nice."],
    ] as const;
    for (const [ctx, role, content] of turns)
      await appendMessages(handle.db, ctx, { sessionId: "talk", userScopeId: "u1", messages: [{ role, content }] });
    const result = await search(a, { queryText: "greenhouse roof", includeEvidence: true });
    expect(result.evidence?.[0]?.content).toBe("I rebuilt the greenhouse roof.");
    expect(result.evidence?.some((e) => e.content.startsWith("Organisation B"))).toBe(false);
    expect(result.evidence?.find((e) => e.content === "Nice.")?.components?.context).toBeGreaterThan(0);
  });

  it("keeps tenants and unreadable scopes apart, also through scopes narrowing", async () => {
    const tenantA = await createTenant(handle.db);
    const tenantB = await createTenant(handle.db);
    const card = create(
      "custom_fact",
      { title: "Garden", content: "Grows tomatoes in the garden.", valueJson: "tomatoes" },
      { itemKey: "garden" },
    );
    const [inA] = await write(agentContext(tenantA), card);
    const [inB] = await write(agentContext(tenantB), card);
    const u2 = agentContext(tenantA, {
      readScopes: ["user:u2"].map(parseScopePattern),
      writeScopes: ["user:u2"].map(parseScopePattern),
      defaults: { user: { type: "user", id: "u2" } },
    });
    const [ofU2] = await write(u2, card);

    const fromB = await search(agentContext(tenantB), { queryText: "tomatoes garden" });
    expect([...fromB.exact, ...fromB.relevant].map((n) => n.id)).toEqual([inB]);
    const enumB = await search(agentContext(tenantB), { all: true });
    expect(enumB.exact.map((n) => n.id)).toEqual([inB]);

    const a = agentContext(tenantA);
    const fromA = await search(a, { queryText: "tomatoes garden" });
    expect([...fromA.exact, ...fromA.relevant].map((n) => n.id)).toEqual([inA]);
    const narrowed = await search(a, { queryText: "tomatoes", scopes: ["user:u2"] });
    expect([...narrowed.exact, ...narrowed.relevant]).toEqual([]);
    expect(narrowed.message).toMatch(/not readable|None of the requested scopes/);
    const mixed = await search(a, { all: true, scopes: ["user:u1", "user:u2"] });
    expect(mixed.exact.map((n) => n.id)).toEqual([inA]);
    const u2Own = await search(u2, { all: true });
    expect(u2Own.exact.map((n) => n.id)).toEqual([ofU2]);
    await expect(search(a, { all: true, scopes: ["nonsense"] })).rejects.toBeInstanceOf(ServiceError);
  });

  it("rejects invalid input with a ServiceError naming the field", async () => {
    const ctx = agentContext(await createTenant(handle.db));
    await expect(search(ctx, { limit: 500 })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      reason: "invalid_input",
      message: expect.stringContaining("limit"),
    });
  });

  it("records one query-log row per search", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId);
    await search(ctx, { queryText: "anything" });
    await search(ctx, { all: true });
    await flushQueryLog(handle.db);
    const rows = await handle.db
      .select()
      .from(memoryQueryLog)
      .where(and(eq(memoryQueryLog.tenantId, tenantId), eq(memoryQueryLog.operation, "memory_search")));
    expect(rows).toHaveLength(2);
    expect(rows[0]!.latencyMs).toBeGreaterThan(0);
    expect(rows[0]).toMatchObject({ actorType: "api_key", actorId: "key_test" });
  });

  it("writes a batch of query-log rows in one insert, null actors and counts included", async () => {
    const tenantId = await createTenant(handle.db);
    for (let i = 0; i < 7; i++)
      await recordQuery(
        handle.db,
        { tenantId, actor: { type: "system", id: i % 2 ? null : `k${i}` } },
        { operation: "memory_context", latencyMs: i + 0.5, resultCount: i },
      );
    await flushQueryLog(handle.db);
    const rows = await handle.db.select().from(memoryQueryLog).where(eq(memoryQueryLog.tenantId, tenantId));
    expect(
      rows.map((r) => [r.actorId, r.latencyMs, r.resultCount, r.operation]).sort((a, b) => Number(a[2]) - Number(b[2])),
    ).toEqual(Array.from({ length: 7 }, (_, i) => [i % 2 ? null : `k${i}`, i + 0.5, i, "memory_context"]));
    expect(rows.every((r) => r.createdAt instanceof Date)).toBe(true);
  });

  it("has working pg_trgm on segmented CJK text in this backend (CJK is also covered by n-gram full text)", async () => {
    const [row] = await queryRows<{ n: number; ws: number }>(
      handle.db,
      sql`select array_length(show_trgm('香菜'), 1) as n, word_similarity('香菜', '用户 不吃 香菜 cilantro') as ws`,
    );
    expect(Number(row!.n)).toBeGreaterThan(0);
    expect(Number(row!.ws)).toBe(1);
  });

  it("finds the first card and the first message of a scope it searched while the scope was empty", async () => {
    // A scope counted empty is not matched; the count is never cached, or these writes would stay unfound.
    const ctx = agentContext(await createTenant(handle.db));
    const question = { queryText: "Which herbs does the user avoid?", includeEvidence: true };
    const empty = await search(ctx, question);
    expect([empty.relevant, empty.evidence]).toEqual([[], []]);
    const [herbs] = await write(
      ctx,
      create("custom_fact", { title: "Herbs", content: "The user avoids cilantro." }, { itemKey: "herbs" }),
    );
    await appendMessages(handle.db, ctx, {
      sessionId: "s1",
      userScopeId: "u1",
      messages: [{ role: "user", content: "I avoid herbs like cilantro." }],
    });
    const found = await search(ctx, question);
    expect(found.relevant.map((card) => card.id)).toEqual([herbs]);
    expect(found.evidence?.map((e) => e.content)).toEqual(["I avoid herbs like cilantro."]);
  });

  it("finds an imported chunk (no message behind it) with its own time, in a scope searched while it had none", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId);
    const question = { queryText: "quarterly budget review", includeEvidence: true };
    expect((await search(ctx, question)).evidence).toEqual([]);
    const occurredAt = new Date("2024-03-05T09:30:00.000Z");
    const content = "The quarterly budget review moved to Friday.";
    await handle.db.insert(memoryChunks).values(importedChunk(tenantId, "chunk-import-1", content, { occurredAt }));
    const found = await search(ctx, question);
    expect(found.evidence?.[0]).toMatchObject({
      kind: "chunk",
      id: "chunk-import-1",
      sessionId: "s-import",
      role: "user",
      content,
      createdAt: occurredAt.toISOString(),
    });
  });

  it("counts BM25 statistics per scope and sums them to exactly the whole scope's", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId);
    const card = (scope: string, n: number, words: string) =>
      create("custom_fact", { title: `Fact ${n}`, content: words, valueJson: words }, { scope, itemKey: `fact_${n}` });
    await writeCards(
      handle.db,
      ctx,
      card("user:u1", 1, "short"),
      card("user:u1", 2, "a somewhat longer sentence about the budget review"),
      card("session:s1", 3, "session words here"),
      card("workspace:w1", 4, "workspace card with quite a few more words than the others have"),
    );
    const registry = await loadKindRegistry(handle.db, tenantId);
    const scopes = ["user:u1", "session:s1", "workspace:w1", "global"].map(parseScopePattern);
    const where = (s: typeof scopes) => cardWhere({ tenantId, scopes: s, filter: {}, registry, statuses: ["active"] });
    const whole = await scopeStats(handle.db, CARD_SOURCE, where(scopes));
    const parts = scopes.map((scope, i) => ({ key: `stats-test-${tenantId}-${i}`, where: where([scope]) }));
    const summed = await scopeStats(handle.db, CARD_SOURCE, where(scopes), undefined, parts);
    expect(whole.n).toBe(4);
    expect(summed.n).toBe(whole.n);
    expect(summed.avglen).toBeCloseTo(whole.avglen, 9);
    // Cached per part: a second caller sharing the workspace reads it from the cache, and the answer is the same.
    expect(await scopeStats(handle.db, CARD_SOURCE, where(scopes), undefined, parts)).toEqual(summed);
    // A member's default grant: "session:*" (every session) is one part, and a session it covers is not counted twice.
    await writeCards(handle.db, ctx, card("session:s2", 5, "another session's words"));
    const granted = ["user:u1", "session:*", "session:s1", "global"].map(parseScopePattern);
    expect(disjointScopes(granted).map((s) => `${s.type}:${s.id}`)).toEqual(["user:u1", "session:*", "global:"]);
    const wildcardParts = disjointScopes(granted).map((scope, i) => ({
      key: `stats-test-${tenantId}-wild-${i}`,
      where: where([scope]),
    }));
    const wholeGranted = await scopeStats(handle.db, CARD_SOURCE, where(granted));
    const summedGranted = await scopeStats(handle.db, CARD_SOURCE, where(granted), undefined, wildcardParts);
    expect([wholeGranted.n, summedGranted.n]).toEqual([4, 4]);
    expect(summedGranted.avglen).toBeCloseTo(wholeGranted.avglen, 9);
  });
});
