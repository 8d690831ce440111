import { describe, expect, it } from "vitest";
import { defaultDbPoolMax } from "~/db/pool-size";
import { reportedPoolMax } from "../../bench/load/harness";

describe("defaultDbPoolMax", () => {
  it("is twice the cores, at least 4 and at most 10", () => {
    expect([1, 2, 3, 4, 5, 6, 64].map((cores) => defaultDbPoolMax(cores))).toEqual([4, 4, 6, 8, 10, 10, 10]);
  });

  it("is what the benchmark reports for a server started without --pool-max (embedded has no pool)", () => {
    expect(reportedPoolMax(undefined, false)).toBe(defaultDbPoolMax());
    expect(reportedPoolMax("7", false)).toBe(7);
    expect(reportedPoolMax(undefined, true)).toBeNull();
  });
});
