import { describe, expect, it } from "vitest";
import { parseEnv } from "~/env";

const server = {
  DATABASE_URL: "postgres://memory@primary:5432/memory",
  DATABASE_READ_URL: "postgres://memory@replica:5432/memory",
};

describe("read-replica settings", () => {
  it("takes the defaults (15 s window over a 5 s lag limit)", () => {
    const env = parseEnv(server);
    expect(env.DATABASE_READ_YOUR_WRITES_MS).toBe(15_000);
    expect(env.DATABASE_READ_MAX_LAG_MS).toBe(5_000);
    expect(env.DATABASE_READ_TIMEOUT_MS).toBe(30_000);
  });

  it("refuses a read-your-writes window shorter than the lag limit plus a probe interval, saying what to set", () => {
    expect(() => parseEnv({ ...server, DATABASE_READ_YOUR_WRITES_MS: "0" })).toThrow(
      /DATABASE_READ_YOUR_WRITES_MS: is 0 but must be at least DATABASE_READ_MAX_LAG_MS \(5000\) \+ the 1000 ms probe interval = 6000/,
    );
    expect(() => parseEnv({ ...server, DATABASE_READ_MAX_LAG_MS: "20000" })).toThrow(
      /raise it to 21000 or more, or lower DATABASE_READ_MAX_LAG_MS/,
    );
    expect(() => parseEnv({ ...server, DATABASE_READ_YOUR_WRITES_MS: "5999" })).toThrow(/DATABASE_READ_YOUR_WRITES_MS/);
    expect(parseEnv({ ...server, DATABASE_READ_YOUR_WRITES_MS: "6000" }).DATABASE_READ_YOUR_WRITES_MS).toBe(6000);
  });

  it("does not check the window without replicas (it is unused there)", () => {
    expect(
      parseEnv({ DATABASE_URL: server.DATABASE_URL, DATABASE_READ_YOUR_WRITES_MS: "0" }).DATABASE_READ_YOUR_WRITES_MS,
    ).toBe(0);
  });
});
