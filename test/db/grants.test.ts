import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKeys, memoryAuditEvents, scopeGrants, tenantMembers } from "~/db/schema";
import { authenticateAgentKey } from "~/server/auth/agent-auth";
import { hashApiKeySecret, verifyApiKey } from "~/server/auth/api-keys";
import { keyScopeLimits } from "~/server/auth/permissions";
import { newId } from "~/server/ids";
import { formatScope } from "~/server/memory/scope";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { createKey, createOrg } from "../support/agents";
import { callerAs } from "../support/trpc";

describe(`API keys and scope grants in the dashboard API (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  let org: Awaited<ReturnType<typeof createOrg>>;
  let other: Awaited<ReturnType<typeof createOrg>>;

  beforeAll(async () => {
    handle = await openTestDatabase();
    org = await createOrg(handle.db);
    other = await createOrg(handle.db);
  });
  afterAll(async () => handle?.destroy());

  const as = (userId: string) => callerAs(handle.db, { userId });
  const auditOf = (type: "key" | "grant") =>
    handle.db
      .select()
      .from(memoryAuditEvents)
      .where(and(eq(memoryAuditEvents.tenantId, org.tenantId), eq(memoryAuditEvents.eventType, type)));

  it("creates a key for yourself: secret shown once, only its hash stored, audited", async () => {
    const created = await as(org.memberId).keys.create({
      name: "laptop agent",
      permissions: ["memory:read", "memory:write"],
    });
    // Nothing to report: workspace:* means whatever workspaces the owner is granted (none yet).
    expect(created.scopesWithoutReach).toEqual([]);
    const named = await as(org.memberId).keys.create({
      name: "named scopes",
      permissions: ["memory:read"],
      scopes: [`user:${org.memberId}`, "workspace:not-granted"],
    });
    expect(named.scopesWithoutReach).toEqual(["workspace:not-granted"]);
    await as(org.memberId).keys.revoke({ keyId: named.apiKey.id });
    expect(created.secret).toMatch(/^mem_live_[0-9A-Za-z]{40}$/);
    expect(created.apiKey).toMatchObject({
      ownerUserId: org.memberId,
      scopes: [`user:${org.memberId}`, "session:*", "workspace:*", "global"],
      status: "active",
    });
    expect(JSON.stringify(created.apiKey)).not.toMatch(/keyHash|key_hash/);
    const [row] = await handle.db.select().from(apiKeys).where(eq(apiKeys.id, created.apiKey.id));
    expect(row?.keyHash).toBe(hashApiKeySecret(created.secret));

    const listed = await as(org.memberId).keys.list();
    expect(listed.map((k) => k.id)).toContain(created.apiKey.id);
    expect(JSON.stringify(listed)).not.toContain(created.secret);
    expect(JSON.stringify(listed)).not.toContain(row!.keyHash);
    expect((await auditOf("key")).some((e) => (e.after as { keyId?: string })?.keyId === created.apiKey.id)).toBe(true);
  });

  it("a key made with the defaults reads the organisation-wide cards an admin wrote, and cannot write them", async () => {
    const policy = await as(org.adminId).memory.write({
      operations: [
        {
          op: "create",
          kind: "custom_fact",
          itemKey: "travel_policy",
          scope: "global",
          node: {
            title: "Travel policy",
            content: "Book economy class for flights under six hours.",
            valueJson: "economy under 6h",
          },
        },
      ],
    });
    expect(policy.done).toBe(true);
    const { secret } = await as(org.memberId).keys.create({
      name: "default agent",
      permissions: ["memory:read", "memory:write"],
    });
    const agent = callerAs(handle.db, { bearer: secret });
    const found = await agent.tools.memory_search({
      queryText: "flight class travel policy",
      turn: { sessionId: "s-policy" },
    });
    expect(found.relevant.map((h) => h.id)).toContain(policy.results[0]!.nodeId);
    const write = await agent.tools.memory_write({
      operations: [
        {
          op: "create",
          kind: "custom_fact",
          itemKey: "x",
          scope: "global",
          explicitUserIntent: true,
          node: { title: "x", content: "x", valueJson: "x" },
        },
      ],
    });
    expect(write).toMatchObject({ done: false, results: [{ reason: "global_read_only" }] });

    // workspace:* in a key reaches the workspaces its owner was granted, and only those.
    const atlas = await as(org.adminId).grants.set({
      principalType: "user",
      principalId: org.memberId,
      scope: "workspace:atlas",
      canRead: true,
      canWrite: true,
    });
    const decision = (workspaceId: string) => ({
      operations: [
        {
          op: "create" as const,
          kind: "durable_decision",
          node: { title: "Use Postgres", content: "The project uses Postgres.", valueJson: "postgres" },
        },
      ],
      turn: { sessionId: "s-policy", workspaceId },
    });
    expect(await agent.tools.memory_write(decision("atlas"))).toMatchObject({
      done: true,
      results: [{ scope: "workspace:atlas" }],
    });
    // A turn workspace the key may not use is refused as any unwritable scope is, naming it.
    await expect(agent.tools.memory_write(decision("hermes"))).rejects.toMatchObject({
      code: "FORBIDDEN",
      cause: { reason: "scope_not_writable", details: { scopes: ["workspace:hermes"] } },
    });
    await as(org.adminId).grants.remove({ grantId: atlas.id });
  });

  it("lets only admins create keys for someone else, and only for members of the organisation", async () => {
    await expect(
      as(org.memberId).keys.create({ name: "x", ownerUserId: org.adminId, permissions: ["memory:read"] }),
    ).rejects.toMatchObject({
      code: "FORBIDDEN",
      cause: { reason: "admin_required" },
    });
    const service = await as(org.adminId).keys.create({
      name: "service agent",
      ownerUserId: org.memberId,
      permissions: ["memory:read"],
      scopes: ["workspace:w1"],
      rateLimitPerMinute: 60,
    });
    expect(service.apiKey).toMatchObject({
      ownerUserId: org.memberId,
      createdByUserId: org.adminId,
      scopes: ["workspace:w1"],
      rateLimitPerMinute: 60,
    });
    await expect(
      as(org.adminId).keys.create({ name: "x", ownerUserId: other.adminId, permissions: ["memory:read"] }),
    ).rejects.toMatchObject({
      code: "BAD_REQUEST",
      cause: { reason: "unknown_owner" },
    });
    await expect(
      as(org.adminId).keys.create({ name: "x", permissions: ["memory:read"], scopes: ["nonsense"] }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST", cause: { reason: "invalid_scope" } });
    // A member may not lift the rate limit that protects the organisation from a runaway agent of theirs.
    await expect(
      as(org.memberId).keys.create({ name: "x", permissions: ["memory:read"], rateLimitPerMinute: 100_000 }),
    ).rejects.toMatchObject({ code: "FORBIDDEN", cause: { reason: "admin_required" } });
    await expect(
      as(org.adminId).keys.create({ name: "x", permissions: ["memory:read"], expiresAt: "2000-01-01T00:00:00Z" }),
    ).rejects.toMatchObject({
      code: "BAD_REQUEST",
      cause: { reason: "expires_in_past" },
    });
    await expect(
      as(org.adminId).keys.create({ name: "x", permissions: ["memory:admin" as never] }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });

  it("shows members their own keys only, admins every key; revoking is scoped the same way", async () => {
    const adminKey = await as(org.adminId).keys.create({ name: "admin's", permissions: ["memory:read"] });
    const memberKeys = await as(org.memberId).keys.list();
    expect(memberKeys.every((k) => k.ownerUserId === org.memberId)).toBe(true);
    await expect(as(org.memberId).keys.list({ ownerUserId: org.adminId })).rejects.toMatchObject({ code: "FORBIDDEN" });
    const all = await as(org.adminId).keys.list();
    expect(all.map((k) => k.ownerUserId)).toEqual(expect.arrayContaining([org.adminId, org.memberId]));
    expect(
      (await as(org.adminId).keys.list({ ownerUserId: org.memberId })).every((k) => k.ownerUserId === org.memberId),
    ).toBe(true);

    await expect(as(org.memberId).keys.revoke({ keyId: adminKey.apiKey.id })).rejects.toMatchObject({
      code: "FORBIDDEN",
      cause: { reason: "not_your_key" },
    });
    await expect(as(other.adminId).keys.revoke({ keyId: adminKey.apiKey.id })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    const before = (await auditOf("key")).length;
    const revoked = await as(org.adminId).keys.revoke({ keyId: adminKey.apiKey.id });
    expect(revoked.status).toBe("revoked");
    expect((await as(org.adminId).keys.revoke({ keyId: adminKey.apiKey.id })).status).toBe("revoked");
    expect((await auditOf("key")).length).toBe(before + 1);
    await expect(callerAs(handle.db, { bearer: adminKey.secret }).tools.list()).rejects.toMatchObject({
      code: "UNAUTHORIZED",
    });
  });

  it("lets admins list, set and remove grants, each change audited, and refuses members", async () => {
    const admin = as(org.adminId);
    await expect(as(org.memberId).grants.list()).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(
      as(org.memberId).grants.set({
        principalType: "user",
        principalId: org.memberId,
        scope: "global",
        canRead: true,
        canWrite: true,
      }),
    ).rejects.toMatchObject({
      code: "FORBIDDEN",
    });

    const defaults = await admin.grants.list({ principalType: "user", principalId: org.memberId });
    expect(defaults.map((g) => g.scope).sort()).toEqual(["global", "session:*", `user:${org.memberId}`]);
    expect(defaults[0]?.principalLabel).toMatch(/^member-/);

    const before = (await auditOf("grant")).length;
    const added = await admin.grants.set({
      principalType: "user",
      principalId: org.memberId,
      scope: " workspace:w1 ",
      canRead: true,
      canWrite: false,
    });
    expect(added).toMatchObject({
      scope: "workspace:w1",
      canRead: true,
      canWrite: false,
      grantedByUserId: org.adminId,
    });
    const changed = await admin.grants.set({
      principalType: "user",
      principalId: org.memberId,
      scope: "workspace:w1",
      canRead: true,
      canWrite: true,
    });
    expect(changed.id).toBe(added.id);
    expect(changed.canWrite).toBe(true);
    await admin.grants.remove({ grantId: added.id });
    const events = (await auditOf("grant")).slice(before);
    expect(events.map((e) => e.reason)).toEqual(["grant added", "grant changed", "grant removed"]);
    expect(events[1]).toMatchObject({ before: { canWrite: false }, after: { canWrite: true }, actorId: org.adminId });

    const key = await admin.keys.create({ name: "keyed", permissions: ["memory:read"] });
    expect(
      await admin.grants.set({
        principalType: "api_key",
        principalId: key.apiKey.id,
        scope: "context:crm/acme",
        canRead: true,
        canWrite: false,
      }),
    ).toMatchObject({ principalLabel: "keyed" });

    await expect(
      admin.grants.set({
        principalType: "user",
        principalId: other.adminId,
        scope: "global",
        canRead: true,
        canWrite: false,
      }),
    ).rejects.toMatchObject({
      code: "NOT_FOUND",
      cause: { reason: "unknown_principal" },
    });
    await expect(
      admin.grants.set({
        principalType: "user",
        principalId: org.memberId,
        scope: "user:*",
        canRead: true,
        canWrite: false,
      }),
    ).rejects.toMatchObject({
      code: "BAD_REQUEST",
      cause: { reason: "invalid_scope" },
    });
    await expect(
      admin.grants.set({
        principalType: "user",
        principalId: org.memberId,
        scope: "global",
        canRead: false,
        canWrite: false,
      }),
    ).rejects.toMatchObject({
      cause: { reason: "empty_grant" },
    });
    const foreign = (await as(other.adminId).grants.list())[0]!;
    await expect(admin.grants.remove({ grantId: foreign.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  describe("agent authentication in one statement", () => {
    // An organisation of its own: these tests take the member's grants and membership away.
    let org: Awaited<ReturnType<typeof createOrg>>;
    beforeAll(async () => {
      org = await createOrg(handle.db);
    });

    it("reads the same key and scope limits as the separate lookups, and follows grant changes on the next call", async () => {
      const { secret, apiKey } = await createKey(handle.db, {
        tenantId: org.tenantId,
        ownerUserId: org.memberId,
        scopes: [`user:${org.memberId}`, "session:*", "workspace:w1", "global"],
      });
      await handle.db.insert(scopeGrants).values({
        tenantId: org.tenantId,
        id: newId("grt"),
        principalType: "user",
        principalId: org.memberId,
        scope: "workspace:w1",
        canRead: true,
        canWrite: true,
        grantedByUserId: org.adminId,
      });
      const one = await authenticateAgentKey(handle.db, secret);
      expect(one.apiKey.id).toBe(apiKey.id);
      expect(one.limits).toEqual(await keyScopeLimits(handle.db, await verifyApiKey(handle.db, secret)));
      expect(one.limits.write.map(formatScope)).toEqual(
        expect.arrayContaining(["workspace:w1", `user:${org.memberId}`]),
      );
      expect(one.limits.write.map(formatScope)).not.toContain("global");

      await handle.db
        .update(scopeGrants)
        .set({ canWrite: false })
        .where(
          and(
            eq(scopeGrants.tenantId, org.tenantId),
            eq(scopeGrants.principalId, org.memberId),
            eq(scopeGrants.scope, "workspace:w1"),
          ),
        );
      const next = await authenticateAgentKey(handle.db, secret);
      expect(next.limits.write.map(formatScope)).not.toContain("workspace:w1");
      expect(next.limits.read.map(formatScope)).toContain("workspace:w1");
    });

    it("refuses malformed, unknown and revoked keys with the same reasons as before", async () => {
      await expect(authenticateAgentKey(handle.db, "sk-not-ours")).rejects.toMatchObject({
        reason: "malformed_api_key",
      });
      await expect(authenticateAgentKey(handle.db, "mem_live_" + "x".repeat(40))).rejects.toMatchObject({
        reason: "unknown_api_key",
      });
      const { secret, apiKey } = await createKey(handle.db, { tenantId: org.tenantId, ownerUserId: org.memberId });
      await handle.db.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.id, apiKey.id));
      await expect(authenticateAgentKey(handle.db, secret)).rejects.toMatchObject({ reason: "revoked_api_key" });
    });

    it("gives a key whose owner left the organisation no scopes at all", async () => {
      const { secret } = await createKey(handle.db, { tenantId: org.tenantId, ownerUserId: org.memberId });
      await handle.db
        .delete(tenantMembers)
        .where(and(eq(tenantMembers.tenantId, org.tenantId), eq(tenantMembers.userId, org.memberId)));
      expect((await authenticateAgentKey(handle.db, secret)).limits).toEqual({ read: [], write: [] });
    });
  });
});
