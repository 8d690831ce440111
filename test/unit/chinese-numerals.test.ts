import { describe, expect, it } from "vitest";
import { chineseNumeralValue, chineseNumeralValues } from "~/server/text/chinese-numerals";
import { readQuery, segmentForSearch } from "~/server/text/segment";

describe("Chinese numerals", () => {
  it("reads numbers with units, colloquial last digits and zeros", () => {
    const cases: [string, string][] = [
      ["一千三百", "1300"],
      ["三十三", "33"],
      ["十五", "15"],
      ["五千六", "5600"],
      ["一万二", "12000"],
      ["三百五", "350"],
      ["一千零六", "1006"],
      ["一千零五十", "1050"],
      ["一万二千", "12000"],
      ["两千二", "2200"],
      ["一亿五千万", "150000000"],
      ["一千零十", "1010"],
      ["两万零十二", "20012"],
      ["一百二十三万四千五百六十七", "1234567"],
      // 两 after a unit is the weight, not a digit.
      ["三百两", "300"],
    ];
    for (const [run, digits] of cases) expect(chineseNumeralValue(run), run).toBe(digits);
  });

  it("reads three digits or more one by one, as a year is written", () => {
    expect(chineseNumeralValue("一九九四")).toBe("1994");
    expect(chineseNumeralValue("二〇二四")).toBe("2024");
  });

  it("reads no number from a range, a phrase or a single numeral", () => {
    for (const run of ["两三", "三四十", "一两百", "千万", "万一", "十十", "十", "一"]) {
      expect(chineseNumeralValue(run), run).toBeUndefined();
    }
    expect(chineseNumeralValues("万一下雨，千万带伞，两三天就回来")).toEqual([]);
  });

  it("adds the digits to the indexed text and to the query's tokens", () => {
    expect(segmentForSearch("花了一千三百块").split(" ")).toContain("1300");
    expect(readQuery("他今年三十三岁吗？").tokens).toContain("33");
    // Digits stay as they are.
    expect(segmentForSearch("花了1300块").split(" ")).toContain("1300");
  });
});
