import { describe, expect, it } from "vitest";
import { ofKind } from "./helpers";

describe("extraction family: experiences", () => {
  it("finds what the user did, with when, also without a subject as people chat", () => {
    expect(
      ofKind("I went to a LGBTQ support group yesterday and it was so powerful.", "custom_fact").map((o) => [
        o.itemKey,
        o.node.valueJson,
      ]),
    ).toEqual([
      ["did:went lgbtq support group", { what: "went to a LGBTQ support group yesterday", when: "yesterday" }],
    ]);
    expect(ofKind("Lost my job as a banker yesterday.", "custom_fact").map((o) => o.itemKey)).toEqual([
      "did:lost job as banker",
    ]);
    expect(ofKind("I'm starting a dance studio downtown.", "custom_fact").map((o) => o.itemKey)).toEqual([
      "doing:starting dance studio downtown",
    ]);
  });

  it("finds it in Chinese", () => {
    expect(ofKind("我上周参加了一个马拉松比赛。", "custom_fact").map((o) => o.itemKey)).toEqual(["did:一个马拉松比赛"]);
  });

  it("takes nothing from a question or a pleasantry", () => {
    expect(ofKind("Did you go to the concert last night?", "custom_fact")).toEqual([]);
    expect(ofKind("I had a great time, thanks!", "custom_fact")).toEqual([]);
  });
});
