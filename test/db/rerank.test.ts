import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendMessages } from "~/server/memory/evidence/messages";
import { buildMemoryContext } from "~/server/memory/retrieval/memory-context";
import { memorySearch } from "~/server/memory/retrieval/search";
import { parseScopePattern } from "~/server/memory/scope";
import { createReranker, scoresFromAnswer, type RerankConfig } from "~/server/providers/rerank";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { agentContext, createOp, createTenant, writeCards } from "../support/memory";

/**
 * A local stand-in for a re-ranking server (TEI, Jina, vLLM, Cohere-compatible), answering the
 * documented request shapes: it scores a document by whether it mentions the bank (银行), so the
 * re-ranked order differs from the lexical one. `mode` makes it slow or wrong.
 */
type Mode = "ok" | "slow" | "bad-index" | "http-error" | "not-json";
function fakeRerankServer() {
  let mode: Mode = "ok";
  const requests: Record<string, unknown>[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      const parsed = JSON.parse(body) as { query: string; documents?: string[]; texts?: string[] };
      requests.push({ path: req.url, ...parsed });
      const docs = parsed.documents ?? parsed.texts ?? [];
      const score = (d: string) => (d.includes("银行") ? 0.9 : 0.1);
      const reply = (status: number, payload: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(typeof payload === "string" ? payload : JSON.stringify(payload));
      };
      // As TEI does by default (--max-client-batch-size 32).
      if (docs.length > 32) return reply(422, { error: "batch size 40 > maximum allowed batch size 32" });
      if (mode === "slow") return void setTimeout(() => reply(200, { results: [] }), 1500);
      if (mode === "http-error") return reply(500, { error: "model not loaded" });
      if (mode === "not-json") return reply(200, "<html>gateway</html>");
      if (mode === "bad-index") return reply(200, { results: [{ index: 99, relevance_score: 1 }] });
      if (parsed.texts)
        return reply(
          200,
          docs.map((d, index) => ({ index, score: score(d) })),
        );
      return reply(200, { results: docs.map((d, index) => ({ index, relevance_score: score(d) })).reverse() });
    });
  });
  return {
    requests,
    setMode: (m: Mode) => (mode = m),
    start: () =>
      new Promise<string>((resolve) =>
        server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`)),
      ),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe(`re-ranking endpoint (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  const fake = fakeRerankServer();
  let baseUrl = "";
  beforeAll(async () => {
    handle = await openTestDatabase();
    baseUrl = await fake.start();
  });
  afterAll(async () => {
    await fake.stop();
    await handle?.destroy();
  });

  const reranker = (overrides: Partial<RerankConfig> = {}) =>
    // A loaded CI machine can take a few hundred ms to answer even the local fake: only the tests of a
    // slow endpoint wait less (300 ms).
    createReranker({ baseUrl, model: "bge-reranker-v2-m3", timeoutMs: 5000, topN: 20, format: "cohere", ...overrides });

  async function diary() {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId, { readScopes: ["user:u1", "session:*"].map(parseScopePattern) });
    await appendMessages(handle.db, ctx, {
      sessionId: "diary",
      userScopeId: "u1",
      messages: [
        { role: "user", content: "我姐姐的丈夫很高，我姐姐的丈夫爱笑。" },
        { role: "user", content: "今天天气很好。" },
        { role: "user", content: "他在银行上班，是我姐姐的丈夫。" },
      ],
    });
    return ctx;
  }
  const search = (ctx: Parameters<typeof memorySearch>[1], options: Parameters<typeof memorySearch>[3]) =>
    memorySearch(
      handle.db,
      ctx,
      { queryText: "我姐姐的丈夫做什么工作", includeEvidence: true, limit: 5 },
      { embeddings: null, logQuery: false, ...options },
    );

  it("re-orders the first stage's best candidates by the endpoint's scores (Cohere/Jina/vLLM shape)", async () => {
    const ctx = await diary();
    const lexical = await search(ctx, { reranker: null });
    expect(lexical.evidence?.[0]?.content).toMatch(/很高/);
    fake.setMode("ok");
    const reranked = await search(ctx, { reranker: reranker() });
    expect(reranked.evidence?.[0]?.content).toMatch(/银行/);
    expect(reranked.evidence?.[0]?.components?.rerank).toBe(0.9);
    expect(reranked.evidence?.[0]?.components?.fullText).toBeGreaterThan(0);
    expect(reranked.warnings).toBeUndefined();
    const sent = fake.requests.at(-1)!;
    expect(sent).toMatchObject({ path: "/v1/rerank", model: "bge-reranker-v2-m3", query: "我姐姐的丈夫做什么工作" });
    expect((sent.documents as string[]).length).toBe(lexical.evidence!.length);
  });

  it("speaks TEI's shape too", async () => {
    const ctx = await diary();
    const reranked = await search(ctx, { reranker: reranker({ format: "tei" }) });
    expect(reranked.evidence?.[0]?.content).toMatch(/银行/);
    expect(fake.requests.at(-1)).toHaveProperty("texts");
  });

  it("sends at most 32 documents a request, as TEI accepts, and keeps the lexical tail past RERANK_TOP_N", async () => {
    const ctx = await diary();
    await appendMessages(handle.db, ctx, {
      sessionId: "diary",
      userScopeId: "u1",
      messages: Array.from({ length: 45 }, (_, i) => ({
        role: "user" as const,
        content: `第${i}天：我姐姐的丈夫又来了。`,
      })),
    });
    fake.setMode("ok");
    const before = fake.requests.length;
    const all = await memorySearch(
      handle.db,
      ctx,
      { queryText: "我姐姐的丈夫做什么工作", includeEvidence: true, limit: 50 },
      { embeddings: null, logQuery: false, reranker: reranker({ topN: 48, format: "tei" }) },
    );
    const sent = fake.requests.slice(before).map((r) => (r.texts as string[]).length);
    // 47 messages match; the weather line matches no word but sits between two hits of the diary, which lend to it.
    expect(sent).toEqual([32, 16]);
    expect(all.warnings).toBeUndefined();
    expect(all.evidence?.[0]?.content).toMatch(/银行/);
    expect(all.evidence?.length).toBe(48);

    const few = await search(ctx, { reranker: reranker({ topN: 2 }) });
    expect(few.evidence?.length).toBe(5);
    expect(few.evidence?.slice(0, 2).every((e) => e.components?.rerank !== undefined)).toBe(true);
    expect(few.evidence?.slice(2).every((e) => e.components?.rerank === undefined)).toBe(true);
  });

  /** A re-ranker that answers in process (no server) with `score` per document, in the Cohere shape. */
  const scoringReranker = (score: (document: string) => number) =>
    reranker({
      fetch: async (_url, init) => {
        const { documents } = JSON.parse(String(init?.body)) as { documents: string[] };
        const results = documents.map((d, index) => ({ index, relevance_score: score(d) }));
        return new Response(JSON.stringify({ results }), { headers: { "content-type": "application/json" } });
      },
    });

  /** Cards about the sister's husband: the lexical stage likes the wordy one best, the endpoint the bank. */
  async function cards() {
    const ctx = await diary();
    const [tall, wordyBank, bank] = await writeCards(
      handle.db,
      ctx,
      createOp(
        "custom_fact",
        { title: "姐夫", content: "我姐姐的丈夫很高，我姐姐的丈夫爱笑。", importance: 0.5 },
        { itemKey: "tall" },
      ),
      createOp(
        "custom_fact",
        { title: "姐夫的工作", content: "我姐姐的丈夫在银行上班，我姐姐的丈夫很忙。", importance: 0.1 },
        { itemKey: "wordy-bank" },
      ),
      createOp("custom_fact", { title: "银行", content: "他在银行做事。", importance: 1 }, { itemKey: "bank" }),
    );
    return { ctx, tall: tall!, wordyBank: wordyBank!, bank: bank! };
  }

  it("re-ranks the relevant cards too: the endpoint's relevance, boosted as the lexical one is", async () => {
    const { ctx, tall, wordyBank, bank } = await cards();
    const lexical = await search(ctx, { reranker: null });
    // Lexically the fused ranks are close and the boosts decide: the tall card comes before the wordy bank card.
    expect(lexical.relevant.map((c) => c.id)).toEqual([bank, tall, wordyBank]);
    fake.setMode("ok");
    const before = fake.requests.length;
    const reranked = await search(ctx, { reranker: reranker() });
    // Both bank cards score 0.9: the more important one comes first, the other card (0.1) last.
    expect(reranked.relevant.map((c) => c.id)).toEqual([bank, wordyBank, tall]);
    const [first, second, third] = reranked.relevant;
    expect([first?.score?.rerank, second?.score?.rerank, third?.score?.rerank]).toEqual([0.9, 0.9, 0.1]);
    expect(first?.score?.final).toBeGreaterThan(second!.score!.final);
    expect(first?.score?.fullText).toBeGreaterThan(0);
    // The boosts are shares of the endpoint's relevance now, as they were of the lexical one: they still add up.
    for (const card of reranked.relevant) {
      const { rerank = 0, importance = 0, confidence = 0, recency = 0, hotness = 0, explicit = 0, final } = card.score!;
      expect(final).toBeCloseTo(rerank + importance + confidence + recency + hotness + explicit, 5);
    }
    expect(third!.score!.importance! / third!.score!.rerank!).toBeCloseTo(
      lexical.relevant[1]!.score!.importance! / lexical.relevant[1]!.score!.fused!,
      5,
    );
    expect(reranked.evidence?.[0]?.content).toMatch(/银行/);
    expect(reranked.warnings).toBeUndefined();
    // One request for the cards (title and text), one for the evidence.
    const sent = fake.requests.slice(before).map((r) => r.documents as string[]);
    expect(sent).toHaveLength(2);
    expect(sent.flat()).toContain("银行\n他在银行做事。");
  });

  it("keeps the cards' lexical order, with one warning for both lists, when the endpoint fails", async () => {
    const { ctx } = await cards();
    const lexical = await search(ctx, { reranker: null });
    fake.setMode("http-error");
    const result = await search(ctx, { reranker: reranker() });
    fake.setMode("ok");
    expect(result.relevant.map((c) => c.id)).toEqual(lexical.relevant.map((c) => c.id));
    expect(result.relevant.every((c) => c.score?.rerank === undefined)).toBe(true);
    expect(result.warnings).toEqual([
      "Re-ranking skipped: memories and evidence are in lexical order (the rerank endpoint answered HTTP 500).",
    ]);
  });

  it("moves a card that overrides another's slot in this turn with that card, and keeps the override", async () => {
    const { ctx, bank } = await cards();
    // The session's card for the same slot shares no word with the question: it comes as the bank card's rival.
    const [override] = await writeCards(
      handle.db,
      ctx,
      createOp(
        "custom_fact",
        { title: "新去处", content: "现在在学校教书。" },
        { itemKey: "bank", scope: "session:s1" },
      ),
    );
    const lexical = await search(ctx, { reranker: null });
    expect(lexical.relevant.find((c) => c.id === override)?.matchedBy).toEqual(["slot"]);
    const reranked = await search(ctx, { reranker: reranker() });
    // Judged by the bank card's text (0.9), placed where that card goes, which it overrides.
    expect(reranked.relevant[0]?.id).toBe(override);
    expect(reranked.relevant[0]?.score?.rerank).toBe(0.9);
    expect(reranked.relevant.map((c) => c.id)).not.toContain(bank);
    expect(reranked.omitted).toContainEqual({ nodeId: bank, reason: "conflict_lost" });
    const judged = fake.requests.at(-2)?.documents as string[];
    expect(judged).toContain("银行\n他在银行做事。");
    expect(judged.join(" ")).not.toContain("现在在学校教书");
  });

  it("scales raw logits to 0–1 over the candidates, and the boosts still add up to the final score", async () => {
    const { ctx, bank, wordyBank, tall } = await cards();
    const logits = scoringReranker((d) => (d.includes("银行") ? 4.5 : -2));
    const result = await search(ctx, { reranker: logits });
    expect(result.relevant.map((c) => c.id)).toEqual([bank, wordyBank, tall]);
    expect(result.relevant.map((c) => c.score?.rerank)).toEqual([1, 1, 0]);
    for (const card of result.relevant) {
      const { rerank = 0, importance = 0, confidence = 0, recency = 0, hotness = 0, explicit = 0, final } = card.score!;
      expect(final).toBeCloseTo(rerank + importance + confidence + recency + hotness + explicit, 5);
    }
  });

  it("keeps the lexical order when the endpoint scores every card alike", async () => {
    const { ctx } = await cards();
    const lexical = await search(ctx, { reranker: null });
    const alike = scoringReranker(() => 0.5);
    const result = await search(ctx, { reranker: alike });
    expect(result.relevant.map((c) => c.id)).toEqual(lexical.relevant.map((c) => c.id));
    expect(result.relevant.map((c) => c.score?.final)).toEqual(lexical.relevant.map((c) => c.score?.final));
    expect(result.relevant.every((c) => c.score?.rerank === 0.5)).toBe(true);
  });

  it("leaves memory_context's cards in lexical order: it runs every turn, without a model's round trip", async () => {
    const { ctx, tall } = await cards();
    const before = fake.requests.length;
    const context = await buildMemoryContext(
      handle.db,
      ctx,
      { queryText: "我姐姐的丈夫做什么工作" },
      { embeddings: null },
    );
    expect(JSON.stringify(context)).toContain(tall);
    expect(fake.requests.length).toBe(before);
  });

  for (const [mode, why] of [
    ["slow", /did not answer within 300 ms/],
    ["bad-index", /unusable: an answer entry has index 99/],
    ["http-error", /HTTP 500/],
    ["not-json", /answer is not JSON/],
  ] as const) {
    it(`keeps the lexical order and says why when the endpoint is ${mode}`, async () => {
      const ctx = await diary();
      const lexical = await search(ctx, { reranker: null });
      fake.setMode(mode);
      const started = performance.now();
      const result = await search(ctx, { reranker: reranker({ timeoutMs: mode === "slow" ? 300 : 5000 }) });
      fake.setMode("ok");
      expect(result.evidence?.map((e) => e.id)).toEqual(lexical.evidence?.map((e) => e.id));
      expect(result.warnings?.join(" ")).toMatch(why);
      expect(performance.now() - started).toBeLessThan(1200);
    });
  }
});

describe("re-ranking answers", () => {
  it("reads both shapes and refuses partial or malformed ones", () => {
    expect(
      scoresFromAnswer(
        {
          results: [
            { index: 1, relevance_score: 0.2 },
            { index: 0, relevance_score: 0.7 },
          ],
        },
        2,
      ),
    ).toEqual([0.7, 0.2]);
    expect(
      scoresFromAnswer(
        [
          { index: 0, score: 1 },
          { index: 1, score: -3 },
        ],
        2,
      ),
    ).toEqual([1, -3]);
    expect(scoresFromAnswer({ results: [{ index: 0, relevance_score: 0.7 }] }, 2)).toMatch(/no score for document 1/);
    expect(scoresFromAnswer({ results: [{ index: 0, relevance_score: "high" }] }, 1)).toMatch(/not a number/);
    expect(scoresFromAnswer({ data: [] }, 1)).toMatch(/neither/);
  });
});
