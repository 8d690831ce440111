import { describe, expect, it } from "vitest";
import { queryTerms, type QueryTerm } from "~/server/memory/retrieval/query-terms";
import { MATCH_ROWS_BUDGET, selectingTerms } from "~/server/memory/retrieval/term-shares";

const term = (text: string): QueryTerm => ({ term: text, prefix: false, weight: 1 });

describe("the terms that select rows", () => {
  it("keeps the rarest terms while their estimated rows in the scope stay within the budget, in query order", () => {
    const shares = new Map([
      ["a", 0.001],
      ["b", 0.03],
      ["c", 0.03],
      ["d", 0.5],
    ]);
    const terms = ["c", "d", "b", "a", "e"].map(term);
    // 20,000 rows in scope: e (untracked, so rare) 0, a 20, then b or c 600 each: one of them fits.
    expect(selectingTerms(terms, shares, 20_000).map((t) => t.term)).toEqual(["c", "a", "e"]);
    // A scope smaller than the budget: every term selects.
    expect(MATCH_ROWS_BUDGET).toBeGreaterThan(900);
    expect(selectingTerms(terms, shares, 900)).toEqual(terms);
    // Between the two: the common term is the one left out.
    expect(selectingTerms(terms, shares, 5_000).map((t) => t.term)).toEqual(["c", "b", "a", "e"]);
  });

  it("always keeps the rarest term, and every term when the table has no statistics yet", () => {
    expect(selectingTerms([term("x")], new Map([["x", 0.04]]), 1_000_000).map((t) => t.term)).toEqual(["x"]);
    const chatty = queryTerms("对呀！那一天我真的超开心的，老师和同学们都说我的画很棒！").filter((t) => !t.translated);
    expect(selectingTerms(chatty, new Map(), 1_000_000)).toEqual(chatty);
  });
});
