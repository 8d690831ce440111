import { describe, expect, it } from "vitest";
import { normalizeFlavorLevel, normalizeFlavorProfile } from "~/server/memory/write/value-normalize";

describe("normalizeFlavorProfile", () => {
  it.each([
    ["少辣", { spicy: "low" }],
    ["微辣", { spicy: "low" }],
    ["不太辣", { spicy: "low" }],
    ["不辣", { spicy: "none" }],
    ["不要辣", { spicy: "none" }],
    ["特辣", { spicy: "high" }],
    ["重辣", { spicy: "high" }],
    ["少油", { oil: "low" }],
    ["清淡", { oil: "low" }],
    ["少盐", { salt: "low" }],
    ["少糖", { sugar: "low" }],
    ["less spicy", { spicy: "low" }],
    ["mild", { spicy: "low" }],
    ["no spice", { spicy: "none" }],
    ["low oil", { oil: "low" }],
    ["Low-Oil", { oil: "low" }],
  ])("%s", (input, expected) => {
    expect(normalizeFlavorProfile(input)).toEqual(expected);
  });

  it("merges several phrases in one sentence", () => {
    expect(normalizeFlavorProfile("以后做饭别给我推荐香菜，我喜欢少油少辣。")).toEqual({ oil: "low", spicy: "low" });
    expect(normalizeFlavorProfile("mild, low oil and less salt")).toEqual({ spicy: "low", oil: "low", salt: "low" });
  });

  it("lets a later mention override an earlier one", () => {
    expect(normalizeFlavorProfile("以前特辣，现在微辣")).toEqual({ spicy: "low" });
    expect(normalizeFlavorProfile(["少辣", "不辣"])).toEqual({ spicy: "none" });
  });

  it("normalizes objects with synonym keys and levels, keeping unknown dimensions", () => {
    expect(normalizeFlavorProfile({ 辣: "少", oil: "LOW", 甜度: "无", spicy_level: "x" })).toEqual({
      spicy: "low",
      oil: "low",
      sugar: "none",
      spicy_level: "x",
    });
    expect(normalizeFlavorProfile({ spicy: "少辣", salt: "moderate" })).toEqual({ spicy: "low", salt: "medium" });
    expect(normalizeFlavorProfile({ oil: "low", spicy: "low" })).toEqual({ oil: "low", spicy: "low" });
  });

  it("returns an empty profile when nothing is recognised", () => {
    expect(normalizeFlavorProfile("mildew on the bread")).toEqual({});
    expect(normalizeFlavorProfile("我喜欢川菜")).toEqual({});
  });
});

describe("normalizeFlavorLevel", () => {
  it("maps level words in both languages", () => {
    expect(normalizeFlavorLevel("少")).toBe("low");
    expect(normalizeFlavorLevel("High")).toBe("high");
    expect(normalizeFlavorLevel("适中")).toBe("medium");
    expect(normalizeFlavorLevel(0)).toBe("none");
    expect(normalizeFlavorLevel("whatever")).toBeUndefined();
    expect(normalizeFlavorLevel({})).toBeUndefined();
  });
});
