import { getTableColumns } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { memoryCardRecordColumns, memoryNodes } from "~/db/schema";

describe("memoryCardRecordColumns", () => {
  it("is every card column but the search ones (only the database's matching reads those) and the unused legacy counters", () => {
    const all = Object.keys(getTableColumns(memoryNodes));
    const record = Object.keys(memoryCardRecordColumns);
    expect(all.filter((c) => !record.includes(c)).sort()).toEqual([
      "legacyAccessCount",
      "legacyHotness",
      "legacyLastAccessedAt",
      "searchBody",
      "searchKeys",
      "searchTitle",
      "searchValues",
      "searchVector",
    ]);
    expect(record.every((c) => all.includes(c))).toBe(true);
  });
});
