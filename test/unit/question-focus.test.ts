import { describe, expect, it } from "vitest";
import { asksSomething, isOwnWord, isQueryWord, queryTerms } from "~/server/memory/retrieval/query-terms";
import { questionFocus } from "~/server/memory/retrieval/question-focus";
import { rankingFeaturesWithout } from "~/server/memory/retrieval/ranking-features";

const weightOf = (text: string, term: string, features = undefined as Parameters<typeof queryTerms>[1]) =>
  queryTerms(text, features).find((t) => t.term === term)?.weight;

/** Each query and the question found in it (read after NFKC: ？ is ?), or undefined for none. */
const expectFocus = (cases: [string, string | undefined][]) => {
  for (const [query, focus] of cases) expect(questionFocus(query, asksSomething), query).toBe(focus);
};

describe("the question a query ends with", () => {
  it("is the final sentence when it asks and something comes before it", () =>
    expectFocus([
      ["哎，今天有点累。晚上加班到很晚，好累，你觉得呢？吴晓东今年多大了？", "吴晓东今年多大了?"],
      ["I'm tired today. Anyway, when did Caroline go to the group?", "Anyway, when did Caroline go to the group?"],
      ["Bart: 你好。\nBart: 对了，我要穿什么好呢？", "Bart: 对了,我要穿什么好呢?"],
    ]));

  it("is found past closing quotes, '?!', an emoji, an ellipsis or a full-width stop", () =>
    expectFocus([
      ["他说：“今天很累。”“吴晓东多大了？”", "吴晓东多大了?"],
      ["今天好累。吴晓东多大了？！", "吴晓东多大了?"],
      ["今天好累……吴晓东多大了？😀", "吴晓东多大了?"],
      ["今天好累．吴晓东多大了?", "吴晓东多大了?"],
      ["I was tired... Where is Tim?", "Where is Tim?"],
    ]));

  it("does not end a sentence at an abbreviation's dot or at a '?' inside a link", () =>
    expectFocus([
      ["Would Caroline likely have Dr. Seuss books on her bookshelf?", undefined],
      ["Would Tim enjoy reading books by C. S. Lewis?", undefined],
      ["What areas of the U.S. has John been to?", undefined],
      ["I like J.K. Rowling. Has Tim read Harry Potter?", "Has Tim read Harry Potter?"],
      ["Does Caroline have a Ph.D. in psychology?", undefined],
      ["What does Apple Inc. sell in Europe?", undefined],
      ["What happened to Melanie on Jan. 5 at the lake?", undefined],
      ["The answer was no. Where did Tim go?", "Where did Tim go?"],
      ["see https://example.org/a?b=1 what is this?", undefined],
    ]));

  it("ends a sentence at a line break only where a new one starts, and always at a full-width ？", () =>
    expectFocus([
      ["What did Caroline\npaint last summer?", undefined],
      ["哎，今天有点累？Caroline喜欢什么？", "Caroline喜欢什么?"],
      ["今天好累。吴晓东多大了？～", "吴晓东多大了?"],
    ]));

  it("is nothing after a question about what was just said: the lead-in is the question", () =>
    expectFocus(
      [
        "我们去年在三亚结婚了。你还记得吗？",
        "今天好累。对吧？",
        "Bart: 我们去了三亚。\nBart: 嗯，你还记得吗？",
        "We went to Hawaii. Do you remember?",
        "I went to Hawaii. What do you think?",
        "我们去年在三亚结婚了。你還記得嗎？",
        "我们去年在三亚结婚了。那么，你还记得吗？",
        "发生了一件事。后来呢？",
        // A pronoun points back at what the lead-in names.
        "我舅舅叫吴晓东。他今年多大了？",
        "Caroline went to a support group. When did she go?",
      ].map((query) => [query, undefined]),
    ));

  it("is nothing for a single question, a query that does not ask, or a dot inside a word", () =>
    expectFocus(
      [
        "吴晓东今年多大了？",
        "When did Caroline go to the group?",
        "我今天很累。我想休息。",
        "Is v1.2 out?",
        "？？",
      ].map((query) => [query, undefined]),
    ));
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
    const translated = queryTerms("今天吃了蛋糕。小米喜欢什么运动？").filter((t) => t.translated);
    expect(translated.find((t) => t.term === "cake")).toMatchObject({ weight: 0.5, lead: true });
    expect(translated.find((t) => t.term === "sport")).toMatchObject({ weight: 1 });
    expect(translated.find((t) => t.term === "sport")?.lead).toBeUndefined();
    // A lead-in word the question asks in the other language keeps its weight.
    expect(weightOf("My daughter is happy. 我女儿喜欢什么运动？", "daught")).toBe(1);
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

  it("take in the question before one that asks nothing of its own, on the same line", () => {
    // "有几个？" follows on from "赵建平有孩子吗？": the name and 孩子 are asked, the chit-chat is the lead-in.
    const twice = "晚上吃了麻辣香锅！问你个事，赵建平有孩子吗？有几个？";
    for (const word of ["赵建", "建平", "孩子"]) expect(weightOf(twice, word), word).toBe(1);
    expect(weightOf(twice, "麻辣")).toBe(0.5);
    expect(weightOf("I had a long day. Does Mel have kids? How many?", "kids")).toBe(1);
    expect(weightOf("I had a long day. Does Mel have kids? How many?", "long")).toBe(0.5);
    // A question with words of its own stands alone; a question on the line before is another turn.
    expect(weightOf("你好吗？陈海峰住在哪里？", "你好")).toBe(0.5);
    expect(weightOf("Bart: 赵建平有孩子吗？\nBart: 有几个？", "孩子")).toBe(1);
    expect(questionFocus("Bart: 赵建平有孩子吗？\nBart: 有几个？", asksSomething)).toBe("Bart: 有几个?");
    // A tag question after a question asks about that question, not about the lead-in.
    expect(weightOf("今天好累。赵建平有孩子吗？对吧？", "孩子")).toBe(1);
    expect(weightOf("今天好累。赵建平有孩子吗？对吧？", "好累")).toBe(0.5);
    // Any other word after "how" is a word of the question.
    expect(questionFocus("I had a long day. Where is Mel? How Caroline?", asksSomething)).toBe("How Caroline?");
    // A long run of spaces before the question is read in linear time.
    const spaced = `今天好累。赵建平有孩子吗？${" ".repeat(40_000)}有几个？`;
    const started = performance.now();
    expect(questionFocus(spaced, asksSomething)).toContain("赵建平");
    expect(performance.now() - started).toBeLessThan(500);
  });

  it("keep their weight when the question has no word of its own", () => {
    // "为什么？" asks nothing the memory could hold: the sentence before it is the question.
    expect(weightOf("我同事吴晓东最近总是加班。为什么？", "加班")).toBe(1);
    expect(weightOf("My colleague works late every day. Why?", "late")).toBe(1);
    expect(weightOf("We talked about the party. Where?", "part")).toBe(1);
    expect(weightOf("Bart: 我舅舅最近总加班。\nBart: 为什么？", "加班")).toBe(1);
  });
});
