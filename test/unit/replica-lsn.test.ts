import { describe, expect, it } from "vitest";
import { formatLsn, parseLsn, replicaName } from "~/db/replicas";

describe("WAL positions and replica names", () => {
  it("reads X/Y positions as one number, in order, and writes them back", () => {
    expect(parseLsn("0/0")).toBe(0n);
    expect(parseLsn("0/9000000")).toBe(0x9000000n);
    expect(parseLsn("1/0")).toBe(1n << 32n);
    expect(parseLsn("16/B374D848")! > parseLsn("16/B374D847")!).toBe(true);
    expect(parseLsn("2/0")! > parseLsn("1/FFFFFFFF")!).toBe(true);
    for (const text of ["0/1A2B3C4", "16/B374D848", "FFFFFFFF/FFFFFFFF"]) expect(formatLsn(parseLsn(text)!)).toBe(text);
  });

  it("refuses anything that is not a position (a token sent back by a caller is untrusted)", () => {
    for (const bad of [undefined, null, "", "abc", "1/", "/1", "1/2/3", "123456789/0", "0/123456789", " 0/1 x", 42])
      expect(parseLsn(bad), String(bad)).toBeNull();
  });

  it("names a replica by host, port and database, never its credentials", () => {
    expect(replicaName("postgres://memory:secret@replica1:5433/memory")).toBe("replica1:5433/memory");
    expect(replicaName("postgresql://replica2/memory")).toBe("replica2:5432/memory");
  });
});
