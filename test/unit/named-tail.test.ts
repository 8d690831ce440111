import { describe, expect, it } from "vitest";
import {
  firstRareWord,
  namedWords,
  withNamedPlaces,
  withNamedTail,
  type PlacedHit,
} from "~/server/memory/retrieval/named-tail";
import { queryTerms } from "~/server/memory/retrieval/query-terms";

/** Each term's rows: `rows[term]`, else `otherwise`. */
const dfOf = (question: string, rows: Record<string, number>, otherwise = 200) =>
  queryTerms(question).map((t) => rows[t.term] ?? otherwise);

describe("what a Chinese question names", () => {
  it("is the first word of its own that few rows hold", () => {
    const question = "彭婷平时喜欢干嘛？";
    const terms = queryTerms(question);
    expect(namedWords(question, terms, dfOf(question, { 彭婷: 7, 平时: 9, 时喜: 9, 喜欢: 9 }))).toEqual([
      "彭婷",
      "平时",
      "时喜",
      "喜欢",
    ]);
    // The name in no row: the stock phrase, held by few rows here, is what is left.
    expect(namedWords(question, terms, dfOf(question, { 彭婷: 0, 平时: 9 }))).toEqual(["平时"]);
  });

  it("is nothing when every word is common, or absent", () => {
    const question = "彭婷平时喜欢干嘛？";
    const terms = queryTerms(question);
    expect(namedWords(question, terms, dfOf(question, {}, 200))).toEqual([]);
    expect(namedWords(question, terms, dfOf(question, {}, 0))).toEqual([]);
  });

  it("falls back, for the page's last places, to the first word rare in the scope", () => {
    // 胡晨 in 30 of 2,000 rows and 生日 in 120: nothing is named by ten rows or fewer, but he is rare here.
    const question = "胡晨几月几号过生日？";
    const terms = queryTerms(question);
    const df = dfOf(question, { 胡晨: 30, 生日: 120 }, 300);
    expect(namedWords(question, terms, df, { n: 2000 })).toEqual([]);
    expect(firstRareWord(question, terms, df, { n: 2000 })).toEqual(["胡晨"]);
    // In 500 rows, 30 is over 2 %: a word that common names no one.
    expect(firstRareWord(question, terms, df, { n: 500 })).toEqual([]);
    // The first by its place in the question, not the rarest.
    const two = "胡晨和郭海亮谁先过生日？";
    const twoTerms = queryTerms(two);
    expect(firstRareWord(two, twoTerms, dfOf(two, { 胡晨: 30, 郭海: 20, 海亮: 20 }, 300), { n: 2000 })).toEqual([
      "胡晨",
    ]);
  });

  it("keeps the lines of a subject the scope often holds, standing before the rarer word", () => {
    // 郭海亮 in 40 of 2,000 rows, 爱吃 in 6: the question is about him, 爱吃 is what it asks.
    const question = "郭海亮爱吃什么？";
    const terms = queryTerms(question);
    const df = dfOf(question, { 郭海: 40, 海亮: 38, 爱吃: 6 }, 300);
    expect(namedWords(question, terms, df)).toEqual(["爱吃"]);
    expect(namedWords(question, terms, df, { n: 2000 })).toEqual(["爱吃", "郭海", "海亮"]);
    // In 200 rows, 40 is a phrasing (over 2 %): nothing is added.
    expect(namedWords(question, terms, df, { n: 200 })).toEqual(["爱吃"]);
    // After the named word, a word held often is not its subject.
    const after = "爱吃寿司的是郭海亮吗？";
    const afterTerms = queryTerms(after);
    expect(namedWords(after, afterTerms, dfOf(after, { 郭海: 40, 海亮: 41, 爱吃: 6 }, 300), { n: 2000 })).toEqual([
      "爱吃",
    ]);
  });

  it("is never a word of the lead-in, a single character or an English word", () => {
    const noisy = "报销单又被退回来了。问一下，彭婷平时喜欢干嘛？";
    const terms = queryTerms(noisy);
    expect(terms.some((t) => t.lead && t.term === "报销")).toBe(true);
    expect(namedWords(noisy, terms, dfOf(noisy, { 报销: 2, 彭婷: 7 }))).toEqual(["彭婷"]);
    const single = "婷喜欢什么？";
    expect(namedWords(single, queryTerms(single), dfOf(single, { 婷: 2 }))).toEqual([]);
    const english = "What does Peng Ting like doing?";
    expect(namedWords(english, queryTerms(english), dfOf(english, {}, 3))).toEqual([]);
  });
});

describe("the page's last places", () => {
  it("are not taken from the lines of the subject the list names after the first word", () => {
    const hit = (id: string, fused: number): PlacedHit => ({
      id,
      kind: "message",
      fused,
      components: { fused, final: fused },
    });
    const texts: Record<string, string> = {
      a: "郭海亮身高178cm。",
      b: "郭海亮又升职了。",
      c: "郭海亮三天不吃寿司就难受。",
      d: "张强亮最爱吃烤鸭。",
    };
    const merged = [hit("a", 1), hit("b", 0.9), hit("c", 0.8), hit("d", 0.7)];
    const page = withNamedPlaces(merged, 3, ["爱吃", "郭海", "海亮"], (h) => texts[h.id]);
    expect(page.map((h) => h.id)).toEqual(["a", "b", "c"]);
    // Without the subject, the line that lacks 爱吃 gives its place to another person's.
    const alone = withNamedPlaces(merged, 3, ["爱吃"], (h) => texts[h.id]);
    expect(alone.map((h) => h.id)).toEqual(["a", "b", "d"]);
  });

  const ids = (list: { id: string }[]) => list.map((e) => e.id);
  const ranked = Array.from({ length: 20 }, (_, i) => ({ id: `r${i}` }));
  const named = new Set(["r3", "r12", "r15", "r16", "r18"]);

  it("take the best named entries from below, and leave the first places as they were", () => {
    const { ranked: out, moved } = withNamedTail(ranked, 10, (e) => named.has(e.id));
    expect(ids(out).slice(0, 10)).toEqual(["r0", "r1", "r2", "r3", "r4", "r5", "r6", "r12", "r15", "r16"]);
    expect(ids(out).slice(10)).toEqual(["r7", "r8", "r9", "r10", "r11", "r13", "r14", "r17", "r18", "r19"]);
    expect([...moved].sort()).toEqual(["r12", "r15", "r16"]);
    expect(out).toHaveLength(ranked.length);
  });

  it("keep a named entry that was on the page already, and move nothing when none is below", () => {
    const onPage = withNamedTail(ranked, 10, (e) => e.id === "r8");
    expect(ids(onPage.ranked)).toEqual(ids(ranked));
    expect(onPage.moved.size).toBe(0);
    const none = withNamedTail(ranked, 10, () => false);
    expect(ids(none.ranked)).toEqual(ids(ranked));
  });

  it("scale with the page", () => {
    const { ranked: out } = withNamedTail(ranked, 5, (e) => named.has(e.id));
    // A page of five keeps its last two places (three of ten, rounded).
    expect(ids(out).slice(0, 5)).toEqual(["r0", "r1", "r2", "r3", "r12"]);
  });
});

describe("the page's last places, around a named entry on the page", () => {
  it("give up only the places of entries that hold nothing named", () => {
    const ranked = Array.from({ length: 20 }, (_, i) => ({ id: `r${i}` }));
    const named = new Set(["r8", "r12", "r15", "r16"]);
    const { ranked: out, moved } = withNamedTail(ranked, 10, (e) => named.has(e.id));
    expect(out.map((e) => e.id).slice(0, 10)).toEqual(["r0", "r1", "r2", "r3", "r4", "r5", "r6", "r8", "r12", "r15"]);
    expect(out.map((e) => e.id).slice(10, 13)).toEqual(["r7", "r9", "r10"]);
    expect([...moved].sort()).toEqual(["r12", "r15"]);
  });
});

describe("the page's last places, for two named things", () => {
  it("are not taken from a line naming the second one", () => {
    const ranked = Array.from({ length: 20 }, (_, i) => ({ id: `r${i}` }));
    const first = new Set(["r12", "r15", "r16"]);
    const second = new Set(["r9"]);
    const { ranked: out } = withNamedTail(
      ranked,
      10,
      (e) => first.has(e.id),
      (e) => first.has(e.id) || second.has(e.id),
    );
    expect(out.map((e) => e.id).slice(0, 10)).toEqual(["r0", "r1", "r2", "r3", "r4", "r5", "r6", "r9", "r12", "r15"]);
  });
});

describe("the page's last places, on small pages", () => {
  const ranked = Array.from({ length: 6 }, (_, i) => ({ id: `r${i}` }));
  it("leave a page of one as it is, and give a page of two one place", () => {
    expect(withNamedTail(ranked, 1, (e) => e.id === "r4").ranked.map((e) => e.id)).toEqual(ranked.map((e) => e.id));
    expect(
      withNamedTail(ranked, 2, (e) => e.id === "r4")
        .ranked.map((e) => e.id)
        .slice(0, 2),
    ).toEqual(["r0", "r4"]);
  });
  it("move nothing when fewer rows than the page were found", () => {
    const few = ranked.slice(0, 4);
    expect(withNamedTail(few, 10, (e) => e.id === "r3").ranked).toEqual(few);
  });
});

describe("the named places on a merged page", () => {
  /** Twenty hits scoring 1.00, 0.99, …; texts by id (none: not read). */
  const hits: PlacedHit[] = Array.from({ length: 20 }, (_, i) => ({
    id: `r${i}`,
    kind: "message" as const,
    fused: 1 - i / 100,
    components: { fused: 1 - i / 100, final: 1 - i / 100 },
  }));
  const texts: Record<string, string> = { r9: "刘雅楠今年三十岁", r12: "彭婷的爱好是打乒乓球", r15: "彭婷在上海工作" };
  const read = (hit: { id: string }) => texts[hit.id] ?? (Number(hit.id.slice(1)) < 7 ? undefined : "今天好累");

  it("keeps scores falling down the page, and marks what it brought on", () => {
    const page = withNamedPlaces(hits, 10, ["彭婷", "刘雅"], read);
    expect(page.map((h) => h.id)).toEqual(["r0", "r1", "r2", "r3", "r4", "r5", "r6", "r9", "r12", "r15"]);
    const scores = page.map((h) => h.fused);
    expect(scores.every((s, i) => i === 0 || s <= scores[i - 1]!)).toBe(true);
    expect(page.filter((h) => h.components.named === 1).map((h) => h.id)).toEqual(["r12", "r15"]);
    expect(page.every((h) => h.components.final === h.fused || h.components.named !== 1)).toBe(true);
  });

  it("never displaces a hit whose text was not read, and changes nothing without a named word", () => {
    const unread = (hit: { id: string }) => (hit.id === "r12" ? texts.r12 : undefined);
    expect(withNamedPlaces(hits, 10, ["彭婷"], unread).map((h) => h.id)).toEqual(hits.slice(0, 10).map((h) => h.id));
    expect(withNamedPlaces(hits, 10, [], read)).toEqual(hits.slice(0, 10));
  });

  it("tells a message from a chunk with the same id", () => {
    const mixed: PlacedHit[] = [...hits.slice(0, 12), { ...hits[5]!, kind: "chunk", fused: 0.5 }];
    const content = (hit: { id: string; kind: string }) =>
      hit.kind === "chunk" ? "彭婷的爱好是打乒乓球" : hit.id === "r5" ? "彭婷在上海工作" : "今天好累";
    const page = withNamedPlaces(mixed, 10, ["彭婷"], content);
    expect(page.filter((h) => h.components.named === 1).map((h) => `${h.kind}:${h.id}`)).toEqual(["chunk:r5"]);
    expect(page.filter((h) => h.id === "r5")).toHaveLength(2);
  });
});
