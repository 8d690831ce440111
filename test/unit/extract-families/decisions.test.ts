import { describe, expect, it } from "vitest";
import { ofKind } from "./helpers";

describe("extraction family: decisions and constraints", () => {
  it("finds decisions in English and Chinese, for the project", () => {
    expect(
      ofKind("We decided to use Postgres for the new service.", "durable_decision").map((o) => [
        o.node.valueJson,
        o.scopeHint,
      ]),
    ).toEqual([["use Postgres for the new service", "workspace"]]);
    expect(ofKind("我们决定住在西湖边。", "durable_decision").map((o) => o.node.valueJson)).toEqual(["住在西湖边"]);
    expect(ofKind("I chose them because they were kind.", "durable_decision")).toEqual([]);
  });

  it("finds constraints in English and Chinese, not in a food message", () => {
    expect(ofKind("I can't travel on weekdays.", "custom_fact").map((o) => o.itemKey)).toEqual([
      "constraint:travel weekdays",
    ]);
    expect(ofKind("周末必须回家陪父母。", "custom_fact").map((o) => o.itemKey)).toContain("constraint:回家陪父母");
    expect(ofKind("我不能吃辣的菜。", "custom_fact")).toEqual([]);
  });
});
