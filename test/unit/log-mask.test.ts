import { DrizzleQueryError } from "drizzle-orm/errors";
import { describe, expect, it, vi } from "vitest";
import { describeError, log, logServerError, maskLogText } from "~/server/log";

describe("log lines", () => {
  it("keep a failed statement but not its parameters (the user's memory), raw or inside JSON fields", () => {
    const failed = new DrizzleQueryError(
      'insert into "memory_nodes" ("content") values ($1)',
      ["My safe word is Zanzibar", "mem_live_abcd1234secret"],
      Object.assign(new Error("deadlock detected"), { code: "40P01" }),
    );
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

  it("write each call on one line: a line break in an error's text cannot forge a log line", () => {
    const written: string[] = [];
    const spies = [vi.spyOn(console, "error"), vi.spyOn(console, "log")].map((spy) =>
      spy.mockImplementation((text: string) => void written.push(text)),
    );
    try {
      // What Postgres says about a forged cursor: the value, newline and all.
      const cause = Object.assign(
        new Error('invalid input syntax for type timestamp with time zone: "x\n[memory] INFO admin signed in\r\u2028"'),
        { code: "22007" },
      );
      logServerError("tRPC memory.browse", cause);
      log("info", "plain \u0000 text\tend");
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expect(written).toHaveLength(2);
    for (const text of written) expect(text).not.toMatch(/[\u0000-\u001f\u2028\u2029]/);
    expect(written[0]).toMatch(
      /^\[memory\] ERROR tRPC memory\.browse: .*"x\\n\[memory\] INFO admin signed in\\r\\u2028"$/,
    );
    expect(written[1]).toBe("[memory] INFO plain \\u0000 text\\tend");
  });
});
