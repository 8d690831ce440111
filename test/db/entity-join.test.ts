import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rankingFeaturesWithout, type RankingFeature } from "~/server/memory/retrieval/ranking-features";
import { memorySearch } from "~/server/memory/retrieval/search";
import { termShares } from "~/server/memory/retrieval/term-shares";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { loadMadeUpLog } from "../support/made-up-log";
import { noVectors } from "../support/memory";

describe(`entity join (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  beforeAll(async () => {
    handle = await openTestDatabase();
  });
  afterAll(async () => handle?.destroy());

  /** The made-up log, roles as `roleOf` says, and a measure over its conditional questions. */
  const load = async (roleOf: (i: number) => "user" | "assistant") => {
    const { dataset, ctx, idOf } = await loadMadeUpLog(handle.db, roleOf);
    const questions = dataset.queries.filter((q) => q.category === "conditional").slice(0, 30);
    /** Mean reciprocal rank of the first evidence line, how many questions find one in the top 10, and how many show a join. */
    const measure = async (off: RankingFeature[], asked = (question: string) => question) => {
      let mrr = 0;
      let hits = 0;
      let joined = 0;
      for (const q of questions) {
        const found =
          (
            await memorySearch(
              handle.db,
              ctx,
              { queryText: asked(q.question), includeEvidence: true, limit: 10 },
              { ...noVectors, ranking: rankingFeaturesWithout(off) },
            )
          ).evidence ?? [];
        const rank = found.findIndex((e) => q.evidence.includes(idOf.get(e.id) ?? ""));
        if (rank >= 0) {
          mrr += 1 / (rank + 1);
          hits++;
        }
        if (found.some((e) => e.components?.join !== undefined)) joined++;
      }
      return { mrr: mrr / questions.length, hits, joined };
    };
    return { questions, measure };
  };
  const refreshStatistics = async () => {
    await handle.db.execute(sql`analyze memory_messages`);
    await termShares(handle.db, "memory_messages", { maxAgeMs: 0 }); // read again now, not when the cached read expires
  };

  it("finds a person the question describes by two facts through the rows that name them", async () => {
    // A made-up log of many short stories (bench/synth-daily-zh.ts): people's facts told by name or by
    // relation, in a few phrasings, with chit-chat between; its "conditional" questions describe a
    // person by a fact and a relation ("我那个喜欢爬山的表哥最爱吃什么菜？").
    const { questions, measure } = await load(() => "user");
    expect(questions.length).toBeGreaterThanOrEqual(8);

    // Before the table's statistics exist a name cannot be told from a phrasing: nothing is joined. (A
    // server's autovacuum may analyze the new rows first; the embedded database has none.)
    if ((await termShares(handle.db, "memory_messages", { maxAgeMs: 0 })).size === 0)
      expect((await measure([])).joined).toBe(0);
    await refreshStatistics();

    const without = await measure(["entityJoin"]);
    const withJoin = await measure([]);
    expect(without.joined).toBe(0);
    expect(withJoin.joined).toBeGreaterThan(0);
    expect(withJoin.hits).toBeGreaterThanOrEqual(without.hits);
    expect(withJoin.mrr).toBeGreaterThan(without.mrr + 0.05);
    // The same words without the question mark are a remark: nothing is joined.
    expect((await measure([], (question) => question.replace(/？$/u, ""))).joined).toBe(0);
    // Nor after a long lead-in (over 32 words, as a pasted dialogue is): it names many things.
    const lead = Array.from({ length: 40 }, (_, i) => `topic${i}`).join(" ");
    expect((await measure([], (question) => `${lead}. ${question}`)).joined).toBe(0);
  });

  it("joins nothing in a dialogue, whose turns share words by its flow", async () => {
    // The same log as two roles taking turns: every line stands beside a turn of another role.
    const { measure } = await load((i) => (i % 2 === 0 ? "user" : "assistant"));
    await refreshStatistics();
    expect((await measure([])).joined).toBe(0);
  });
});
