import { describe, expect, it } from "vitest";
import { ofKind } from "./helpers";

describe("extraction family: plans and goals", () => {
  it("finds a goal and intentions in English", () => {
    expect(
      ofKind("My goal is to run a marathon before I turn 40.", "long_term_goal").map((o) => o.node.valueJson),
    ).toEqual(["run a marathon before I turn 40"]);
    expect(
      ofKind("I'm planning to go back to school for counseling.", "custom_fact").map((o) => [
        o.itemKey,
        o.node.valueJson,
      ]),
    ).toEqual([["plan:go back school counseling", "go back to school for counseling"]]);
    expect(ofKind("We want to adopt a child next year.", "custom_fact").map((o) => o.itemKey)).toEqual([
      "plan:adopt child next year",
    ]);
  });

  it("finds them in Chinese: the trip plan is the goal", () => {
    expect(ofKind("我们在做北京的旅行计划，预算5万。", "long_term_goal").map((o) => o.node.valueJson)).toEqual([
      "北京的旅行计划",
    ]);
    expect(ofKind("我打算明年去日本留学。", "custom_fact").map((o) => o.itemKey)).toEqual(["plan:明年去日本留学"]);
  });

  it("takes no plan from what the user is about to say", () => {
    expect(ofKind("I'm going to tell you a secret.", "custom_fact")).toEqual([]);
  });
});
