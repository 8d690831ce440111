import { describe, expect, it } from "vitest";
import { ofKind } from "./helpers";

describe("extraction family: jobs and studies", () => {
  it("finds the job, the employer and the studies in English", () => {
    expect(ofKind("I work as a nurse at the city hospital.", "occupation").map((o) => o.node.valueJson)).toEqual([
      { title: "nurse", employer: "the city hospital" },
    ]);
    expect(
      ofKind("I just started working at Acme Corp last month.", "occupation").map((o) => o.node.valueJson),
    ).toEqual([{ employer: "Acme Corp last month" }]);
    expect(ofKind("I'm studying psychology at night.", "custom_fact").map((o) => o.itemKey)).toContain(
      "studies:psychology night",
    );
  });

  it("finds them in Chinese", () => {
    expect(ofKind("我是一名程序员。", "occupation").map((o) => o.node.valueJson)).toEqual(["程序员"]);
    expect(ofKind("我在阿里巴巴工作。", "occupation").map((o) => o.node.valueJson)).toEqual([{ employer: "阿里巴巴" }]);
    expect(ofKind("我在读心理学专业。", "custom_fact").map((o) => o.itemKey)).toEqual(["studies:心理学"]);
  });
});
