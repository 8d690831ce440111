import { describe, expect, it } from "vitest";
import { ofKind } from "./helpers";

describe("extraction family: places", () => {
  it("finds home, origin and trips in English", () => {
    expect(ofKind("We moved to Boston last spring.", "home_location").map((o) => o.node.valueJson)).toEqual([
      { city: "Boston" },
    ]);
    expect(ofKind("I'm originally from Sweden.", "custom_fact").map((o) => [o.itemKey, o.node.valueJson])).toEqual([
      ["hometown", "Sweden"],
    ]);
    expect(ofKind("We went to Paris for our anniversary.", "custom_fact").map((o) => o.itemKey)).toContain(
      "trip:paris",
    );
    expect(ofKind("I went to School early.", "custom_fact").map((o) => o.itemKey)).not.toContain("trip:school");
  });

  it("finds them in Chinese", () => {
    expect(ofKind("我住在杭州，离西湖很近。", "home_location").map((o) => o.node.valueJson)).toEqual([
      { city: "杭州" },
    ]);
    expect(ofKind("我们在做北京的旅行计划。", "custom_fact").map((o) => [o.itemKey, o.node.valueJson])).toEqual([
      ["trip:北京", "北京"],
    ]);
  });
});
