import { describe, expect, it } from "vitest";
import { extractOperations } from "~/server/tree/extract-rules";
import { ofKind } from "./helpers";

describe("extraction family: identity", () => {
  it("finds the user's name in English and Chinese, never a feeling said as 'I'm …'", () => {
    expect(ofKind("Hi there, my name is Ada Lovelace.", "profile_name").map((o) => o.node.valueJson)).toEqual([
      "Ada Lovelace",
    ]);
    expect(ofKind("我叫王小明，很高兴认识你。", "profile_name").map((o) => o.node.valueJson)).toEqual(["王小明"]);
    expect(ofKind("I'm Sorry, that was rude.", "profile_name")).toEqual([]);
    expect(ofKind("I'm happy for you!", "profile_name")).toEqual([]);
  });

  it("finds who the user is and their age", () => {
    expect(
      ofKind("As you know, I'm a transgender woman.", "custom_fact").map((o) => [o.itemKey, o.node.valueJson]),
    ).toEqual([["identity", "transgender woman"]]);
    expect(ofKind("我今年32岁，是个程序员。", "custom_fact").map((o) => [o.itemKey, o.node.valueJson])).toContainEqual([
      "age",
      32,
    ]);
  });

  it("marks the card inferred unless the user asked to remember it, and cites the sentence", () => {
    const [inferred] = ofKind("My name is Ada.", "profile_name");
    expect(inferred).toMatchObject({ explicit: false, node: { content: "My name is Ada." } });
    expect(extractOperations("Remember: my name is Ada.").find((o) => o.kind === "profile_name")?.explicit).toBe(true);
  });
});
