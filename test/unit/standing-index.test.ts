import { describe, expect, it } from "vitest";
import { STANDING_INDEX_KINDS } from "~/db/schema";
import { ALWAYS_RECALLED_KINDS } from "~/server/memory/kinds";

describe("memory_nodes_standing_idx", () => {
  it("names exactly the always-recalled kinds, so memory_context's standing query can use it", () => {
    // A kind added to (or removed from) the always-recalled set needs a migration of the index predicate.
    expect([...STANDING_INDEX_KINDS].sort()).toEqual([...ALWAYS_RECALLED_KINDS].sort());
  });
});
