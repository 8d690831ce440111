import { describe, expect, it } from "vitest";
import { ofKind } from "./helpers";

describe("extraction family: relationships", () => {
  it("finds family, friends, colleagues and pets with their names (English)", () => {
    expect(
      ofKind("My wife Anna and my dog Max came along.", "personal_relationship").map((o) => [
        o.itemKey,
        o.node.valueJson,
      ]),
    ).toEqual([
      ["Anna", { name: "Anna", relation: "wife" }],
      ["Max", { name: "Max", relation: "dog" }],
    ]);
    expect(ofKind("I'm swamped with my kids and work.", "personal_relationship").map((o) => o.node.valueJson)).toEqual([
      { relation: "kids" },
    ]);
    // A capitalised word after the relation is a name only when it is one.
    expect(ofKind("My kids And I went out.", "personal_relationship").map((o) => o.node.valueJson)).toEqual([
      { relation: "kids" },
    ]);
  });

  it("finds them in Chinese", () => {
    expect(ofKind("我女儿叫李娜，她很可爱。", "personal_relationship").map((o) => o.node.valueJson)).toEqual([
      { name: "李娜", relation: "女儿" },
    ]);
    expect(ofKind("我的同事最近很忙。", "personal_relationship").map((o) => o.node.valueJson)).toEqual([
      { relation: "同事" },
    ]);
  });
});
