import { describe, expect, it } from "vitest";
import { isOwnWord, isQueryWord, queryTerms } from "~/server/memory/retrieval/query-terms";
import { questionFocus } from "~/server/memory/retrieval/question-focus";
import { rankingFeaturesWithout } from "~/server/memory/retrieval/ranking-features";

const weightOf = (text: string, term: string, features = undefined as Parameters<typeof queryTerms>[1]) =>
  queryTerms(text, features).find((t) => t.term === term)?.weight;

describe("the question a query ends with", () => {
  it("is the final sentence when it asks and something comes before it", () => {
    expect(questionFocus("哎，今天有点累。晚上加班到很晚，好累，你觉得呢？吴晓东今年多大了？")).toBe(
      "吴晓东今年多大了?", // read after NFKC: ？ is ?
    );
    expect(questionFocus("I'm tired today. Anyway, when did Caroline go to the group?")).toBe(
      "Anyway, when did Caroline go to the group?",
    );
    expect(questionFocus("Bart: 你好。\nBart: 对了，我要穿什么好呢？")).toBe("Bart: 对了,我要穿什么好呢?");
  });

  it("is found past closing quotes, '?!', an emoji, an ellipsis or a full-width stop", () => {
    expect(questionFocus("他说：“今天很累。”“吴晓东多大了？”")).toBe("吴晓东多大了?");
    expect(questionFocus("今天好累。吴晓东多大了？！")).toBe("吴晓东多大了?");
    expect(questionFocus("今天好累……吴晓东多大了？😀")).toBe("吴晓东多大了?");
    expect(questionFocus("今天好累．吴晓东多大了?")).toBe("吴晓东多大了?");
    expect(questionFocus("I was tired... Where is Tim?")).toBe("Where is Tim?");
  });

  it("does not end a sentence at an abbreviation's dot or at a '?' inside a link", () => {
    expect(questionFocus("Would Caroline likely have Dr. Seuss books on her bookshelf?")).toBeUndefined();
    expect(questionFocus("Would Tim enjoy reading books by C. S. Lewis?")).toBeUndefined();
    expect(questionFocus("What areas of the U.S. has John been to?")).toBeUndefined();
    expect(questionFocus("I like J.K. Rowling. Has Tim read her?")).toBe("Has Tim read her?");
    expect(questionFocus("see https://example.org/a?b=1 what is this?")).toBeUndefined();
  });

  it("is nothing after a question about what was just said: the lead-in is the question", () => {
    expect(questionFocus("我们去年在三亚结婚了。你还记得吗？")).toBeUndefined();
    expect(questionFocus("今天好累。对吧？")).toBeUndefined();
    expect(questionFocus("Bart: 我们去了三亚。\nBart: 嗯，你还记得吗？")).toBeUndefined();
    expect(questionFocus("We went to Hawaii. Do you remember?")).toBeUndefined();
    expect(questionFocus("I went to Hawaii. What do you think?")).toBeUndefined();
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
    // It still counts in the query's size (the second hop's and the trigram fallback's bounds).
    expect(isQueryWord(lead)).toBe(true);
  });

  it("weigh half in translation too, where the question's own translations keep their weight", () => {
    const translated = queryTerms("我女儿今天很开心。她喜欢什么运动？").filter((t) => t.translated);
    expect(translated.find((t) => t.term === "daught")).toMatchObject({ weight: 0.5, lead: true });
    expect(translated.find((t) => t.term === "sport")).toMatchObject({ weight: 1 });
    expect(translated.find((t) => t.term === "sport")?.lead).toBeUndefined();
  });

  it("keep their weight where the question repeats them, and without the feature", () => {
    expect(weightOf("我同事吴晓东很忙。吴晓东今年多大了？", "晓东")).toBe(1);
    expect(weightOf(noisy, "加班", rankingFeaturesWithout(["questionFocus"]))).toBe(1);
  });

  it("leave the question's words in when a long query's term cap would cut them off", () => {
    const lead = Array.from({ length: 300 }, (_, i) => `topic${i}`).join(" ");
    const terms = queryTerms(`${lead}. Where does Caroline volunteer?`);
    expect(terms.find((t) => t.term === "topic0")?.weight).toBe(0.5);
    for (const word of ["carolin", "volunte"]) expect(terms.find((t) => t.term === word)?.weight).toBe(1);
    // Without the focus the cap keeps the first 256 words only.
    const unfocused = queryTerms(`${lead}. Where does Caroline volunteer?`, rankingFeaturesWithout(["questionFocus"]));
    expect(unfocused.some((t) => t.term === "carolin")).toBe(false);
  });

  it("keep their weight when the question has no word of its own", () => {
    // "为什么？" asks nothing the memory could hold: the sentence before it is the question.
    expect(weightOf("我同事吴晓东最近总是加班。为什么？", "加班")).toBe(1);
    expect(weightOf("My colleague works late every day. Why?", "late")).toBe(1);
  });
});
