import { describe, expect, it } from "vitest";
import { isConnectionLost, isDatabaseError } from "~/db/connection-errors";
import { isDatabaseFailure } from "~/server/db-routing";
import { badRequest, knownServiceError } from "~/server/errors";

const errno = (code: string) => Object.assign(new Error(`connect ${code} replica.internal:5432`), { code });
/** How drizzle wraps a driver error: "Failed query: …" with the driver's error as the cause. */
const wrapped = (cause: unknown) => new Error("Failed query: select 1", { cause });

describe("which errors are the database's", () => {
  it.each([
    "ENOTFOUND",
    "EAI_AGAIN",
    "EHOSTUNREACH",
    "ENETUNREACH",
    "ECONNABORTED",
    "ECONNREFUSED",
    "ETIMEDOUT",
    "CONNECT_TIMEOUT",
  ])(
    "%s (a replica host that does not resolve or cannot be reached) is a lost connection and a database failure, wrapped or not",
    (code) => {
      expect(isConnectionLost(errno(code))).toBe(true);
      expect(isConnectionLost(wrapped(errno(code)))).toBe(true);
      expect(isDatabaseFailure(wrapped(errno(code)))).toBe(true);
      // Told to the caller as "the database is unavailable" (503), not an unexplained 500.
      expect(knownServiceError(wrapped(errno(code)))?.reason).toBe("database_unavailable");
    },
  );

  it("counts a server error (SQLSTATE) as the database's, and neither the call's own errors nor plain bugs", () => {
    expect(
      isDatabaseFailure(
        wrapped(Object.assign(new Error("canceling statement due to conflict with recovery"), { code: "40001" })),
      ),
    ).toBe(true);
    expect(isDatabaseError(Object.assign(new Error("x"), { code: "57014" }))).toBe(true);
    expect(isDatabaseFailure(badRequest("bad_input", "no"))).toBe(false);
    expect(isDatabaseFailure(new TypeError("undefined is not a function"))).toBe(false);
    expect(isConnectionLost(errno("ENOENT"))).toBe(false);
  });
});
