import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { MemoryCard } from "~/server/memory/store/card-view";
import { compareForConflict, conflictKey, resolveConflicts } from "~/server/memory/retrieval/conflicts";
import { selectWithinBudget, type ContextItem, type SectionName } from "~/server/memory/retrieval/context-render";
import { boostedScore, reciprocalRankFusion, relativeFloor } from "~/server/memory/retrieval/fusion";
import { rankLexically } from "~/server/memory/retrieval/lexical-score";
import { isListAllQuery } from "~/server/memory/retrieval/list-all";
import { anyTermTsQuery, queryTerms, termTsQuery } from "~/server/memory/retrieval/query-terms";
import { narrowReadScopes, turnScopes } from "~/server/memory/retrieval/read-scopes";
import { rankingFeaturesWithout } from "~/server/memory/retrieval/ranking-features";
import { bm25Scores } from "~/server/memory/retrieval/bm25";
import {
  countJoinedLines,
  countLineTokens,
  countTokens,
  startsNewPiece,
  textHash,
  truncateToTokens,
} from "~/server/text/token-count";
import { parseScopePattern } from "~/server/memory/scope";

const NOW = new Date("2026-01-10T12:00:00Z");

function card(overrides: Partial<MemoryCard> = {}): MemoryCard {
  return {
    id: "mem_a",
    scope: "user:u1",
    kind: "language_preference",
    key: "preference.language",
    itemKey: null,
    domain: "preference",
    categoryPath: ["preference", "language"],
    type: "preference",
    valueJson: "zh",
    title: "Language",
    content: "Answer in Chinese.",
    status: "active",
    revision: 1,
    lineageId: "mem_a",
    supersedesId: null,
    supersededById: null,
    confidence: 0.9,
    importance: 0.8,
    tags: [],
    entities: [],
    sourceMessageIds: [],
    explicitUserIntent: true,
    redacted: false,
    createdBy: { type: "api_key", id: "k" },
    updatedBy: { type: "api_key", id: "k" },
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
    expiresAt: null,
    endedAt: null,
    ...overrides,
  };
}

describe("list-all phrasing", () => {
  it.each([
    "列出所有记忆",
    "我的全部记忆",
    "列出我的所有记忆。",
    "请列出你记住的所有东西",
    "你都记得我什么？",
    "显示全部记忆",
    "show all my memories",
    "Show all my memories.",
    "list everything you remember",
    "List all memories",
    "show me everything you know about me",
    "What do you remember about me?",
    "all my memories",
    "列出我所有的记忆",
    "我所有的记忆",
    "把我的记忆都列出来",
    "你还记得我什么",
    "我的记忆",
    "列出所有記憶",
    "你記得我什麼",
    "list my memories",
    "show my memories",
    "What memories do you have about me?",
  ])("enumerates for %s", (text) => expect(isListAllQuery(text)).toBe(true));
  it.each([
    "show all my memories about cooking",
    "列出所有关于做饭的记忆",
    "香菜",
    "我不吃香菜",
    "show all",
    "list all tasks",
    "what is my name",
    "remember that I like tea",
    "everything",
    "",
    "all",
    "我的记忆力不好",
    "show my notes about Rust",
    "what memories of Paris do you have",
    "把香菜都列出来",
  ])("searches for %s", (text) => expect(isListAllQuery(text)).toBe(false));
});

describe("query terms", () => {
  it("stems Latin words into prefixes and drops function words", () => {
    expect(queryTerms("When did Melanie paint the sunrises?").filter((t) => !t.translated)).toEqual([
      { term: "melani", prefix: true, weight: 1 },
      { term: "paint", prefix: true, weight: 1 },
      { term: "sunris", prefix: true, weight: 1 },
    ]);
  });
  it("adds CJK single characters at a lower weight next to words and bigrams", () => {
    const terms = queryTerms("不吃香菜").filter((t) => !t.translated);
    expect(terms.filter((t) => t.weight === 1).map((t) => t.term)).toEqual(["不吃", "香菜", "吃香"]);
    expect(terms.filter((t) => t.weight < 1).map((t) => t.term)).toEqual(["吃", "香", "菜"]);
    expect(terms.filter((t) => t.weight < 1).every((t) => t.idfScaled)).toBe(true);
  });
  it("adds bigrams of content characters across word boundaries, none with a function character", () => {
    const terms = queryTerms("我姐姐的丈夫是做什么工作的").map((t) => t.term);
    expect(terms).toEqual(expect.arrayContaining(["姐姐", "丈夫", "工作"]));
    expect(terms).not.toContain("什么");
    expect(terms).not.toContain("我姐");
    expect(terms).not.toContain("的丈");
    expect(queryTerms("姐姐夫妇").map((t) => t.term)).toEqual(expect.arrayContaining(["姐夫"]));
    // Switched off (the benchmark's ablation), only dictionary words and their bigrams remain.
    expect(queryTerms("姐姐夫妇", rankingFeaturesWithout(["cjkRunBigrams"])).map((t) => t.term)).not.toContain("姐夫");
  });
  it("drops Chinese question words as English ones (who, where, how many) are dropped", () => {
    const terms = queryTerms("谁送了我那束花？我们在哪里吃了几顿饭？").map((t) => t.term);
    expect(terms).toEqual(expect.arrayContaining(["送", "花", "吃", "饭"]));
    for (const word of ["谁", "哪里", "几"]) expect(terms).not.toContain(word);
  });
  it("brings a dropped question word back neither as a bigram across its boundary nor as its characters", () => {
    const terms = queryTerms("婚礼来了多少位客人？我养过哪些宠物？为什么").filter((t) => !t.translated);
    const words = terms.map((t) => t.term);
    expect(words).toEqual(expect.arrayContaining(["婚礼", "客人", "宠物", "位客", "宠"]));
    for (const fragment of ["多少", "少位", "多", "少", "哪些", "些宠", "些", "为什", "什", "为"])
      expect(words).not.toContain(fragment);
    // Inside a longer dictionary word too: 多少钱 keeps 钱, not 少钱.
    const price = queryTerms("那辆自行车花了多少钱？").map((t) => t.term);
    expect(price).toContain("钱");
    for (const fragment of ["少钱", "多少", "多", "少"]) expect(price).not.toContain(fragment);
    // Blanked where the word is, not where its characters meet across two words (很多|少年 … 多少人).
    const crowd = queryTerms("很多少年参加了比赛，有多少人？").map((t) => t.term);
    expect(crowd).toEqual(expect.arrayContaining(["很多", "少年", "多", "少"]));
    expect(crowd).not.toContain("少人");
    // The same characters in a content word still count: 多 and 少 of 多年 and 减少.
    expect(queryTerms("多年来减少").map((t) => t.term)).toEqual(expect.arrayContaining(["多", "少"]));
  });
  it("keeps a long pasted dialogue's later words (256 terms: 96 cut off its end, where the question is)", () => {
    const dialogue = Array.from(
      { length: 60 },
      (_, i) => `第${i}句话说到了话题${String.fromCharCode(0x4e00 + i * 7)}${String.fromCharCode(0x5e00 + i * 5)}。`,
    ).join("");
    const terms = queryTerms(`${dialogue}那么圣诞晚会跳舞呢`).map((t) => t.term);
    expect(terms.length).toBeLessThanOrEqual(256 + 128 + 40);
    expect(terms).toEqual(expect.arrayContaining(["跳舞"]));
  });
  it("bridges a Chinese word to a short English word's plural too, which no stem prefix reaches", () => {
    expect(queryTerms("我的狗").map((t) => t.term)).toEqual(expect.arrayContaining(["dog", "dogs"]));
    expect(queryTerms("猫").map((t) => t.term)).toEqual(expect.arrayContaining(["cat", "cats"]));
  });
  it("finds a short word's singular from its plural, which the stemmer keeps whole", () => {
    expect(queryTerms("pets").map((t) => t.term)).toEqual(expect.arrayContaining(["pets", "pet"]));
    expect(queryTerms("my dogs").map((t) => t.term)).toEqual(expect.arrayContaining(["dogs", "dog"]));
    expect(queryTerms("glass").map((t) => t.term)).not.toContain("glas");
  });
  it("adds the other language's words from CC-CEDICT, each marked as a translation", () => {
    expect(queryTerms("我女儿").map((t) => t.term)).toEqual(expect.arrayContaining(["女儿", "daught"]));
    expect(queryTerms("my daughter's birthday").map((t) => t.term)).toEqual(
      expect.arrayContaining(["daught", "女儿", "birthday", "生日"]),
    );
    // ICU's words, not greedy matching: 不吃香菜 is 不吃 / 香菜 (coriander), not 吃香 ("popular").
    const cilantro = queryTerms("不吃香菜").filter((t) => t.translated);
    expect(cilantro.map((t) => t.term)).toEqual(expect.arrayContaining(["coriand", "cilantro"]));
    expect(cilantro.map((t) => t.term)).not.toContain("popular");
    const english = queryTerms("kubernetes cluster upgrade");
    expect(english.filter((t) => !t.translated).map((t) => t.term)).toEqual(["kubernet", "clust", "upgrad"]);
    expect(english.filter((t) => t.translated).map((t) => t.term)).toEqual(expect.arrayContaining(["簇"]));
    // Function and question words bring nothing: their glosses match chit-chat in any language.
    expect(queryTerms("什么 的 了").filter((t) => t.translated)).toEqual([]);
  });
  it("quotes terms so input cannot inject tsquery operators", () => {
    expect(termTsQuery({ term: "o'brien", prefix: false, weight: 1 })).toBe("'o''brien'");
    expect(termTsQuery({ term: "paint", prefix: true, weight: 1 }, "A")).toBe("'paint':*A");
    expect(termTsQuery({ term: "香菜", prefix: true, weight: 1 })).toBe("'香菜'");
    expect(anyTermTsQuery(queryTerms("a & b | !c"))).not.toMatch(/[&!]/);
    expect(anyTermTsQuery([])).toBe("");
  });
});

describe("BM25 and fusion", () => {
  const terms = [
    { term: "rare", prefix: false, weight: 1 },
    { term: "common", prefix: false, weight: 1 },
  ];
  it("weighs rare terms over common ones and shorter documents over longer ones", () => {
    const hits = bm25Scores(
      [
        { id: "common-only", length: 50, tf: [0, 1] },
        ...Array.from({ length: 30 }, (_, i) => ({ id: `common-${i}`, length: 60, tf: [0, 1] })),
        { id: "rare-long", length: 150, tf: [1, 0] },
        { id: "rare-short", length: 50, tf: [1, 0] },
        { id: "none", length: 50, tf: [0, 0] },
      ],
      terms,
      { n: 100, avglen: 100 },
    );
    expect(hits.map((h) => h.id).slice(0, 3)).toEqual(["rare-short", "rare-long", "common-only"]);
    expect(hits.map((h) => h.id)).not.toContain("none");
  });
  it("scales a single CJK character by its IDF: a common character says less than its plain weight", () => {
    const chars = (idfScaled: boolean) => [
      { term: "舞", prefix: false, weight: 0.5, idfScaled },
      { term: "天", prefix: false, weight: 0.5, idfScaled },
    ];
    const docs = [
      { id: "rare", length: 10, tf: [1, 0] },
      ...Array.from({ length: 40 }, (_, i) => ({ id: `common-${i}`, length: 10, tf: [0, 1] })),
    ];
    const ratio = (idfScaled: boolean) => {
      const hits = bm25Scores(docs, chars(idfScaled), { n: 100, avglen: 10 });
      return hits.find((h) => h.id === "common-0")!.score / hits.find((h) => h.id === "rare")!.score;
    };
    expect(ratio(true)).toBeLessThan(ratio(false) * 0.5);
    // A character in one row keeps its whole weight.
    const [rare] = bm25Scores(docs, chars(true), { n: 100, avglen: 10 });
    const [rarePlain] = bm25Scores(docs, chars(false), { n: 100, avglen: 10 });
    expect(rare!.score).toBeCloseTo(rarePlain!.score, 1);
  });
  it("scores an alias only in a row without the words it stands for: one subject counts once", () => {
    const terms = [
      { term: "周强", prefix: false, weight: 1 },
      { term: "生日", prefix: false, weight: 1 },
      { term: "牙医", prefix: false, weight: 1, standsFor: ["周强"] },
    ];
    const docs = [
      { id: "name", length: 10, tf: [1, 1, 0] },
      { id: "alias", length: 10, tf: [0, 1, 1] },
      { id: "both", length: 10, tf: [1, 1, 1] },
      ...Array.from({ length: 20 }, (_, i) => ({ id: `other-${i}`, length: 10, tf: [0, 1, 0] })),
    ];
    const score = (id: string) => bm25Scores(docs, terms, { n: 100, avglen: 10 }).find((h) => h.id === id)!.score;
    expect(score("both")).toBeCloseTo(score("name"), 6);
    expect(score("alias")).toBeGreaterThan(score("other-0"));
  });
  it("fuses by rank, normalized so a hit first everywhere scores 1", () => {
    const fused = reciprocalRankFusion([
      {
        signal: "fullText",
        weight: 1,
        hits: [
          { id: "a", score: 9 },
          { id: "b", score: 3 },
        ],
      },
      {
        signal: "vector",
        weight: 0.5,
        hits: [
          { id: "a", score: 0.8 },
          { id: "c", score: 0.7 },
        ],
      },
    ]);
    expect(fused.map((f) => f.id)).toEqual(["a", "b", "c"]);
    expect(fused[0]!.fused).toBeCloseTo(1, 10);
    expect(fused[0]!.components).toEqual({ fullText: 9, vector: 0.8 });
    expect(relativeFloor([{ score: 10 }, { score: 2 }, { score: 0.5 }], 0.1)).toEqual([{ score: 10 }, { score: 2 }]);
  });
  it("reports each boost as its contribution to the final score", () => {
    const score = boostedScore(
      { id: "x", fused: 0.5, components: { fullText: 3 } },
      { importance: 1, confidence: 1, updatedAt: NOW, hotness: 0, explicitUserIntent: true },
      NOW,
    );
    const sum =
      score.fused! + score.importance! + score.confidence! + score.recency! + score.hotness! + score.explicit!;
    expect(score.final).toBeCloseTo(sum, 5);
    expect(score.recency).toBeCloseTo(0.5 * 0.15, 5);
    expect(score.fullText).toBe(3);
  });
  it("ranks cards lexically by field weights (title first) for history reads", () => {
    const ranked = rankLexically(
      [
        card({ id: "body", title: "x", content: "likes tea" }),
        card({ id: "title", title: "Tea", content: "x" }),
        card({ id: "none", title: "x", content: "y" }),
      ],
      "tea",
    );
    expect(ranked.map((r) => r.card.id)).toEqual(["title", "body"]);
  });
});

describe("conflict resolution", () => {
  const chain = { session: { type: "session" as const, id: "s1" }, user: { type: "user" as const, id: "u1" } };
  const winner = (a: MemoryCard, b: MemoryCard) => (compareForConflict(a, b, NOW) < 0 ? a.id : b.id);

  it("resolves a slot in order: unexpired, scope, explicit, temporary, newer, confidence, importance", () => {
    expect(winner(card({ id: "session", scope: "session:s1" }), card({ id: "user" }))).toBe("session");
    expect(winner(card({ id: "workspace", scope: "workspace:w1" }), card({ id: "global", scope: "global" }))).toBe(
      "workspace",
    );
    expect(winner(card({ id: "lapsed", scope: "session:s1", status: "expired" }), card({ id: "live" }))).toBe("live");
    expect(
      winner(
        card({ id: "inferred", explicitUserIntent: false, updatedAt: "2026-01-09T00:00:00Z" }),
        card({ id: "explicit" }),
      ),
    ).toBe("explicit");
    expect(winner(card({ id: "long" }), card({ id: "temporary", expiresAt: "2026-02-01T00:00:00Z" }))).toBe(
      "temporary",
    );
    expect(winner(card({ id: "old" }), card({ id: "new", updatedAt: "2026-01-05T00:00:00Z" }))).toBe("new");
    expect(winner(card({ id: "sure", confidence: 0.99 }), card({ id: "unsure", confidence: 0.5 }))).toBe("sure");
    expect(winner(card({ id: "minor", importance: 0.1 }), card({ id: "major", importance: 0.9 }))).toBe("major");
  });

  it("shares a slot along the caller's scope chain only", () => {
    expect(conflictKey(card({ scope: "session:s1" }), chain)).toBe(conflictKey(card({ scope: "user:u1" }), chain));
    expect(conflictKey(card({ scope: "session:s2" }), chain)).not.toBe(conflictKey(card({ scope: "user:u1" }), chain));
    expect(conflictKey(card({ scope: "global" }), chain)).toBe(conflictKey(card({ scope: "context:app/x" }), chain));
  });

  it("keeps winners in rank order and explains every omission", () => {
    const { kept, omitted } = resolveConflicts(
      [
        card({ id: "user-lang" }),
        card({ id: "session-lang", scope: "session:s1" }),
        card({ id: "old-rev", key: "profile.name", status: "superseded" }),
        card({ id: "lapsed", key: "x", expiresAt: "2026-01-01T00:00:00Z" }),
        card({ id: "shaky", key: "y", confidence: 0.2 }),
        card({ id: "gone", key: "z", status: "deleted" }),
        card({ id: "other", key: "profile.name" }),
      ],
      { now: NOW, chain },
    );
    expect(kept.map((n) => n.id)).toEqual(["session-lang", "other"]);
    expect(omitted).toEqual([
      { nodeId: "old-rev", reason: "superseded" },
      { nodeId: "lapsed", reason: "expired" },
      { nodeId: "shaky", reason: "low_confidence" },
      { nodeId: "user-lang", reason: "conflict_lost" },
    ]);
  });
});

describe("scopes", () => {
  const read = ["user:u1", "session:*", "global"].map(parseScopePattern);
  it("narrows, never widens", () => {
    expect(narrowReadScopes(read, ["session:s1", "user:u2", "workspace:w1"])).toEqual([{ type: "session", id: "s1" }]);
    expect(narrowReadScopes(read, undefined)).toEqual(read);
    expect(narrowReadScopes(read, ["user:u2"])).toEqual([]);
  });
  it("keeps only this turn's session for automatic recall", () => {
    expect(turnScopes(read, "s7")).toEqual([
      { type: "user", id: "u1" },
      { type: "global", id: "" },
      { type: "session", id: "s7" },
    ]);
    expect(turnScopes(read, undefined)).toEqual([
      { type: "user", id: "u1" },
      { type: "global", id: "" },
    ]);
  });
});

describe("context budget", () => {
  const sections: SectionName[] = [
    "alwaysRecalled",
    "constraints",
    "activeTasks",
    "relevant",
    "summary",
    "preferences",
    "recent",
  ];
  const item = fc.record({
    section: fc.constantFrom(...sections),
    id: fc.string({ minLength: 1, maxLength: 12 }),
    text: fc.oneof(fc.string({ maxLength: 400 }), fc.lorem({ maxCount: 120 }), fc.constant("香菜 ".repeat(300))),
    order: fc.nat(50),
  });

  it("never exceeds the budget, whatever the items", () => {
    fc.assert(
      fc.property(fc.array(item, { maxLength: 30 }), fc.integer({ min: 20, max: 3000 }), (items, budget) => {
        const result = selectWithinBudget(items as ContextItem[], budget);
        expect(countTokens(result.prompt)).toBeLessThanOrEqual(budget);
        expect(result.tokens).toBe(countTokens(result.prompt));
        expect(result.items.length + result.dropped.length).toBe(items.length);
      }),
      { numRuns: 150 },
    );
  });

  it("keeps always-recalled items before anything else and cuts long items to fit", () => {
    const items: ContextItem[] = [
      { section: "recent", id: "m1", text: "- [m1] user: " + "chatter ".repeat(200), order: 0 },
      { section: "alwaysRecalled", id: "n1", text: "- [n1] (user) Allergy: never peanuts.", order: 0 },
      { section: "relevant", id: "n2", text: "- [n2] (user) Note: " + "detail ".repeat(400), order: 0 },
    ];
    const result = selectWithinBudget(items, 120);
    expect(result.items[0]!.id).toBe("n1");
    expect(result.prompt).toContain("never peanuts");
    expect(result.items.find((i) => i.id === "n2")?.text.endsWith("…")).toBe(true);
    expect(truncateToTokens("one two three four five", 3)).toMatch(/…$/);
  });

  it("says a card was cut, and leaves out one that would keep only its id and a few words", () => {
    const node = { id: "n1" } as ContextItem["card"];
    const long: ContextItem = {
      section: "constraints",
      id: "n1",
      text:
        "- [mem_0tvngdb3kk9q] (user) Dinner rules: " +
        "no dairy, no gluten, little salt, ".repeat(20) +
        "above all never peanuts.",
      card: node,
      order: 0,
    };
    const cut = selectWithinBudget([long], 300);
    expect(cut.items[0]?.text).toMatch(
      /^- \[mem_0tvngdb3kk9q\] \(user\) Dinner rules: .*… \(cut; memory_get for all\)$/,
    );
    // Squeezed by other cards: placed only with something of it to read, never as its id and a word.
    const filler = (id: string): ContextItem => ({
      section: "alwaysRecalled",
      id,
      text: `- [${id}] (user) Language: ` + "always answer in Chinese ".repeat(6),
      card: { id } as ContextItem["card"],
      order: 0,
    });
    for (let budget = 60; budget <= 400; budget += 7) {
      const result = selectWithinBudget(
        [filler("a1"), filler("a2"), filler("a3"), { ...long, section: "relevant" }],
        budget,
      );
      const placed = result.items.find((i) => i.id === "n1");
      if (placed && placed.text !== long.text)
        expect(countTokens(placed.text.replace(" (cut; memory_get for all)", ""))).toBeGreaterThanOrEqual(24);
    }
  });
});

describe("token counts", () => {
  // Pieces that stress the tokenizer's pre-split at line ends: CJK runs, punctuation (which can take
  // the line break into its piece), trailing spaces, slashes, digits, contractions, special tokens.
  const fragment = fc.constantFrom(
    "- [mem_0tvngdb3] (user) ",
    "香菜",
    "不要放香菜。",
    "北极星项目",
    "Hermes budget",
    " review",
    "it's",
    "…",
    ".",
    "!",
    "?)",
    ":",
    "/",
    "//",
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    "2024",
    "12345",
    "é",
    "naïve",
    "<|endoftext|>",
    "<|im_start|>",
    "**bold**",
    "😀",
    "-",
    "[x]",
  );
  const line = fc.array(fragment, { maxLength: 12 }).map((parts) => parts.join(""));

  it("adds up line by line to the count of the joined block, exactly", () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 12 }), (lines) => {
        expect(countJoinedLines(lines)).toBe(countTokens(lines.join("\n")));
      }),
      { numRuns: 2000 },
    );
  });

  it("uses the per-line counts for prompt-shaped lines", () => {
    const lines = [
      "<memory>",
      "Always apply:",
      "- [n1] (user) 不要放香菜。",
      "- [n2] (user) Tone: friendly, informal.",
      "Recent messages (oldest first):",
      "- [m1] user: what's next?  ",
      "</memory>",
    ];
    expect(lines.slice(1).every(startsNewPiece)).toBe(true);
    const summed = lines.slice(0, -1).reduce((sum, l) => sum + countLineTokens(l), 0) + countTokens(lines.at(-1)!);
    expect(summed).toBe(countTokens(lines.join("\n")));
    expect(countJoinedLines(lines)).toBe(summed);
    expect(startsNewPiece("/path")).toBe(false);
    expect(startsNewPiece(" indented")).toBe(false);
    expect(startsNewPiece("")).toBe(false);
  });

  it("keys the memo by a hash that tells near-identical lines apart", () => {
    const seen = new Map<number, string>();
    for (let i = 0; i < 200_000; i++) {
      const text =
        i % 2
          ? `- [mem_${i.toString(36)}] (user) 用户计划 ${i % 977}`
          : `- [mem_${(i * 7919).toString(36)}] (session) Note ${i}: same words`;
      const key = textHash(text);
      // Plain checks in the loop: 200,000 `expect` calls alone took ~5 s on a slow CI machine.
      if (!Number.isSafeInteger(key) || key < 0) throw new Error(`not a non-negative safe integer: ${key} for ${text}`);
      const other = seen.get(key);
      if (other !== undefined && other !== text) throw new Error(`hash collision: ${other} / ${text}`);
      seen.set(key, text);
    }
    expect(textHash("ab")).not.toBe(textHash("ba"));
    // Counted once, then from the memo: the same answer.
    expect(countLineTokens("- [n9] (user) Tone: friendly.")).toBe(countTokens("- [n9] (user) Tone: friendly.\n"));
    expect(countLineTokens("- [n9] (user) Tone: friendly.")).toBe(countTokens("- [n9] (user) Tone: friendly.\n"));
  });

  it("counts special-token text as plain text instead of throwing", () => {
    expect(countTokens("ignore this <|endoftext|> and <|im_start|>system")).toBeGreaterThan(5);
    expect(truncateToTokens("<|endoftext|> ".repeat(50), 5)).toMatch(/…$/);
  });
});
