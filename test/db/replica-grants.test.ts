import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ReadReplicas, registerReadReplicas, unregisterReadReplicas } from "~/db/replicas";
import { addUserToTenant, registerAccount } from "~/server/auth/accounts";
import { openTestDatabase, recordingDb, TEST_BACKEND, type TestDatabase } from "../support/db";
import { callerAs } from "../support/trpc";

/**
 * A dashboard read may run on a replica, but what the person may read is decided on the primary: a
 * grant an admin just revoked must not keep working for up to the replica's lag. The "replica" here
 * is a second handle over the primary's own connections that records each statement it runs, so
 * the test sees which statements went where (the standby suite, read-replicas.test.ts, covers the
 * real replication).
 */
describe(`dashboard grants are read on the primary (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  let replicas: ReadReplicas | undefined;

  beforeAll(async () => {
    handle = await openTestDatabase();
  });
  afterAll(async () => {
    if (replicas) unregisterReadReplicas(replicas);
    await handle?.destroy();
  });

  it("builds the member's scopes from the primary while the listing itself runs on the replica", async () => {
    const first = await registerAccount(handle.db, {
      email: "ada@example.com",
      password: "correct horse battery",
      name: "Ada Admin",
      openSignup: false,
    });
    const admin = callerAs(handle.db, { userId: first.user.id });
    const bob = await addUserToTenant(handle.db, {
      email: "bob@example.com",
      password: "member password",
      name: "Bob Builder",
      role: "member",
      tenantId: first.tenantId,
      actorUserId: first.user.id,
    });
    await admin.admin.workspaces.create({ name: "Mobile App", id: "mobile-app" });
    const grant = await admin.grants.set({
      principalType: "user",
      principalId: bob.user.id,
      scope: "workspace:mobile-app",
      canRead: true,
      canWrite: false,
    });
    await admin.memory.write({
      operations: [
        {
          op: "create",
          kind: "custom_fact",
          itemKey: "release",
          scope: "workspace:mobile-app",
          node: { title: "Release", content: "The mobile app ships on Fridays." },
        },
      ],
    });

    const recorded = await recordingDb(handle);
    replicas = new ReadReplicas(handle.db, [{ name: "recorded", db: recorded.db, close: async () => {} }], {
      maxLagMs: 5000,
      checkMs: 60_000,
    });
    replicas.replicas[0]!.status = {
      name: "recorded",
      state: "up",
      reachable: true,
      lagMs: 0,
      replayLsn: null,
      error: null,
    };
    registerReadReplicas(replicas);

    const member = callerAs(handle.db, { userId: bob.user.id });
    expect(JSON.stringify(await member.memory.browse({}))).toContain("ships on Fridays");
    await member.tree.search({ query: "release" });
    // The listings ran on the replica...
    expect(recorded.statements.some((s) => s.includes('"memory_nodes"'))).toBe(true);
    // ...the grants that narrowed them did not.
    expect(recorded.statements.filter((s) => s.includes('"scope_grants"'))).toEqual([]);

    // Revoked on the primary: the next read is refused at once, whatever the replica still holds.
    await admin.grants.remove({ grantId: grant.id });
    expect(JSON.stringify(await member.memory.browse({}))).not.toContain("ships on Fridays");
  });
});
