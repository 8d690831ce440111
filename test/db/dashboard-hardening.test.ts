import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerAccount } from "~/server/auth/accounts";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { callerAs } from "../support/trpc";

/**
 * What an attack run on a server-mode install found on the dashboard's side (issue 30): each test
 * makes the attack, then checks the refusal.
 */
describe(`dashboard hardening (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  let admin: { userId: string; tenantId: string };

  beforeAll(async () => {
    handle = await openTestDatabase();
    const first = await registerAccount(handle.db, { email: "owner@example.com", password: "owner password 1", name: "Owner", openSignup: false });
    admin = { userId: first.user.id, tenantId: first.tenantId };
  });
  afterAll(async () => handle?.destroy());

  it("answers sign-up alike for a known and an unknown email while sign-up is closed (no account enumeration)", async () => {
    const anon = callerAs(handle.db);
    const answer = (email: string) =>
      anon.account.signUp({ email, password: "some password 1" }).then(
        () => "created",
        (e: { code?: string; message?: string; cause?: { reason?: string } }) => JSON.stringify({ code: e.code, message: e.message, reason: e.cause?.reason }),
      );
    const known = await answer("owner@example.com");
    const unknown = await answer("stranger@example.com");
    expect(unknown).toContain("FORBIDDEN");
    expect(known).toBe(unknown);
  });
});
