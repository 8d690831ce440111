import { describe, expect, it } from "vitest";
import { queryTerms, type QueryTerm } from "~/server/memory/retrieval/query-terms";
import { selectingTerms, termShare } from "~/server/memory/retrieval/term-shares";

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
    // A budget of 1,000 rows over 20,000 in scope: e (untracked, so rare) 0, a 20, then b or c 600
    // each: one of them fits.
    expect(selectingTerms(terms, shares, 20_000, 1000).map((t) => t.term)).toEqual(["c", "a", "e"]);
    // Over 5,000: b and c fit (305 rows), the common term (2,500) is the one left out.
    expect(selectingTerms(terms, shares, 5_000, 1000).map((t) => t.term)).toEqual(["c", "b", "a", "e"]);
    // A scope smaller than the budget: every term selects.
    expect(selectingTerms(terms, shares, 999, 1000)).toEqual(terms);
    // Even when the estimates add up past the budget (0.6 + 0.6 of 900 rows).
    const heavy = new Map([
      ["x", 0.6],
      ["y", 0.6],
    ]);
    expect(selectingTerms(["x", "y"].map(term), heavy, 900, 1000).map((t) => t.term)).toEqual(["x", "y"]);
  });

  it("always keeps the rarest term, and every term when the table has no statistics yet", () => {
    expect(selectingTerms([term("x")], new Map([["x", 0.04]]), 1_000_000, 500).map((t) => t.term)).toEqual(["x"]);
    const chatty = queryTerms("对呀！那一天我真的超开心的，老师和同学们都说我的画很棒！").filter((t) => !t.translated);
    expect(selectingTerms(chatty, new Map(), 1_000_000, 500)).toEqual(chatty);
  });

  it("counts every tracked lexeme a prefix starts, as a scan of them all would", () => {
    const shares = new Map([
      ["paint", 0.01],
      ["painted", 0.02],
      ["painter", 0.005],
      ["pain", 0.3],
      ["pa", 0.1],
      ["pb", 0.2],
      ["o", 0.4],
      ["画", 0.04],
      ["画画", 0.01],
    ]);
    const prefix = (text: string): QueryTerm => ({ term: text, prefix: true, weight: 1 });
    const scanned = (text: string) =>
      Math.min(
        1,
        [...shares].reduce((sum, [lexeme, share]) => sum + (lexeme.startsWith(text) ? share : 0), 0),
      );
    for (const text of ["paint", "pain", "pa", "p", "painting", "a", "z", "画", "o", ""])
      expect(termShare(shares, prefix(text))).toBeCloseTo(scanned(text), 12);
    // The sum is capped at every row; a whole word counts its own share only.
    expect(termShare(shares, prefix("p"))).toBeCloseTo(0.635, 12);
    expect(termShare(shares, prefix(""))).toBe(1);
    expect(termShare(shares, term("pain"))).toBe(0.3);
    expect(termShare(new Map(), prefix("paint"))).toBe(0);
  });
});
