import { describe, expect, it } from "vitest";
import { queryTerms } from "~/server/memory/retrieval/query-terms";
import {
  askedWeights,
  reorderBySecondStage,
  secondStageFeatures,
  secondStageScore,
  termWeights,
  tokenize,
} from "~/server/memory/retrieval/second-stage";

const df = (question: string, value: number) => queryTerms(question).map(() => value);

describe("second stage", () => {
  it("tokenizes CJK by character and other scripts by word", () => {
    expect(tokenize("我的猫 Luna likes tuna-fish 2024")).toEqual([
      "我",
      "的",
      "猫",
      "luna",
      "likes",
      "tuna",
      "fish",
      "2024",
    ]);
  });

  it("scores coverage as the IDF-weighted share of the query's terms a text holds", () => {
    const question = "red bicycle garage";
    const terms = queryTerms(question);
    const all = secondStageFeatures(question, terms, df(question, 1), 100, "the red bicycle is in the garage");
    const some = secondStageFeatures(question, terms, df(question, 1), 100, "a red car in the garage");
    const none = secondStageFeatures(question, terms, df(question, 1), 100, "nothing here");
    expect(all.coverage).toBeCloseTo(1, 5);
    expect(some.coverage).toBeGreaterThan(0);
    expect(some.coverage).toBeLessThan(all.coverage);
    expect(none).toEqual({ coverage: 0, proximity: 0, phrase: 0, answerType: 0 });
  });

  it("counts the kin terms a group word brings only where the scope holds them", () => {
    const question = "我妈那边的亲戚住在哪？";
    const terms = queryTerms(question);
    // Every term in some rows, except the kin terms, of which the scope holds 舅舅 alone.
    const held = terms.map((term) => (!term.kin ? 5 : term.term === "舅舅" ? 2 : 0));
    const everyKin = terms.map(() => 5);
    const line = "我舅舅住在昆明。";
    const counted = secondStageFeatures(question, terms, held, 100, line).coverage;
    // Had the kin terms the scope lacks been counted, they would shrink every line's coverage.
    const diluted = secondStageFeatures(question, terms, everyKin, 100, line).coverage;
    expect(counted).toBeGreaterThan(2 * diluted);
    // The kin term counts: the line holds more of the question than the same line with a stranger.
    const stranger = secondStageFeatures(question, terms, held, 100, "我同事住在昆明。").coverage;
    expect(counted).toBeGreaterThan(stranger);
  });

  it("a rare term counts for more coverage than a common one", () => {
    const question = "violin lessons";
    const terms = queryTerms(question);
    const frequencies = terms.map((t) => (t.term.startsWith("violin") ? 1 : 60));
    const rare = secondStageFeatures(question, terms, frequencies, 100, "she plays the violin");
    const common = secondStageFeatures(question, terms, frequencies, 100, "piano lessons on monday");
    expect(rare.coverage).toBeGreaterThan(common.coverage);
  });

  it("rewards terms standing together, and weights a phrase by the rarity of the terms inside it, in Chinese too", () => {
    const question = "姐姐的丈夫做什么工作";
    const terms = queryTerms(question);
    const near = secondStageFeatures(question, terms, df(question, 2), 200, "我姐姐的丈夫在银行工作。");
    const far = secondStageFeatures(
      question,
      terms,
      df(question, 2),
      200,
      "姐姐昨天来了，说起她们公司，还有她丈夫，我们聊到工作。",
    );
    expect(near.proximity).toBeGreaterThan(far.proximity);
    expect(near.phrase).toBeGreaterThan(0);
    expect(far.phrase).toBe(0);
    // The same run of characters counts for less when its terms are common in the scope.
    const common = secondStageFeatures(
      question,
      terms,
      terms.map((t) => (t.term.includes("姐") || t.term.includes("丈") ? 150 : 2)),
      200,
      "我姐姐的丈夫在银行工作。",
    );
    expect(common.phrase).toBeLessThan(near.phrase);
  });

  it("lifts, never lowers, the first stage's score, and reorders candidates with the features as parts", () => {
    expect(
      secondStageScore(
        0.5,
        { coverage: 0, proximity: 0, phrase: 0, answerType: 0 },
        { coverage: 1, proximity: 1, phrase: 1, answerType: 1, join: 1 },
      ),
    ).toBe(0.5);
    const question = "what did Caroline adopt from the shelter";
    const terms = queryTerms(question);
    const ordered = reorderBySecondStage(question, terms, df(question, 3), 300, [
      { id: "a", score: 10, text: "Caroline: the shelter was busy today; I also want to adopt better habits" },
      { id: "b", score: 9, text: "Caroline: we adopted a puppy, Caroline said, shelter dogs are the best" },
      { id: "c", score: 8.5, text: "Caroline adopted a shelter kitten" },
      { id: "d", score: 2, text: "nothing of the kind" },
    ]);
    expect(ordered.map((r) => r.id)).toEqual(["c", "a", "b", "d"]);
    expect(ordered[0]!.features.proximity).toBeGreaterThan(ordered[1]!.features.proximity);
    expect(ordered[3]!.features).toEqual({ coverage: 0, proximity: 0, phrase: 0, answerType: 0 });
  });

  it("computes the phrase only when it is weighted", () => {
    const question = "paint the sunrise";
    const terms = queryTerms(question);
    const candidates = [{ id: "a", score: 1, text: "I paint the sunrise" }];
    expect(reorderBySecondStage(question, terms, df(question, 1), 10, candidates)[0]!.features.phrase).toBe(0);
    expect(
      reorderBySecondStage(question, terms, df(question, 1), 10, candidates, {
        coverage: 0,
        proximity: 0,
        phrase: 1,
        answerType: 0,
        join: 0,
      })[0]!.features.phrase,
    ).toBeCloseTo(1, 5);
  });
});

describe("a question that names something, after a lead-in", () => {
  const noisy = "今天好冷，工作群消息一直响。对了，陈海峰是做什么的？";
  const terms = queryTerms(noisy);
  // 陈海 and 海峰 in 2 of 2,000 rows (a name), every other term in 200.
  const df = terms.map((t) => (t.term === "陈海" || t.term === "海峰" ? 2 : 200));
  const candidates = [
    { id: "chatter", score: 1, text: "今天好冷，工作群消息一直响。" },
    { id: "answer", score: 0.7, text: "我高中同学陈海峰是快递员。" },
  ];

  it("reads the lead-in's words at 0 only when the question holds a rare word", () => {
    const lead = terms.map((t) => t.lead === true);
    expect(lead.some(Boolean)).toBe(true);
    const named = askedWeights(terms, df, 2000);
    expect(named.filter((_, i) => lead[i]).every((w) => w === 0)).toBe(true);
    expect(named.filter((_, i) => !lead[i]).some((w) => w > 0)).toBe(true);
    // The name common in this scope (in 200 of 2,000 rows): nothing is named, the lead-in counts.
    const common = askedWeights(
      terms,
      terms.map(() => 200),
      2000,
    );
    expect(common.filter((_, i) => lead[i]).every((w) => w > 0)).toBe(true);
    // A word in no row names nothing the memory holds.
    const absent = askedWeights(
      terms,
      df.map((d) => (d === 2 ? 0 : d)),
      2000,
    );
    expect(absent.filter((_, i) => lead[i]).every((w) => w > 0)).toBe(true);
  });

  it("ranks the line about what is named above a line repeating the lead-in", () => {
    const on = reorderBySecondStage(noisy, terms, df, 2000, candidates, undefined, undefined, { namedFocus: true });
    expect(on.map((r) => r.id)).toEqual(["answer", "chatter"]);
    expect(on.find((r) => r.id === "chatter")!.features.coverage).toBe(0);
    const off = reorderBySecondStage(noisy, terms, df, 2000, candidates);
    expect(off.map((r) => r.id)).toEqual(["chatter", "answer"]);
  });

  it("keeps the lead-in when only the lead-in names something rare", () => {
    const query = "我表哥叫杨少华。表哥是做什么的？";
    const own = queryTerms(query);
    expect(own.some((t) => t.lead && (t.term === "杨少" || t.term === "少华"))).toBe(true);
    const d = own.map((t) => (t.term === "杨少" || t.term === "少华" ? 2 : 200));
    expect(askedWeights(own, d, 2000)).toEqual(termWeights(own, d, 2000));
  });

  it("changes nothing for a query without a lead-in", () => {
    const plain = "陈海峰是做什么的？";
    const own = queryTerms(plain);
    expect(own.some((t) => t.lead)).toBe(false);
    const d = own.map((t) => (t.term === "陈海" || t.term === "海峰" ? 2 : 200));
    expect(askedWeights(own, d, 2000)).toEqual(termWeights(own, d, 2000));
  });
});

describe("second stage cost", () => {
  it("stays bounded on a question of nested prefixes against a text repeating the word", () => {
    const word = "abcdefghijklmnopqrstuvwxyzabcdefghijklmn";
    const question = Array.from({ length: 32 }, (_, i) => word.slice(0, 4 + i)).join(" ");
    const terms = queryTerms(question);
    const text = `${word} `.repeat(2500);
    const started = performance.now();
    const ordered = reorderBySecondStage(
      question,
      terms,
      terms.map(() => 1),
      100,
      Array.from({ length: 50 }, (_, i) => ({ id: String(i), score: 1, text })),
    );
    const ms = performance.now() - started;
    expect(ordered).toHaveLength(50);
    expect(ordered[0]!.features.coverage).toBeGreaterThan(0);
    // Unbounded, this took over a second per candidate; bounded, all fifty take a few milliseconds.
    expect(ms).toBeLessThan(2000);
  });
});

describe("a line repeating the lead-in", () => {
  const query = "报销单又被退回来了。刚看完一部电影！哦对，我哥现在在哪儿生活？";
  const terms = queryTerms(query);
  const df = terms.map(() => 20);
  const candidates = [
    { id: "echo", score: 1, text: "报销单又被退回来了，刚看完一部电影。" },
    { id: "cousin", score: 0.3, text: "表姐现在在北京生活。" },
    { id: "brother", score: 0.2, text: "我哥一家都在郑州。" },
  ];
  const rank = (list: readonly { id: string; score: number; text: string }[], leadInEcho: boolean) =>
    reorderBySecondStage(query, terms, df, 2000, list, undefined, undefined, { leadInEcho }).map((r) => r.id);
  /** An English query's candidates in order, every term in 5 of 500 rows. */
  const rankEnglish = (
    text: string,
    list: readonly { id: string; score: number; text: string }[],
    leadInEcho: boolean,
  ) => {
    const own = queryTerms(text);
    return reorderBySecondStage(
      text,
      own,
      own.map(() => 5),
      500,
      list,
      undefined,
      undefined,
      { leadInEcho },
    ).map((r) => r.id);
  };

  it("keeps only the question's share of its score when it holds no word of the question", () => {
    expect(rank(candidates, false)[0]).toBe("echo");
    expect(rank(candidates, true)).toEqual(["cousin", "brother", "echo"]);
  });

  it("is left alone when no candidate holds a word of the question (the lead-in is what it is about)", () => {
    const none = [candidates[0]!, { id: "city", score: 0.2, text: "郑州的房价又涨了。" }];
    expect(rank(none, true)).toEqual(["echo", "city"]);
    expect(rank(none, false)).toEqual(["echo", "city"]);
  });

  it("is not looked for in a pasted dialogue, whose stored turns may repeat its lines and hold the answer", () => {
    const pasted =
      "Bart: I went hiking with my sister last weekend at the lake.\nAssistant: Sounds lovely!\nBart: What was the name of the trail?";
    const list = [
      {
        id: "turn",
        score: 1,
        text: "I went hiking with my sister last weekend at the lake. We took the Pine Ridge path.",
      },
      { id: "dog", score: 0.4, text: "What a name for a dog!" },
    ];
    const order = (leadInEcho: boolean) => rankEnglish(pasted, list, leadInEcho);
    expect(order(true)).toEqual(order(false));
    expect(order(true)[0]).toBe("turn");
  });

  it("is a clause held verbatim, not a few shared words, in English too", () => {
    const english = "I'm so tired after work today. Anyway, where does Caroline volunteer?";
    const list = [
      { id: "echo", score: 1, text: "I'm so tired after work today, honestly." },
      { id: "words", score: 0.9, text: "Work was tiring today, so tired." },
      { id: "answer", score: 0.2, text: "Caroline volunteers at the shelter." },
    ];
    const order = (leadInEcho: boolean) => rankEnglish(english, list, leadInEcho);
    expect(order(false)[0]).toBe("echo");
    const on = order(true);
    expect(on.indexOf("echo")).toBe(2);
    expect(on.indexOf("words")).toBeLessThan(on.indexOf("echo"));
  });
});
