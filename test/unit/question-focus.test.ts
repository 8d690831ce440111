import { describe, expect, it } from "vitest";
import { isOwnWord, queryTerms } from "~/server/memory/retrieval/query-terms";
import { questionFocus } from "~/server/memory/retrieval/question-focus";
import { rankingFeaturesWithout } from "~/server/memory/retrieval/ranking-features";

const weightOf = (text: string, term: string, features = undefined as Parameters<typeof queryTerms>[1]) =>
  queryTerms(text, features).find((t) => t.term === term)?.weight;

describe("the question a query ends with", () => {
  it("is the final sentence when it asks and something comes before it", () => {
    expect(questionFocus("哎，今天有点累。晚上加班到很晚，好累，你觉得呢？吴晓东今年多大了？")).toBe(
      "吴晓东今年多大了？",
    );
    expect(questionFocus("I'm tired today. Anyway, when did Caroline go to the group?")).toBe(
      "Anyway, when did Caroline go to the group?",
    );
    expect(questionFocus("Bart: 你好。\nBart: 对了，我要穿什么好呢？")).toBe("Bart: 对了，我要穿什么好呢？");
  });

  it("is nothing for a single question, a query that does not ask, or a dot inside a word", () => {
    expect(questionFocus("吴晓东今年多大了？")).toBeUndefined();
    expect(questionFocus("When did Caroline go to the group?")).toBeUndefined();
    expect(questionFocus("我今天很累。我想休息。")).toBeUndefined();
    expect(questionFocus("Is v1.2 out?")).toBeUndefined();
    expect(questionFocus("？？")).toBeUndefined();
  });
});

describe("words of the lead-in before a query's question", () => {
  const noisy = "哎，今天有点累。晚上加班到很晚，好累。吴晓东今年多大了？";

  it("weigh half and are not the question's own words", () => {
    expect(weightOf(noisy, "加班")).toBe(0.5);
    expect(weightOf(noisy, "晓东")).toBe(1);
    expect(weightOf(noisy, "今年")).toBe(1);
    const lead = queryTerms(noisy).find((t) => t.term === "加班")!;
    expect(lead.lead).toBe(true);
    expect(isOwnWord(lead)).toBe(false);
  });

  it("keep their weight where the question repeats them, and without the feature", () => {
    expect(weightOf("我同事吴晓东很忙。吴晓东今年多大了？", "晓东")).toBe(1);
    expect(weightOf(noisy, "加班", rankingFeaturesWithout(["questionFocus"]))).toBe(1);
  });

  it("keep their weight when the question has no word of its own", () => {
    // "为什么？" asks nothing the memory could hold: the sentence before it is the question.
    expect(weightOf("我同事吴晓东最近总是加班。为什么？", "加班")).toBe(1);
    expect(weightOf("My colleague works late every day. Why?", "late")).toBe(1);
  });
});
