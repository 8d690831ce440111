import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKeys, DEFAULT_API_KEY_PERMISSIONS, defaultApiKeyScopes } from "~/db/schema";
import { addUserToTenant, registerAccount } from "~/server/auth/accounts";
import { createApiKey } from "~/server/auth/api-keys";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { callerAs } from "../support/trpc";

type Caller = ReturnType<typeof callerAs>;

/** Each person's own profile card for the same food, as a person writes it in the dashboard. */
const avoidCoriander = (title: string) => ({
  op: "create" as const,
  kind: "food_avoidance",
  node: { title, content: `${title}：做饭不要放香菜`, valueJson: "香菜" },
});

describe(`try recall speaks for the session's own agent (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  let tenantId: string;
  let admin: Caller;
  let bob: { userId: string; api: Caller; secret: string; keyId: string };
  let carol: Caller;

  beforeAll(async () => {
    handle = await openTestDatabase();
    const first = await registerAccount(handle.db, {
      email: "ada@example.com",
      password: "correct horse battery",
      name: "Ada Admin",
      openSignup: false,
    });
    tenantId = first.tenantId;
    admin = callerAs(handle.db, { userId: first.user.id });
    const bobUser = (
      await addUserToTenant(handle.db, {
        email: "bob@example.com",
        password: "bob's password",
        name: "Bob Builder",
        role: "member",
        tenantId,
        actorUserId: first.user.id,
      })
    ).user;
    const carolUser = (
      await addUserToTenant(handle.db, {
        email: "carol@example.com",
        password: "carol's password",
        name: "Carol",
        role: "member",
        tenantId,
        actorUserId: first.user.id,
      })
    ).user;
    carol = callerAs(handle.db, { userId: carolUser.id });
    const key = await createApiKey(handle.db, {
      tenantId,
      ownerUserId: bobUser.id,
      createdByUserId: bobUser.id,
      name: "Bob's cooking agent",
      scopes: defaultApiKeyScopes(bobUser.id),
      permissions: [...DEFAULT_API_KEY_PERMISSIONS],
    });
    bob = {
      userId: bobUser.id,
      api: callerAs(handle.db, { userId: bobUser.id }),
      secret: key.secret,
      keyId: key.apiKey.id,
    };

    expect((await admin.memory.write({ operations: [avoidCoriander("Ada 不吃香菜")] })).done).toBe(true);
    expect((await bob.api.memory.write({ operations: [avoidCoriander("Bob 不吃香菜")] })).done).toBe(true);
    // Bob's agent captures a conversation of Bob's.
    await callerAs(handle.db, { bearer: bob.secret }).tools.message_append({
      messages: [{ role: "user", content: "今晚做什么菜？" }],
      turn: { sessionId: "bob-chat" },
    });
  });
  afterAll(async () => handle?.destroy());

  it("an admin's preview of Bob's session holds Bob's profile only, each card labelled with Bob, as Bob's key gets it", async () => {
    const question = "做饭要注意什么？";
    const preview = await admin.memory.tryRecall({ sessionId: "bob-chat", question });
    expect(preview.recalledAs).toMatchObject({
      kind: "session_agent",
      ownerUserId: bob.userId,
      ownerLabel: "Bob Builder <bob@example.com>",
      key: { id: bob.keyId, name: "Bob's cooking agent" },
    });
    expect(preview.prompt).toContain("Bob 不吃香菜");
    expect(preview.prompt).not.toContain("Ada 不吃香菜");
    const profileCards = preview.cards.filter((c) => c.scope.startsWith("user:"));
    expect(profileCards.map((c) => [c.title, c.scope, c.ownerLabel])).toEqual([
      ["Bob 不吃香菜", `user:${bob.userId}`, "Bob Builder <bob@example.com>"],
    ]);
    expect(preview.hiddenScopes).toEqual([]);

    // Exactly what Bob's own key is handed for the same question in the same session.
    const agent = await callerAs(handle.db, { bearer: bob.secret }).tools.memory_context({
      queryText: question,
      turn: { sessionId: "bob-chat" },
    });
    expect(preview.prompt).toBe(agent.prompt);
    expect(preview.usedMemoryIds).toEqual(agent.usedMemoryIds);
  });

  it("Bob previewing his own session gets the same; a colleague sees it without Bob's profile, and is told", async () => {
    const question = "做饭要注意什么？";
    const own = await bob.api.memory.tryRecall({ sessionId: "bob-chat", question });
    expect(own.prompt).toContain("Bob 不吃香菜");
    expect(own.hiddenScopes).toEqual([]);
    // Carol may read any session (the default session:* grant) but not Bob's profile.
    const colleague = await carol.memory.tryRecall({ sessionId: "bob-chat", question });
    expect(colleague.prompt).not.toContain("Bob 不吃香菜");
    expect(colleague.prompt).not.toContain("Ada 不吃香菜");
    expect(colleague.hiddenScopes).toEqual([`user:${bob.userId}`]);
  });

  it("with the capturing key revoked, a default key of the owner stands in", async () => {
    await handle.db
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(and(eq(apiKeys.tenantId, tenantId), eq(apiKeys.id, bob.keyId)));
    const preview = await admin.memory.tryRecall({ sessionId: "bob-chat", question: "做饭要注意什么？" });
    expect(preview.recalledAs).toMatchObject({ kind: "session_agent", ownerUserId: bob.userId, key: null });
    expect(preview.prompt).toContain("Bob 不吃香菜");
    expect(preview.prompt).not.toContain("Ada 不吃香菜");
  });

  it("a question without a session is recalled with the viewer's own access", async () => {
    const preview = await bob.api.memory.tryRecall({ question: "做饭要注意什么？" });
    expect(preview.recalledAs).toEqual({ kind: "viewer" });
    expect(preview.prompt).toContain("Bob 不吃香菜");
  });
});
