import { describe, expect, it } from "vitest";
import { buildTsQueryText, segmentForSearch, segmentQuery } from "~/server/text/segment";

const indexed = (text: string) => new Set(segmentForSearch(text).split(" "));
/** What `to_tsvector @@ to_tsquery` does with `&`: every query token must be an indexed token. */
const matches = (doc: string, query: string) => {
  const tokens = segmentQuery(query);
  const index = indexed(doc);
  return tokens.length > 0 && tokens.every((token) => index.has(token));
};

describe("segmentForSearch", () => {
  it("splits a Chinese sentence into words first", () => {
    expect(segmentForSearch("记住我以后做饭不要香菜").split(" ").slice(0, 6)).toEqual([
      "记住",
      "我",
      "以后",
      "做饭",
      "不要",
      "香菜",
    ]);
  });

  it("keeps Latin words, lower-cased and NFKC-normalized, and drops punctuation", () => {
    expect(segmentForSearch("Hermes Studio, uses ＴｙｐｅＳｃｒｉｐｔ! don't")).toBe(
      "hermes studio uses typescript dont",
    );
  });

  it("adds CJK unigrams and bigrams once each", () => {
    const tokens = segmentForSearch("香菜炒蛋").split(" ");
    expect(tokens).toEqual(expect.arrayContaining(["香菜", "炒蛋", "香", "菜", "炒", "蛋", "菜炒"]));
    expect(new Set(tokens).size).toBe(tokens.length);
  });

  it("handles mixed text and is deterministic", () => {
    const text = "用户在Hermes Studio项目里用TypeScript 5.9";
    expect(segmentForSearch(text)).toBe(segmentForSearch(text));
    expect(indexed(text)).toEqual(expect.any(Set));
    for (const token of ["hermes", "studio", "typescript", "项目", "5", "9"])
      expect(indexed(text).has(token), token).toBe(true);
  });

  it("segments long text in bounded time and keeps words past the chunk boundaries", () => {
    const long = `${"我们今天去公园散步".repeat(300)}最后不要香菜`;
    const started = performance.now();
    const tokens = new Set(segmentForSearch(long).split(" "));
    expect(performance.now() - started).toBeLessThan(2000);
    expect(tokens.has("香菜")).toBe(true);
    expect(tokens.has("公园")).toBe(true);
  });

  it("returns an empty string for empty or punctuation-only input", () => {
    expect(segmentForSearch("")).toBe("");
    expect(segmentForSearch("，。!?")).toBe("");
  });
});

describe("traditional Chinese", () => {
  it("indexes and queries traditional characters as simplified ones, so either script finds the other", () => {
    expect(segmentQuery("我對什麼過敏")).toEqual(segmentQuery("我对什么过敏"));
    expect(segmentForSearch("用戶對花生過敏")).toBe(segmentForSearch("用户对花生过敏"));
    expect(segmentForSearch("Plain English, no Han")).toBe("plain english no han");
  });
});

describe("hyphenated words", () => {
  it("indexes and queries a hyphenated word whole too, so Wi-Fi and WiFi find each other", () => {
    expect(segmentForSearch("Home Wi-Fi password").split(" ")).toEqual(expect.arrayContaining(["wi", "fi", "wifi"]));
    expect(segmentQuery("wi-fi")).toEqual(expect.arrayContaining(["wifi"]));
    expect(segmentQuery("WiFi")).toEqual(["wifi"]);
  });
});

describe("segmentQuery", () => {
  it("matches CJK substrings whatever the dictionary did", () => {
    expect(matches("香菜炒蛋很好吃", "香菜")).toBe(true);
    expect(matches("黑巧克力蛋糕", "巧克力")).toBe(true);
    expect(matches("用户不吃香菜", "吃香菜")).toBe(true);
    expect(matches("用户偏好少油少辣", "少辣")).toBe(true);
    expect(matches("東京タワーに行きたい", "タワー")).toBe(true);
    expect(matches("番茄炒蛋", "香菜")).toBe(false);
  });

  it("matches English and mixed queries", () => {
    expect(matches("Hermes Studio uses TypeScript", "what is hermes studio?")).toBe(true);
    expect(matches("Hermes Studio 项目用 TypeScript", "typescript 项目")).toBe(true);
    expect(matches("Hermes Studio uses TypeScript", "python")).toBe(false);
  });

  it("drops stop words unless nothing else is left", () => {
    expect(segmentQuery("我的香菜")).toEqual(["香菜"]);
    expect(segmentQuery("the")).toEqual(["the"]);
    expect(segmentQuery("  ")).toEqual([]);
  });
});

describe("buildTsQueryText", () => {
  it("quotes tokens and joins them", () => {
    expect(buildTsQueryText(["香菜", "炒蛋"])).toBe("'香菜' & '炒蛋'");
    expect(buildTsQueryText(["hermes", "香菜"], { mode: "or", prefix: true })).toBe("'hermes':* | '香菜'");
    expect(buildTsQueryText([])).toBe("");
  });

  it("cannot be used to inject tsquery syntax", () => {
    expect(buildTsQueryText(["a' | !'b", "c\\'d"])).toBe("'a'' | !''b' & 'c\\\\''d'");
    expect(buildTsQueryText(["&", "|", "!", "()", ":*"])).toBe("");
    expect(buildTsQueryText(segmentQuery("x') | ('y & !z:*"))).toBe("'x' & 'y' & 'z'");
  });
});
