import { describe, expect, it } from "vitest";
import { LOG_SHARE_FLOOR, logMeasure, referredShare, suppliedShare } from "~/server/memory/retrieval/context-spread";
import { withReferents } from "~/server/memory/retrieval/evidence";
import { BELOW_LENDER, liftBelowLender } from "~/server/memory/retrieval/lending";

describe("lending along a log: what a neighbour adds to its lender", () => {
  // Three question terms weighing 1, 2 and 3 (IDF × term weight).
  const weights = [1, 2, 3];

  it("is the share of the weight the lender lacks that the neighbour holds", () => {
    // The lender holds the first term; it lacks 2 + 3; the neighbour holds the third.
    expect(suppliedShare(weights, [1, 0, 0], [0, 0, 1])).toBeCloseTo(3 / 5, 10);
    expect(suppliedShare(weights, [1, 0, 0], [0, 1, 1])).toBeCloseTo(1, 10);
  });

  it("is nothing for a neighbour that only repeats the lender's words, holds none, or was not matched", () => {
    expect(suppliedShare(weights, [1, 0, 0], [1, 0, 0])).toBe(0);
    expect(suppliedShare(weights, [1, 0, 0], [0, 0, 0])).toBe(0);
    expect(suppliedShare(weights, [1, 0, 0], undefined)).toBe(0);
  });

  it("is nothing when the lender holds every question word already", () => {
    expect(suppliedShare(weights, [1, 1, 1], [0, 1, 1])).toBe(0);
  });
});

describe("what a line pointing back by a pronoun holds of its lender's score", () => {
  const weights = [1, 2, 3];

  it('is all of it for a line holding none of the lender\'s words ("她量了一下身高" after the line naming her)', () => {
    expect(referredShare(weights, [1, 0, 0], [0, 1, 0])).toBe(1);
    expect(referredShare(weights, [1, 0, 0], undefined)).toBe(1);
  });

  it("is the share of the lender's weight the line lacks: a word both hold counts once", () => {
    // The lender holds the first and third terms (1 + 3); the line holds the third.
    expect(referredShare(weights, [1, 0, 1], [0, 0, 1])).toBeCloseTo(1 / 4, 10);
    expect(referredShare(weights, [1, 0, 1], [1, 0, 1])).toBe(0);
  });

  it("is nothing from a lender holding no question word", () => {
    expect(referredShare(weights, [0, 0, 0], [0, 0, 0])).toBe(0);
  });
});

describe("the part of a dialogue's share lent along a log", () => {
  it("is half for a neighbour that adds nothing, all of it for one that completes the question", () => {
    expect(logMeasure(0)).toBe(LOG_SHARE_FLOOR);
    expect(LOG_SHARE_FLOOR).toBe(0.5);
    expect(logMeasure(1)).toBe(1);
    expect(logMeasure(0.6)).toBeCloseTo(0.8, 10);
  });
});

describe("a row's score after spreading", () => {
  it("adds a log loan only up to just below the best log lender", () => {
    expect(liftBelowLender(2, 3, 10)).toBe(5);
    expect(liftBelowLender(2, 30, 10)).toBeCloseTo(10 * BELOW_LENDER, 10);
  });

  it("never takes a row's own score (or its dialogue loans) down", () => {
    expect(liftBelowLender(12, 5, 10)).toBe(12);
    expect(liftBelowLender(9.995, 5, 10)).toBe(9.995);
  });
});

describe("the text the second stage reads for a line pointing back", () => {
  const text = new Map([
    ["named", "我表姐叫刘洋。"],
    ["pointing", "她爱吃寿司。"],
    ["other", "晚上看了一部电影。"],
  ]);

  it("is its own text first, then the line it points at (a long one would be cut, not the line)", () => {
    const read = withReferents(text, new Map([["pointing", "named"]]));
    expect(read.get("pointing")).toBe("她爱吃寿司。\n我表姐叫刘洋。");
    expect(read.get("named")).toBe("我表姐叫刘洋。");
    expect(read.get("other")).toBe("晚上看了一部电影。");
  });

  it("is its own text alone when the line it points at was not read back", () => {
    expect(withReferents(text, new Map([["pointing", "gone"]])).get("pointing")).toBe("她爱吃寿司。");
  });
});
