import { describe, expect, it } from "vitest";
import {
  firstUserTurns,
  keyTerms,
  keyTermShare,
  lcsLength,
  rouge1,
  rougeL,
  scoreExtraction,
  tokenF1,
  tokens,
  topScoredTurns,
} from "../../bench/lib/formation-metrics";

describe("memory-formation metrics", () => {
  it("tokenizes as SQuAD's F1 does, one token per Chinese character", () => {
    expect(tokens("The cat, a dog & an owl!")).toEqual(["cat", "dog", "owl"]);
    expect(tokens("Caroline's plan")).toEqual(["caroline", "plan"]);
    expect(tokens("预算5万")).toEqual(["预", "算", "5", "万"]);
  });

  it("computes token F1 with clipped counts", () => {
    expect(tokenF1("cat cat cat", "cat dog")).toBeCloseTo((2 * 1) / 5, 6);
    expect(tokenF1("Caroline went to a support group", "Caroline attended an LGBTQ support group")).toBeCloseTo(
      (2 * 3) / (5 + 5),
      6,
    );
    expect(tokenF1("", "anything")).toBe(0);
    expect(tokenF1("same words", "same words")).toBe(1);
  });

  it("computes ROUGE-1 and ROUGE-L F1", () => {
    expect(lcsLength(["a", "b", "c", "d"], ["b", "d", "c"])).toBe(2);
    // candidate "police killed gunman", reference "police kill the gunman" (the → dropped)
    expect(rouge1("police killed gunman", "police kill the gunman")).toBeCloseTo((2 * 2) / 6, 6);
    expect(rougeL("gunman police killed", "police kill the gunman")).toBeCloseTo((2 * 1) / 6, 6);
    expect(rougeL("police kill gunman", "police kill the gunman")).toBe(1);
  });

  it("finds key terms (names, places, numbers, months) and the share of sentences whose terms a summary keeps", () => {
    expect(keyTerms("Caroline and Melanie met in Boston on 8 May 2023.").sort()).toEqual([
      "2023",
      "8",
      "boston",
      "caroline",
      "may",
      "melanie",
    ]);
    expect(keyTerms("They talked about painting.")).toEqual([]);
    expect(keyTerms("预算5万，住西湖边。")).toContain("5万");
    const reference = "Caroline went to Boston. Melanie paints. They talked.";
    expect(keyTermShare("Caroline was in Boston last week.", reference)).toBeCloseTo(1 / 2, 6);
    expect(keyTermShare("anything", "no capitals here.")).toBeNull();
  });

  it("scores extraction: recall needs the cited turn and the content, precision the cited turn", () => {
    const observations = [
      { text: "Caroline is planning to continue her education in counseling.", turnId: "D1:9", speaker: "Caroline" },
      { text: "Melanie painted a lake sunrise last year.", turnId: "D1:14", speaker: "Melanie" },
    ];
    const cards = [
      {
        id: "c1",
        kindCategory: "plans",
        text: "Caroline plans to continue her education in counseling",
        turnIds: ["D1:9"],
      },
      // Right content, wrong turn: not recalled, not supported.
      { id: "c2", kindCategory: "activities", text: "Melanie painted a lake sunrise last year", turnIds: ["D1:3"] },
      // Right turn, unrelated content: supported (precision) but no recall.
      { id: "c3", kindCategory: "activities", text: "likes swimming", turnIds: ["D1:14"] },
    ];
    const score = scoreExtraction(observations, cards, 50);
    expect(score).toMatchObject({
      observations: 2,
      recalled: 1,
      recall: 0.5,
      cards: 3,
      supported: 2,
      precision: 0.667,
      cardsPer100Turns: 6,
    });
    expect(score.byKindCategory).toEqual({
      plans: { cards: 1, supported: 1, precision: 1, observationsStated: 1 },
      activities: { cards: 2, supported: 1, precision: 0.5, observationsStated: 0 },
    });
    expect(scoreExtraction([], [], 0)).toMatchObject({ recall: 0, precision: 0, cardsPer100Turns: 0 });
  });

  it("builds the two trivial baselines", () => {
    const turns = [
      { role: "assistant", content: "hello" },
      { role: "user", content: "one" },
      { role: "user", content: "two budget" },
      { role: "user", content: "three" },
      { role: "user", content: "four budget budget" },
    ];
    expect(firstUserTurns(turns)).toBe("one\ntwo budget\nthree");
    const score = (text: string) => text.split("budget").length - 1;
    expect(topScoredTurns(turns, score, 2)).toBe("two budget\nfour budget budget");
  });
});
