import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryAuditEvents, memoryNodes } from "~/db/schema";
import { addUserToTenant, registerAccount } from "~/server/auth/accounts";
import { labelScopes } from "~/server/dashboard/scope-labels";
import { appendMessages } from "~/server/memory/evidence/messages";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { callerAs } from "../support/trpc";

type Caller = ReturnType<typeof callerAs>;

/**
 * Issue 31, items 4 and 7: scopes are chosen from lists of people, workspaces and sessions (a
 * made-up one is refused with a reason), and the dashboard names people where it showed `usr_…` ids.
 */
describe(`scopes people can read and pick (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  let admin: { userId: string; tenantId: string; api: Caller };
  let bob: { userId: string; api: Caller };
  let outsider: { userId: string; tenantId: string };
  const custom = (scope: string, item: string) => ({
    op: "create" as const,
    kind: "custom_fact",
    itemKey: item,
    scope,
    node: { title: item, content: `A fact about ${item}.` },
  });

  beforeAll(async () => {
    handle = await openTestDatabase();
    const first = await registerAccount(handle.db, {
      email: "ada@example.com",
      password: "correct horse battery",
      name: "Ada Admin",
      openSignup: false,
    });
    admin = { userId: first.user.id, tenantId: first.tenantId, api: callerAs(handle.db, { userId: first.user.id }) };
    const added = await addUserToTenant(handle.db, {
      email: "bob@example.com",
      password: "member password",
      name: "Bob Builder",
      role: "member",
      tenantId: first.tenantId,
      actorUserId: first.user.id,
    });
    bob = { userId: added.user.id, api: callerAs(handle.db, { userId: added.user.id }) };
    const other = await registerAccount(handle.db, {
      email: "eve@example.org",
      password: "other password",
      name: "Eve Elsewhere",
      openSignup: true,
    });
    outsider = { userId: other.user.id, tenantId: other.tenantId };
    await admin.api.admin.workspaces.create({ name: "Mobile App", id: "mobile-app" });
    await appendMessages(
      handle.db,
      { tenantId: admin.tenantId, actor: { type: "api_key", id: "key_x" } },
      { sessionId: "chat-bob", userScopeId: bob.userId, messages: [{ role: "user", content: "hello" }] },
    );
  });
  afterAll(async () => handle?.destroy());

  it("labels people, workspaces and sessions in one call, and only members of this organisation", async () => {
    const labels = await labelScopes(handle.db, {
      tenantId: admin.tenantId,
      scopes: [
        `user:${bob.userId}`,
        "workspace:mobile-app",
        "session:chat-bob",
        "global",
        `user:${outsider.userId}`,
        "user:bob@example.com",
        "workspace:nope",
        "not a scope",
      ],
    });
    expect(labels.get(`user:${bob.userId}`)).toMatchObject({
      type: "user",
      name: "Bob Builder",
      detail: "bob@example.com",
      known: true,
    });
    expect(labels.get("workspace:mobile-app")).toMatchObject({ name: "Mobile App", known: true });
    expect(labels.get("session:chat-bob")).toMatchObject({
      type: "session",
      id: "chat-bob",
      name: "Bob Builder",
      known: true,
    });
    expect(labels.get("global")).toMatchObject({ known: true });
    // Another organisation's person is not named here.
    expect(labels.get(`user:${outsider.userId}`)).toMatchObject({ name: null, known: false });
    expect(labels.get("user:bob@example.com")).toMatchObject({ known: false, detail: `user:${bob.userId}` });
    expect(labels.get("workspace:nope")).toMatchObject({ known: false });
    expect(labels.get("not a scope")).toMatchObject({ type: null, known: false });
  });

  it("offers the admin every person, workspace and session, and a member only what they may write", async () => {
    const all = await admin.api.memory.scopeChoices();
    expect(all.people.map((p) => [p.scope, p.name, p.detail])).toEqual([
      [`user:${admin.userId}`, "Ada Admin", "ada@example.com"],
      [`user:${bob.userId}`, "Bob Builder", "bob@example.com"],
    ]);
    expect(all.workspaces.map((w) => [w.scope, w.name])).toEqual([["workspace:mobile-app", "Mobile App"]]);
    expect(all.sessions).toMatchObject([{ scope: "session:chat-bob", name: "Bob Builder" }]);
    expect(all.global).toMatchObject({ scope: "global" });

    const own = await bob.api.memory.scopeChoices();
    expect(own.people.map((p) => p.scope)).toEqual([`user:${bob.userId}`]);
    expect(own.workspaces).toEqual([]);
    expect(own.global).toBeNull();
  });

  it("creates a card in a chosen person's scope, and refuses user:<unknown> and workspace:<unknown> with a 400 and a reason", async () => {
    const done = await admin.api.memory.write({ operations: [custom(`user:${bob.userId}`, "bob-likes-tea")] });
    expect(done).toMatchObject({ done: true, results: [{ status: "created", scope: `user:${bob.userId}` }] });

    const before = await handle.db.select().from(memoryNodes).where(eq(memoryNodes.tenantId, admin.tenantId));
    const typedEmail = await admin.api.memory
      .write({ operations: [custom("user:bob@example.com", "typed-email")] })
      .catch((e: unknown) => e);
    expect(typedEmail).toMatchObject({
      code: "BAD_REQUEST",
      cause: { reason: "unknown_scope", details: { scopes: ["user:bob@example.com"] } },
    });
    // The reason says what to send instead: Bob's real scope.
    expect((typedEmail as Error).message).toContain(`user:${bob.userId}`);
    await expect(
      admin.api.memory.write({ operations: [custom(`user:${outsider.userId}`, "other-org")] }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST", cause: { reason: "unknown_scope" } });
    await expect(
      admin.api.memory.write({ operations: [custom("workspace:made-up", "made-up")] }),
    ).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringContaining("workspace:made-up is not a workspace"),
    });
    const after = await handle.db.select().from(memoryNodes).where(eq(memoryNodes.tenantId, admin.tenantId));
    expect(after).toHaveLength(before.length);
    // A known workspace and a session still work.
    await expect(
      admin.api.memory.write({
        operations: [custom("workspace:mobile-app", "ws-fact"), custom("session:chat-bob", "session-fact")],
      }),
    ).resolves.toMatchObject({ done: true });
  });

  it("rejects import lines naming nobody or no workspace, with the reason, and imports the rest", async () => {
    const line = (scope: string, item: string) =>
      JSON.stringify({ kind: "custom_fact", itemKey: item, scope, title: item, content: `Imported ${item}.` });
    const report = await admin.api.memory.import({
      lines: [
        line(`user:${bob.userId}`, "imported-ok"),
        line("user:usr_nobody", "imported-nobody"),
        line("workspace:ghost", "imported-ghost"),
      ],
      dryRun: false,
    });
    expect(report.counts).toMatchObject({ created: 1, rejected: 2 });
    expect(report.results[1]).toMatchObject({
      line: 2,
      status: "rejected",
      scope: "user:usr_nobody",
      message: expect.stringContaining("names nobody in this organisation"),
    });
    expect(report.results[2]).toMatchObject({
      line: 3,
      status: "rejected",
      message: expect.stringContaining("workspace:ghost is not a workspace"),
    });
  });

  it("labels scopes for readers only: a member gets names for what they may read, ids stay for the rest", async () => {
    const mine = await bob.api.memory.scopeLabels({
      scopes: [`user:${bob.userId}`, `user:${admin.userId}`, "session:chat-bob"],
    });
    expect(mine.map((l) => l.scope)).toEqual([`user:${bob.userId}`, "session:chat-bob"]);
    expect(mine[0]).toMatchObject({ name: "Bob Builder", detail: "bob@example.com" });
  });

  it("names whose grant on which scope, whose key and which member in audit rows, and the refused scope of a rejected write", async () => {
    await admin.api.grants.set({
      principalType: "user",
      principalId: bob.userId,
      scope: "workspace:mobile-app",
      canRead: true,
      canWrite: false,
    });
    // Bob may read but not write the workspace: the refusal is audited with the scope it was headed for.
    const refused = await bob.api.memory.write({ operations: [custom("workspace:mobile-app", "bob-writes-ws")] });
    expect(refused).toMatchObject({ done: false, results: [{ status: "rejected", reason: "scope_not_writable" }] });
    await admin.api.admin.members.setRole({ userId: bob.userId, role: "admin" });
    await admin.api.admin.members.setRole({ userId: bob.userId, role: "member" });
    await admin.api.keys.create({ name: "bob-agent", ownerUserId: bob.userId, permissions: ["memory:read"] });

    const { events } = await admin.api.memory.audit({ filter: {} });
    const grant = events.find((e) => e.eventType === "grant" && e.scope === "workspace:mobile-app");
    expect(grant).toMatchObject({
      subject: { type: "user", id: bob.userId, label: "Bob Builder <bob@example.com>" },
      scopeLabel: { name: "Mobile App", known: true },
    });
    const role = events.find((e) => e.eventType === "member" && e.reason === "role changed");
    expect(role).toMatchObject({ subject: { type: "user", id: bob.userId, label: "Bob Builder <bob@example.com>" } });
    const key = events.find((e) => e.eventType === "key");
    expect(key).toMatchObject({
      subject: {
        type: "api_key",
        label: expect.stringContaining("bob-agent") as string,
        owner: { id: bob.userId, label: "Bob Builder <bob@example.com>" },
      },
    });
    const rejected = events.find((e) => e.eventType === "rejected");
    expect(rejected).toMatchObject({
      scope: "workspace:mobile-app",
      scopeLabel: { name: "Mobile App" },
      actor: { id: bob.userId },
    });
    const [row] = await handle.db
      .select()
      .from(memoryAuditEvents)
      .where(and(eq(memoryAuditEvents.tenantId, admin.tenantId), eq(memoryAuditEvents.eventType, "rejected")));
    expect(row).toMatchObject({ scopeType: "workspace", scopeId: "mobile-app" });
  });
});
