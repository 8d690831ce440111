import { describe, expect, it } from "vitest";
import { ofKind } from "./helpers";

describe("extraction family: dates and amounts", () => {
  it("finds the budget and the deadline in Chinese and English, for the project", () => {
    expect(
      ofKind("我们在做北京的旅行计划，预算5万。", "custom_fact")
        .filter((o) => o.itemKey === "budget")
        .map((o) => [o.node.valueJson, o.scopeHint]),
    ).toEqual([["5万", "workspace"]]);
    expect(
      ofKind("The budget is $3,000 for the whole trip.", "custom_fact")
        .filter((o) => o.itemKey === "budget")
        .map((o) => o.node.valueJson),
    ).toEqual(["$3,000"]);
    expect(
      ofKind("9月15日前要完成。", "custom_fact")
        .filter((o) => o.itemKey === "deadline")
        .map((o) => o.node.valueJson),
    ).toEqual(["9月15日"]);
    expect(
      ofKind("The deadline is next Friday.", "custom_fact")
        .filter((o) => o.itemKey === "deadline")
        .map((o) => o.node.valueJson),
    ).toEqual(["nextFriday"]);
  });

  it("finds a birthday", () => {
    expect(
      ofKind("My birthday is on March 3rd.", "custom_fact")
        .filter((o) => o.itemKey === "birthday")
        .map((o) => o.node.valueJson),
    ).toEqual(["March 3rd"]);
    expect(
      ofKind("我的生日是5月20日。", "custom_fact")
        .filter((o) => o.itemKey === "birthday")
        .map((o) => o.node.valueJson),
    ).toEqual(["5月20日"]);
  });
});
