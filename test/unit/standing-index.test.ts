import { describe, expect, it } from "vitest";
import { STANDING_INDEX_KINDS } from "~/db/schema";
import { ALWAYS_RECALLED_KINDS, PROFILE_KINDS } from "~/server/memory/kinds/registry";

describe("memory_nodes_standing_idx", () => {
  it("names exactly the always-recalled and profile kinds, so memory_context's standing query can use it", () => {
    // A kind added to (or removed from) these sets needs a migration of the index predicate.
    expect([...STANDING_INDEX_KINDS].sort()).toEqual([...ALWAYS_RECALLED_KINDS, ...PROFILE_KINDS].sort());
    expect([...PROFILE_KINDS].sort()).toEqual(["home_location", "occupation", "personal_relationship", "profile_name"]);
  });
});
