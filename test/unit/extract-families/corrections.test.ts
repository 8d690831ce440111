import { describe, expect, it } from "vitest";
import { resolveCorrection } from "~/server/tree/rules/corrections";
import { ofKind } from "./helpers";

describe("extraction family: corrections", () => {
  it("reads a correction as what it now says", () => {
    expect(resolveCorrection("预算不是5万，而是8万。")).toEqual({ text: "预算8万。", correction: true });
    expect(resolveCorrection("Actually, I live in Denver.")).toEqual({ text: "I live in Denver.", correction: true });
    expect(resolveCorrection("My budget is not $2,000 but $3,000.")).toEqual({
      text: "My budget is $3,000.",
      correction: true,
    });
    expect(resolveCorrection("I live in Denver.")).toEqual({ text: "I live in Denver.", correction: false });
  });

  it("marks the candidate as a correction, with the corrected value", () => {
    expect(
      ofKind("其实我住的不是北京，而是深圳。", "home_location").map((o) => [o.node.valueJson, o.correction]),
    ).toEqual([[{ city: "深圳" }, true]]);
    expect(
      ofKind("预算不是5万，而是8万。", "custom_fact").map((o) => [o.itemKey, o.node.valueJson, o.correction]),
    ).toEqual([["budget", "8万", true]]);
    expect(
      ofKind("Actually, we moved to Denver.", "home_location").map((o) => [o.node.valueJson, o.correction]),
    ).toEqual([[{ city: "Denver" }, true]]);
  });
});
