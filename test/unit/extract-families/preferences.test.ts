import { describe, expect, it } from "vitest";
import { extractOperations } from "~/server/tree/extract-rules";
import { ofKind } from "./helpers";

describe("extraction family: preferences and avoidances", () => {
  it("finds likes, favourites and dislikes in English", () => {
    expect(
      ofKind("I really love hiking in the mountains, it clears my head.", "custom_fact").map((o) => [
        o.itemKey,
        o.node.valueJson,
      ]),
    ).toEqual([["likes:hiking mountains", "hiking in the mountains"]]);
    expect(ofKind("My favorite book is Dune.", "custom_fact").map((o) => [o.itemKey, o.node.valueJson])).toEqual([
      ["favorite:book", "Dune"],
    ]);
    expect(ofKind("I can't stand horror movies.", "custom_fact").map((o) => o.itemKey)).toEqual([
      "dislikes:horror movies",
    ]);
  });

  it("finds them in Chinese, and leaves food to the cooking rules", () => {
    expect(ofKind("我特别喜欢爬山。", "custom_fact").map((o) => o.itemKey)).toEqual(["likes:爬山"]);
    expect(ofKind("我讨厌排队。", "custom_fact").map((o) => o.itemKey)).toEqual(["dislikes:排队"]);
    expect(
      extractOperations("以后做饭别给我推荐香菜，我喜欢少油少辣。")
        .map((o) => o.kind)
        .sort(),
    ).toEqual(["avoid_ingredient", "flavor_profile"]);
  });

  it("replaces the like card when the user no longer likes it", () => {
    const [op] = ofKind("I don't like horror movies anymore.", "custom_fact");
    expect(op).toMatchObject({
      itemKey: "dislikes:horror movies",
      target: { kind: "custom_fact", itemKey: "likes:horror movies" },
    });
    const [zh] = ofKind("我不再喜欢咖啡了。", "custom_fact");
    expect(zh).toMatchObject({ itemKey: "dislikes:咖啡", target: { kind: "custom_fact", itemKey: "likes:咖啡" } });
  });
});
