import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rankingFeaturesWithout, type RankingFeature } from "~/server/memory/retrieval/ranking-features";
import { memorySearch } from "~/server/memory/retrieval/search";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { loadMadeUpLog } from "../support/made-up-log";
import { noVectors } from "../support/memory";

describe(`a question that names something, after chit-chat (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  beforeAll(async () => {
    handle = await openTestDatabase();
  });
  afterAll(async () => handle?.destroy());

  it("ranks the named person's line above lines repeating the chit-chat, and changes nothing else", async () => {
    // A made-up log (bench/synth-daily-zh.ts): people's facts with chit-chat between; its "noisy"
    // questions ask about a person by name after a line or two of chit-chat that the log repeats
    // ("今天加班到很晚，好累。对了，黄少华在哪里工作？").
    const { dataset, ctx, idOf } = await loadMadeUpLog(handle.db);
    const search = (question: string, off: RankingFeature[]) =>
      memorySearch(
        handle.db,
        ctx,
        { queryText: question, includeEvidence: true, limit: 10 },
        { ...noVectors, ranking: rankingFeaturesWithout(off) },
      );
    const measure = async (questions: typeof dataset.queries, off: RankingFeature[]) => {
      let mrr = 0;
      let hits = 0;
      for (const q of questions) {
        const found = (await search(q.question, off)).evidence ?? [];
        const rank = found.findIndex((e) => q.evidence.includes(idOf.get(e.id) ?? ""));
        if (rank >= 0) {
          mrr += 1 / (rank + 1);
          hits++;
        }
      }
      return { mrr: mrr / questions.length, hits };
    };

    const noisy = dataset.queries.filter((q) => q.category === "noisy").slice(0, 30);
    expect(noisy.length).toBeGreaterThanOrEqual(10);
    const without = await measure(noisy, ["namedFocus"]);
    const withFocus = await measure(noisy, []);
    expect(withFocus.hits).toBeGreaterThanOrEqual(without.hits);
    expect(withFocus.mrr).toBeGreaterThan(without.mrr + 0.05);

    // A question without a lead-in is ranked as before, to the score.
    for (const q of dataset.queries.filter((query) => query.category === "simple").slice(0, 10)) {
      const on = (await search(q.question, [])).evidence ?? [];
      const off = (await search(q.question, ["namedFocus"])).evidence ?? [];
      expect(on.map((e) => [e.id, e.score])).toEqual(off.map((e) => [e.id, e.score]));
    }
  });
});
