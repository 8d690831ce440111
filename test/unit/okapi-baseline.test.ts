import { describe, expect, it } from "vitest";
import { buildOkapiBaseline, okapiTokenize } from "../../bench/lib/okapi";
import { bestOf } from "../../bench/lib/tables";
import { report } from "../../bench/lib/metrics";

describe("the plain Okapi BM25 baseline of bench:recall", () => {
  it("tokenizes Latin words whole and CJK runs into bigrams (a lone character as itself)", () => {
    expect(okapiTokenize("我喜欢Coffee! 猫")).toEqual(["我喜", "喜欢", "coffee", "猫"]);
    expect(okapiTokenize("我买了iPhone15手机")).toEqual(["我买", "买了", "iphone15", "手机"]);
    expect(okapiTokenize("ktv唱歌 3点 2023年")).toEqual(["ktv", "唱歌", "3", "点", "2023", "年"]);
  });
  it("scores exactly as Okapi BM25 with k1 1.2 and b 0.75", () => {
    // Two documents: "a a b" (3 tokens) and "b c" (2 tokens); avglen 2.5, N 2. Query "a".
    const index = buildOkapiBaseline([
      { id: "x", text: "a a b" },
      { id: "y", text: "b c" },
    ]);
    const idf = Math.log(1 + (2 - 1 + 0.5) / (1 + 0.5));
    const expected = (idf * 2 * 2.2) / (2 + 1.2 * (1 - 0.75 + (0.75 * 3) / 2.5));
    expect(index.scores("a").get("x")).toBeCloseTo(expected, 10);
    expect(index.scores("a").has("y")).toBe(false);
  });
  it("ranks by IDF and length, counting repeated terms", () => {
    const index = buildOkapiBaseline([
      { id: "a", text: "我姐姐的丈夫是医生" },
      { id: "b", text: "我今天很开心" },
      { id: "c", text: "我姐姐喜欢猫，我也喜欢猫" },
    ]);
    expect(index.search("姐姐的丈夫做什么", 2)).toEqual(["a", "c"]);
    expect(index.search("毫不相干", 3)).toEqual([]);
  });
  it("judges the service against the better baseline, metric by metric and per category", () => {
    const outcome = (ranked: string[], category = "x") => ({ category, gold: ["g"], ranked, latencyMs: 1 });
    const one = { name: "one", ...report([outcome(["g"]), outcome(["n", "g"], "y")], []) };
    const two = { name: "two", ...report([outcome(["n", "g"]), outcome(["g"], "y")], []) };
    const best = bestOf([one, two]);
    expect(best.byCategory.x).toMatchObject({ mrr: 1, mrrBy: "one" });
    expect(best.byCategory.y).toMatchObject({ mrr: 1, mrrBy: "two" });
  });
});
