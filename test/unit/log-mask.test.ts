import { DrizzleQueryError } from "drizzle-orm/errors";
import { describe, expect, it } from "vitest";
import { describeError, maskLogText } from "~/server/log";

describe("log lines", () => {
  it("keep a failed statement but not its parameters (the user's memory), raw or inside JSON fields", () => {
    const failed = new DrizzleQueryError('insert into "memory_nodes" ("content") values ($1)', ["My safe word is Zanzibar", "mem_live_abcd1234secret"], Object.assign(new Error("deadlock detected"), { code: "40P01" }));
    const line = maskLogText(`tRPC tools.memory_write: DrizzleQueryError: ${describeError(failed)}`);
    expect(line).toContain('insert into "memory_nodes" ("content") values ($1)');
    expect(line).toContain("params: (not logged)");
    expect(line).toContain("caused by: deadlock detected");
    expect(line).not.toContain("Zanzibar");
    expect(line).not.toContain("secret");
    const json = maskLogText(`worker failed ${JSON.stringify({ error: describeError(failed), jobId: "job_1" })}`);
    expect(json).not.toContain("Zanzibar");
    expect(json).toContain('"jobId":"job_1"');
    expect(JSON.parse(json.slice("worker failed ".length))).toMatchObject({ jobId: "job_1" });
  });

  it("mask API keys and bearer tokens", () => {
    expect(maskLogText("key mem_live_abcdEFGH1234 and Bearer xyz.123")).toBe("key mem_live_abcd… and Bearer …");
  });
});
