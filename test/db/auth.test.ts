import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accounts, apiKeys, memoryAuditEvents, users } from "~/db/schema";
import { AccountError, addUserToTenant, registerAccount, verifyCredentials } from "~/server/auth/accounts";
import { createApiKey, hashApiKeySecret } from "~/server/auth/api-keys";
import { resolveExternalUser, verifiedGitHubEmail } from "~/server/auth/external-accounts";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { TENANT_COOKIE } from "~/server/auth/tenant-cookie";
import { callerAs } from "../support/trpc";
import { authOptions } from "~/server/auth/config";

describe(`sign-in and the procedure ladder (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  let admin: { userId: string; tenantId: string };
  let member: { userId: string };
  let otherTenant: { userId: string; tenantId: string };

  beforeAll(async () => {
    handle = await openTestDatabase();
    const first = await registerAccount(handle.db, {
      email: "Admin@Example.com",
      password: "correct horse battery",
      name: "Ada",
      openSignup: false,
    });
    admin = { userId: first.user.id, tenantId: first.tenantId };
    const added = await addUserToTenant(handle.db, {
      email: "member@example.com",
      password: "member password",
      role: "member",
      tenantId: first.tenantId,
      actorUserId: first.user.id,
    });
    member = { userId: added.user.id };
    const other = await registerAccount(handle.db, {
      email: "other@example.org",
      password: "other password",
      openSignup: true,
    });
    otherTenant = { userId: other.user.id, tenantId: other.tenantId };
  });
  afterAll(async () => handle?.destroy());

  it("makes the first account of an empty install the admin, and closes sign-up afterwards", async () => {
    const [row] = await handle.db.select().from(users).where(eq(users.id, admin.userId));
    expect(row?.email).toBe("admin@example.com");
    await expect(
      registerAccount(handle.db, { email: "late@example.com", password: "late password", openSignup: false }),
    ).rejects.toMatchObject({
      reason: "signup_closed",
    });
    await expect(
      registerAccount(handle.db, { email: "admin@example.com", password: "again password", openSignup: true }),
    ).rejects.toBeInstanceOf(AccountError);
  });

  it("links a GitHub / OIDC identity to an existing account only by an email the provider verified", async () => {
    const identity = (providerAccountId: string, email: string, emailVerified: boolean) => ({
      provider: "oidc",
      providerAccountId,
      type: "oauth",
      email,
      emailVerified,
      name: null,
      image: null,
    });
    const linkedTo = async (providerAccountId: string) =>
      (await handle.db.select().from(accounts).where(eq(accounts.providerAccountId, providerAccountId))).map(
        (a) => a.userId,
      );
    // Someone who registered the admin's address at a self-service issuer, unverified: refused.
    expect(await resolveExternalUser(handle.db, identity("attacker-1", "admin@example.com", false), true)).toBeNull();
    expect(await linkedTo("attacker-1")).toEqual([]);
    // Nor does an unverified address open a new account under open sign-up.
    expect(
      await resolveExternalUser(handle.db, identity("newcomer-1", "newcomer@example.com", false), true),
    ).toBeNull();
    expect(await handle.db.select().from(users).where(eq(users.email, "newcomer@example.com"))).toEqual([]);
    // Verified: linked, and the same identity maps to that user from then on.
    expect(await resolveExternalUser(handle.db, identity("admin-sso", "Admin@Example.com", true), false)).toBe(
      admin.userId,
    );
    expect(
      await resolveExternalUser(handle.db, { ...identity("admin-sso", "changed@example.com", false) }, false),
    ).toBe(admin.userId);
    // GitHub: the primary verified address, else another verified one, never an unverified one.
    expect(
      verifiedGitHubEmail([
        { email: "a@x.org", primary: true, verified: false },
        { email: "b@x.org", primary: false, verified: true },
      ]),
    ).toBe("b@x.org");
    expect(
      verifiedGitHubEmail([
        { email: "c@x.org", primary: false, verified: true },
        { email: "d@x.org", primary: true, verified: true },
      ]),
    ).toBe("d@x.org");
    expect(verifiedGitHubEmail([{ email: "e@x.org", primary: true, verified: false }])).toBeNull();
  });

  it("stores a salted scrypt hash, never the password", async () => {
    const [row] = await handle.db.select().from(users).where(eq(users.id, admin.userId));
    expect(row?.passwordHash).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(row?.passwordHash).not.toContain("correct horse");
  });

  it("accepts the right password and rejects a wrong one or an unknown email", async () => {
    expect((await verifyCredentials(handle.db, "admin@example.com", "correct horse battery"))?.id).toBe(admin.userId);
    expect(await verifyCredentials(handle.db, "admin@example.com", "correct horse batterY")).toBeNull();
    expect(await verifyCredentials(handle.db, "nobody@example.com", "correct horse battery")).toBeNull();
  });

  it("writes an audit row for each membership", async () => {
    const events = await handle.db
      .select()
      .from(memoryAuditEvents)
      .where(eq(memoryAuditEvents.tenantId, admin.tenantId));
    expect(events.filter((e) => e.eventType === "member")).toHaveLength(2);
  });

  it("refuses signed-in procedures without a session, and with only an API key", async () => {
    const { secret } = await createApiKey(handle.db, {
      tenantId: admin.tenantId,
      ownerUserId: admin.userId,
      createdByUserId: admin.userId,
      name: "bot",
      scopes: [],
      permissions: ["memory:read"],
    });
    await expect(callerAs(handle.db).me.get()).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    await expect(callerAs(handle.db, { bearer: secret }).me.get()).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    const me = await callerAs(handle.db, { userId: admin.userId }).me.get();
    expect(me.memberships.map((m) => m.role)).toEqual(["admin"]);
  });

  it("refuses a member acting in an organisation they do not belong to", async () => {
    await expect(
      callerAs(handle.db, { userId: member.userId, tenantId: otherTenant.tenantId }).organization.get(),
    ).rejects.toMatchObject({ code: "FORBIDDEN" });
    const own = await callerAs(handle.db, { userId: otherTenant.userId }).organization.get();
    expect(own.id).toBe(otherTenant.tenantId);
  });

  it("acts in the organisation the dashboard's cookie picked, and falls back to the first one for a stale cookie", async () => {
    // The member also joins the other organisation (people may belong to several).
    await addUserToTenant(handle.db, {
      email: "member@example.com",
      password: "member password",
      role: "member",
      tenantId: otherTenant.tenantId,
      actorUserId: otherTenant.userId,
    });
    const as = (cookie: string) => callerAs(handle.db, { userId: member.userId, cookie }).organization.get();
    expect((await as(`${TENANT_COOKIE}=${otherTenant.tenantId}`)).id).toBe(otherTenant.tenantId);
    expect((await as(`theme=dark; ${TENANT_COOKIE}=${admin.tenantId}`)).id).toBe(admin.tenantId);
    // An organisation they are not (or no longer) a member of: the first membership, as the pages show.
    expect((await as(`${TENANT_COOKIE}=ten_left_long_ago`)).id).toBe(admin.tenantId);
    await callerAs(handle.db, { userId: otherTenant.userId }).admin.members.remove({ userId: member.userId });
    expect((await as(`${TENANT_COOKIE}=${otherTenant.tenantId}`)).id).toBe(admin.tenantId);
  });

  it("lets a password another organisation's admin chose open that organisation only", async () => {
    // Mallory, admin of her own organisation, makes an account for a colleague-to-be's email.
    const mallory = await registerAccount(handle.db, {
      email: "mallory@example.net",
      password: "mallory password",
      openSignup: true,
    });
    const planted = await addUserToTenant(handle.db, {
      email: "victim@corp.example",
      password: "attacker-chosen-pw",
      role: "member",
      tenantId: mallory.tenantId,
      actorUserId: mallory.user.id,
    });
    expect(planted.user.passwordSetByTenantId).toBe(mallory.tenantId);
    // The real organisation adds the same person later: an account exists, so it is an invitation, and
    // the answer says nothing about the account (issue 30: it answered with its id, unasked membership).
    const added = await callerAs(handle.db, { userId: admin.userId }).admin.members.add({
      email: "victim@corp.example",
      role: "member",
    });
    expect(added).toMatchObject({ invited: true, userId: "", name: null });
    expect(JSON.stringify(added)).not.toContain(planted.user.id);
    const signedIn = await verifyCredentials(handle.db, "victim@corp.example", "attacker-chosen-pw");
    expect(signedIn?.passwordSetByTenantId).toBe(mallory.tenantId);
    // The session such a sign-in opens (config.ts's jwt and session callbacks) is held to that organisation.
    const jwt = authOptions.callbacks!.jwt!;
    const token = await jwt({
      token: { email: "victim@corp.example" },
      user: { id: signedIn!.id, onlyTenantId: signedIn!.passwordSetByTenantId } as never,
      account: null,
      trigger: "signIn",
    } as never);
    const session = await authOptions.callbacks!.session!({ session: { user: {}, expires: "" }, token } as never);
    expect(session.user).toMatchObject({ id: planted.user.id, onlyTenantId: mallory.tenantId });
    const asPlanted = (more: { tenantId?: string; cookie?: string } = {}) =>
      callerAs(handle.db, { userId: planted.user.id, onlyTenantId: mallory.tenantId, ...more });
    // The invitation is answered by the person, not with the password Mallory chose; through an identity provider they accept.
    await expect(asPlanted().me.acceptInvitation({ tenantId: admin.tenantId })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    expect(await asPlanted().me.invitations()).toEqual([]);
    await callerAs(handle.db, { userId: planted.user.id }).me.acceptInvitation({ tenantId: admin.tenantId });
    await expect(asPlanted({ tenantId: admin.tenantId }).organization.get()).rejects.toMatchObject({
      code: "FORBIDDEN",
      message: expect.stringContaining("another organisation's admin"),
    });
    expect((await asPlanted({ cookie: `${TENANT_COOKIE}=${admin.tenantId}` }).organization.get()).id).toBe(
      mallory.tenantId,
    );
    expect((await asPlanted().me.get()).memberships.map((m) => m.tenantId)).toEqual([mallory.tenantId]);
    // Signed in through an identity provider (their own proof of the email), they reach both.
    expect(
      (await callerAs(handle.db, { userId: planted.user.id, tenantId: admin.tenantId }).organization.get()).id,
    ).toBe(admin.tenantId);
    // A password the operator sets from the CLI is the person's own.
    const reset = await addUserToTenant(handle.db, {
      email: "victim@corp.example",
      password: "operator-set-pw",
      tenantId: admin.tenantId,
      actorUserId: null,
      resetExistingPassword: true,
    });
    expect(reset.user.passwordSetByTenantId).toBeNull();
  });

  it("refuses admin procedures to members and allows them to admins, with an audit row", async () => {
    await expect(
      callerAs(handle.db, { userId: member.userId }).organization.updatePolicy({ writePolicy: "explicit-only" }),
    ).rejects.toMatchObject({ code: "FORBIDDEN" });
    const updated = await callerAs(handle.db, { userId: admin.userId }).organization.updatePolicy({
      writePolicy: "explicit-only",
    });
    expect(updated.writePolicy).toBe("explicit-only");
    const events = await handle.db.select().from(memoryAuditEvents).where(eq(memoryAuditEvents.eventType, "policy"));
    expect(events).toHaveLength(1);
    expect(events[0]?.actorId).toBe(admin.userId);
  });

  it("accepts only a valid bearer key on the agent procedure; a session is not enough", async () => {
    const { apiKey, secret } = await createApiKey(handle.db, {
      tenantId: admin.tenantId,
      ownerUserId: admin.userId,
      createdByUserId: admin.userId,
      name: "agent",
      scopes: ["session:*"],
      permissions: ["memory:read", "memory:write"],
    });
    const [stored] = await handle.db.select().from(apiKeys).where(eq(apiKeys.id, apiKey.id));
    expect(stored?.keyHash).toBe(hashApiKeySecret(secret));
    expect(JSON.stringify(stored)).not.toContain(secret);

    await expect(callerAs(handle.db, { userId: admin.userId }).me.agent()).rejects.toMatchObject({
      code: "UNAUTHORIZED",
      cause: { reason: "missing_api_key" },
    });
    await expect(callerAs(handle.db, { bearer: "mem_live_notARealKey" }).me.agent()).rejects.toMatchObject({
      code: "UNAUTHORIZED",
    });
    const who = await callerAs(handle.db, { bearer: secret }).me.agent();
    expect(who).toMatchObject({
      keyId: apiKey.id,
      tenantId: admin.tenantId,
      permissions: ["memory:read", "memory:write"],
    });

    await handle.db.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.id, apiKey.id));
    const revoked = await callerAs(handle.db, { bearer: secret })
      .me.agent()
      .catch((e: unknown) => e);
    expect(revoked).toMatchObject({ code: "UNAUTHORIZED", message: expect.stringMatching(/revoked/) });
  });

  it("refuses an expired key", async () => {
    const { secret } = await createApiKey(handle.db, {
      tenantId: admin.tenantId,
      ownerUserId: admin.userId,
      createdByUserId: admin.userId,
      name: "old",
      scopes: [],
      permissions: [],
      expiresAt: new Date(Date.now() - 1000),
    });
    await expect(callerAs(handle.db, { bearer: secret }).me.agent()).rejects.toMatchObject({
      code: "UNAUTHORIZED",
      message: expect.stringMatching(/expired/),
    });
  });
});
