import { describe, expect, it } from "vitest";
import type { MatchedDoc } from "~/server/memory/retrieval/bm25";
import { queryTerms, type QueryTerm } from "~/server/memory/retrieval/query-terms";
import { ALL_RANKING_FEATURES } from "~/server/memory/retrieval/ranking-features";
import { RARE_WORDS_PER_ROW } from "~/server/memory/retrieval/rare-words";
import { bridgeTerms, DIALOGUE_HOP_SHARE, HOP_SHARE, lendFromSeeds } from "~/server/memory/retrieval/second-hop";

const bridge = (seed: string, question: string, shares: Map<string, number> = new Map()) =>
  bridgeTerms(seed, queryTerms(question), shares, ALL_RANKING_FEATURES).map((t) => t.term);

describe("the second hop's bridge words", () => {
  it("takes the seed's words the question lacks, not the ones it asked with", () => {
    const words = bridge("我表姐的婚礼来了六百位客人。", "有六百位客人的那次活动持续了多久？");
    expect(words).toContain("婚礼");
    expect(words).toContain("表姐");
    expect(words).not.toContain("六百");
    expect(words).not.toContain("客人");
    // No translations: the bridge ties rows of the seed's own language.
    expect(words).not.toContain("wedding");
  });

  it("leaves out the words a question found its seed by through their translation", () => {
    expect(bridge("Our wedding had 600 guests.", "婚礼持续了多久？")).not.toContain("wedding");
  });

  it("leaves out a question's words also where the question holds them as a prefix", () => {
    const words = bridge("Caroline is painting a sunset over the lake.", "what is she painting?");
    expect(words).not.toContain("paint");
    expect(words).toEqual(expect.arrayContaining(["carolin", "sunset", "lake"]));
  });

  it("prefers the rarest words and drops those common in the table, single characters included", () => {
    const shares = new Map([
      ["今天", 0.2],
      ["和", 0.3],
      ["在", 0.4],
      ["公园", 0.01],
    ]);
    const words = bridge("今天和小红在公园放风筝。", "谁陪我放风筝？", shares);
    expect(words).not.toContain("今天");
    expect(words).not.toContain("和");
    expect(words).not.toContain("在");
    expect(words).toContain("小红");
    expect(words.indexOf("公园")).toBe(words.length - 1); // rare, but the least rare kept
    expect(words.length).toBeLessThanOrEqual(RARE_WORDS_PER_ROW);
    // A rare single character is a word like any other (猫, 书): it stays.
    expect(bridge("那只猫是姐姐送的。", "姐姐送了我什么？")).toContain("猫");
  });
});

describe("the second hop's loans", () => {
  const word = (term: string): QueryTerm => ({ term, prefix: false, weight: 1 });
  // Terms: 0 wedding (the seed's bridge), 1 guests (asked, in the seed), 2 last (asked, not in the seed).
  const terms = ["wedding", "guests", "last"].map(word);
  const doc = (id: string, tf: number[]): MatchedDoc => ({ id, length: 6, tf });
  const seed = doc("seed", [1, 1, 0]);
  const answer = doc("answer", [1, 0, 1]); // names the wedding and says how long it lasted
  const mention = doc("mention", [1, 0, 0]); // names the wedding only
  const unrelated = doc("unrelated", [0, 0, 1]); // the asked word, no bridge
  const lend = (overrides: Partial<Parameters<typeof lendFromSeeds>[0]> = {}) =>
    lendFromSeeds({
      docs: [seed, answer, mention, unrelated],
      terms,
      df: [3, 1, 2],
      stats: { n: 1000, avglen: 6 },
      seeds: [{ id: "seed", score: 2, text: "", bridge: [terms[0]!] }],
      asked: [terms[1]!, terms[2]!],
      ...overrides,
    });
  const byId = (loans: ReturnType<typeof lendFromSeeds>) => new Map(loans.map((l) => [l.id, l]));

  it("lends to rows holding the bridge, more to one that also holds what the seed lacked, nothing to itself or the rest", () => {
    const loans = byId(lend());
    expect(loans.has("seed")).toBe(false);
    expect(loans.has("unrelated")).toBe(false);
    // The same bridge as the seed: half the seed's score.
    expect(loans.get("mention")?.hop).toBeCloseTo(HOP_SHARE * 2, 6);
    expect(loans.get("answer")!.hop).toBeGreaterThan(loans.get("mention")!.hop);
    expect(loans.get("answer")?.ceiling).toBe(2);
  });

  it("splits one share among the rows tied to the seed by its words alone", () => {
    // A phrasing the seed shares with many rows ("跟你说说我邻居黄少华吧", "跟你说说我哥哥向华吧", …)
    // ties it to rows about other things; one of them may be the answer, so together they get one share.
    const alike = ["alike-1", "alike-2", "alike-3"].map((id) => doc(id, [1, 0, 0]));
    const loans = byId(lend({ docs: [seed, answer, mention, ...alike, unrelated] }));
    for (const id of ["mention", "alike-1", "alike-2", "alike-3"])
      expect(loans.get(id)?.hop).toBeCloseTo((HOP_SHARE * 2) / 4, 6);
    // A row that also holds a word of the question keeps its whole share.
    expect(loans.get("answer")!.hop).toBeGreaterThan(HOP_SHARE * 2);
  });

  it("lends less from a seed in a dialogue", () => {
    const loans = byId(lend({ seeds: [{ id: "seed", score: 2, text: "", bridge: [terms[0]!], inDialogue: true }] }));
    expect(loans.get("mention")?.hop).toBeCloseTo(DIALOGUE_HOP_SHARE * 2, 6);
  });

  it("ties nothing by a word common in the scope, and nothing from a seed the match did not find", () => {
    expect(lend({ df: [400, 1, 2] })).toEqual([]);
    expect(lend({ docs: [answer, mention, unrelated] })).toEqual([]);
    expect(lend({ seeds: [{ id: "seed", score: 0, text: "", bridge: [terms[0]!] }] })).toEqual([]);
  });

  it("adds up what several seeds lend and keeps the best lender's score as the ceiling", () => {
    const loans = byId(
      lend({
        seeds: [
          { id: "seed", score: 2, text: "", bridge: [terms[0]!] },
          { id: "answer", score: 1, text: "", bridge: [terms[0]!] },
        ],
      }),
    );
    expect(loans.get("mention")?.hop).toBeCloseTo(HOP_SHARE * 2 + HOP_SHARE * 1, 6);
    expect(loans.get("mention")?.ceiling).toBe(2);
    expect(loans.get("seed")?.ceiling).toBe(1); // a seed lent to by a weaker one stays below it
  });
});
