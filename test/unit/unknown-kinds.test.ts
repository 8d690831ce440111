import { describe, expect, it } from "vitest";
import { BUILT_IN_KIND_REGISTRY } from "~/server/memory/kinds/custom";
import { nearKinds, unknownKindText } from "~/server/memory/kinds/unknown";

describe("unknown kind names", () => {
  it("offers the nearest kind for a misspelling, and the kinds a shortened name's words start", () => {
    expect(nearKinds(BUILT_IN_KIND_REGISTRY, "food_avoidances")).toEqual(["food_avoidance"]);
    // Names a model invents from one word of the real kind.
    expect(nearKinds(BUILT_IN_KIND_REGISTRY, "person")).toEqual(["personal_relationship"]);
    expect(nearKinds(BUILT_IN_KIND_REGISTRY, "location")).toEqual(["home_location"]);
    expect(nearKinds(BUILT_IN_KIND_REGISTRY, "preference").sort()).toEqual([
      "communication_preference",
      "cooking_time_preference",
      "language_preference",
      "timezone_preference",
    ]);
    expect(nearKinds(BUILT_IN_KIND_REGISTRY, "hobby")).toEqual([]);
    expect(unknownKindText(BUILT_IN_KIND_REGISTRY, "person")).toBe(
      'Unknown kind "person" (did you mean "personal_relationship"?)',
    );
    expect(unknownKindText(BUILT_IN_KIND_REGISTRY, "preference")).toMatch(
      /^Unknown kind "preference" \(did you mean one of "\w+", "\w+", "\w+", "\w+"\?\)$/,
    );
    expect(unknownKindText(BUILT_IN_KIND_REGISTRY, "hobby")).toBe('Unknown kind "hobby"');
  });
});
