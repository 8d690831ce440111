import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryAuditEvents, memoryNodes } from "~/db/schema";
import { addUserToTenant, registerAccount } from "~/server/auth/accounts";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { callerAs } from "../support/trpc";

type Caller = ReturnType<typeof callerAs>;

/**
 * A forgotten card is erased for good from its own page, without restoring it first (issue #31,
 * item 8): the dashboard's hard forget takes the chain's last revision even when it is deleted or
 * expired, gives the usual receipt, and refuses a revision that something followed.
 */
describe(`erasing a forgotten card directly (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  let admin: { tenantId: string; userId: string; api: Caller };
  let member: Caller;

  beforeAll(async () => {
    handle = await openTestDatabase();
    const first = await registerAccount(handle.db, {
      email: "ada@example.com",
      password: "correct horse battery",
      name: "Ada",
      openSignup: false,
    });
    admin = { tenantId: first.tenantId, userId: first.user.id, api: callerAs(handle.db, { userId: first.user.id }) };
    const added = await addUserToTenant(handle.db, {
      email: "max@example.com",
      password: "member password",
      role: "member",
      tenantId: first.tenantId,
      actorUserId: first.user.id,
    });
    member = callerAs(handle.db, { userId: added.user.id });
  });
  afterAll(async () => handle?.destroy());

  /** Creates a card in the admin's profile, edits it once (two revisions) and forgets it. */
  async function forgottenCard(item: string) {
    const created = await admin.api.memory.write({
      operations: [
        {
          op: "create",
          kind: "custom_fact",
          itemKey: item,
          scope: `user:${admin.userId}`,
          node: { title: `Fact ${item}`, content: `The fact called ${item}.` },
        },
      ],
    });
    const first = created.results[0]!;
    const edited = await admin.api.memory.write({
      operations: [
        { op: "update", targetId: first.nodeId!, expectedRevision: 1, node: { title: `Fact ${item}, edited` } },
      ],
    });
    const current = edited.results[0]!;
    const soft = await admin.api.memory.forget({
      id: current.nodeId!,
      expectedRevision: current.revision!,
      mode: "soft",
      reason: "the user asked",
    });
    expect(soft.done).toBe(true);
    return {
      id: current.nodeId!,
      revision: current.revision!,
      lineageId: (await admin.api.memory.card({ id: current.nodeId! })).card.lineageId,
    };
  }

  it("erases the forgotten card's whole chain with a receipt and one hard_delete audit row", async () => {
    const card = await forgottenCard("erase-me");
    const page = await admin.api.memory.card({ id: card.id });
    // What the card page checks before offering "Erase permanently" next to "Restore".
    expect(page.card).toMatchObject({ status: "deleted", supersededById: null });
    expect(page.currentId).toBeNull();
    expect(page.writable).toBe(true);

    const erased = await admin.api.memory.forget({
      id: card.id,
      expectedRevision: card.revision,
      mode: "hard",
      reason: "erase it for good",
    });
    expect(erased).toMatchObject({ done: true, mode: "hard", deletedIds: [card.id] });
    expect(erased.receipt).toMatchObject({ revisionsRemoved: 2 });
    await expect(admin.api.memory.card({ id: card.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    const left = await handle.db
      .select()
      .from(memoryNodes)
      .where(and(eq(memoryNodes.tenantId, admin.tenantId), eq(memoryNodes.lineageId, card.lineageId)));
    expect(left).toEqual([]);
    const audits = await handle.db
      .select()
      .from(memoryAuditEvents)
      .where(and(eq(memoryAuditEvents.tenantId, admin.tenantId), eq(memoryAuditEvents.eventType, "hard_delete")));
    expect(
      audits.some((a) => (a.metadata as { receipt?: { nodeIds?: string[] } }).receipt?.nodeIds?.includes(card.id)),
    ).toBe(true);
  });

  it("refuses a forgotten revision that was restored since, naming the current one", async () => {
    const card = await forgottenCard("restored");
    const restored = await admin.api.memory.restore({ id: card.id, expectedRevision: card.revision, reason: "back" });
    expect(restored.done).toBe(true);
    const stale = await admin.api.memory.forget({
      id: card.id,
      expectedRevision: card.revision,
      mode: "hard",
      reason: "erase the old page",
    });
    expect(stale).toMatchObject({ done: false, reason: "conflict" });
    expect(stale.conflicts?.[0]).toMatchObject({ id: card.id, currentId: restored.nodeId });
    expect((await admin.api.memory.card({ id: restored.nodeId! })).card.status).toBe("active");
  });

  it("is refused to someone who may not write the card's scope", async () => {
    const card = await forgottenCard("not-yours");
    const attempt = await member.memory.forget({
      id: card.id,
      expectedRevision: card.revision,
      mode: "hard",
      reason: "not mine",
    });
    expect(attempt.done).toBe(false);
    expect(attempt.reason).toMatch(/not_found|scope_not_writable/);
    expect((await admin.api.memory.card({ id: card.id })).card.status).toBe("deleted");
  });
});
