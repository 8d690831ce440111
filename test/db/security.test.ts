import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryNodes, scopeGrants } from "~/db/schema";
import { AGENT_MAX_BODY_BYTES, readBodyWithin } from "~/server/rate-limit/body-limit";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { createKey, createOrg, trpcHttp } from "../support/agents";
import { callerAs } from "../support/trpc";

const create = (itemKey: string, extra: Record<string, unknown> = {}) => ({
  operations: [
    {
      op: "create" as const,
      kind: "custom_fact",
      itemKey,
      explicitUserIntent: true,
      node: { title: `Fact ${itemKey}`, content: `Something about ${itemKey}.`, ...extra },
    },
  ],
});

/** Error messages with the id replaced, so a guessed id and a real foreign id can be compared. */
const shape = (error: unknown, id: string) => {
  const e = error as { code?: string; message?: string; cause?: { reason?: string } };
  return { code: e.code, reason: e.cause?.reason, message: e.message?.replaceAll(id, "<id>") };
};

describe(`agent endpoint security (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  let a: Awaited<ReturnType<typeof createOrg>>;
  let b: Awaited<ReturnType<typeof createOrg>>;
  let keyA: string;
  let keyB: string;
  let cardB: string;

  beforeAll(async () => {
    handle = await openTestDatabase();
    a = await createOrg(handle.db);
    b = await createOrg(handle.db);
    keyA = (await createKey(handle.db, { tenantId: a.tenantId, ownerUserId: a.adminId })).secret;
    keyB = (await createKey(handle.db, { tenantId: b.tenantId, ownerUserId: b.adminId })).secret;
    const written = await callerAs(handle.db, { bearer: keyB }).tools.memory_write(create("secret_plan"));
    cardB = written.results[0]!.nodeId!;
  });
  afterAll(async () => handle?.destroy());

  const tools = (secret: string) => callerAs(handle.db, { bearer: secret }).tools;

  it("refuses a missing, garbage, revoked or expired key with UNAUTHORIZED", async () => {
    await expect(callerAs(handle.db).tools.list()).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    await expect(tools("garbage").list()).rejects.toMatchObject({
      code: "UNAUTHORIZED",
      cause: { reason: "malformed_api_key" },
    });
    await expect(
      tools("mem_live_0000000000000000000000000000000000000000").memory_search({ all: true }),
    ).rejects.toMatchObject({
      code: "UNAUTHORIZED",
      cause: { reason: "unknown_api_key" },
    });

    const expired = await createKey(handle.db, {
      tenantId: a.tenantId,
      ownerUserId: a.adminId,
      expiresAt: new Date(Date.now() - 1000),
    });
    await expect(tools(expired.secret).memory_search({ all: true })).rejects.toMatchObject({
      code: "UNAUTHORIZED",
      cause: { reason: "expired_api_key" },
    });

    const revocable = await createKey(handle.db, { tenantId: a.tenantId, ownerUserId: a.memberId });
    expect((await tools(revocable.secret).memory_search({ all: true })).enumerated).toBe(true);
    await callerAs(handle.db, { userId: a.memberId }).keys.revoke({ keyId: revocable.apiKey.id });
    await expect(tools(revocable.secret).memory_search({ all: true })).rejects.toMatchObject({
      code: "UNAUTHORIZED",
      cause: { reason: "revoked_api_key" },
    });

    const http = await trpcHttp(handle.db, "tools.memory_search", { bearer: revocable.secret, body: { all: true } });
    expect(http.status).toBe(401);
    expect(http.json.error?.data.reason).toBe("revoked_api_key");
  });

  it("never lets tenant A read, change, forget or detect tenant B's memory", async () => {
    const agent = tools(keyA);
    const guessed = "mem_0000000000000000000x";

    const foreignGet = await agent.memory_get({ id: cardB }).catch((e: unknown) => e);
    const guessedGet = await agent.memory_get({ id: guessed }).catch((e: unknown) => e);
    expect(shape(foreignGet, cardB)).toEqual(shape(guessedGet, guessed));
    expect(shape(foreignGet, cardB)).toMatchObject({ code: "NOT_FOUND", reason: "not_found" });

    const update = (targetId: string) => ({
      operations: [{ op: "update" as const, targetId, expectedRevision: 1, node: { content: "hijacked" } }],
    });
    const foreignWrite = await agent.memory_write(update(cardB));
    const guessedWrite = await agent.memory_write(update(guessed));
    expect(foreignWrite).toMatchObject({ done: false, results: [{ status: "rejected", reason: "not_found" }] });
    expect(foreignWrite.results[0]!.message.replaceAll(cardB, "<id>")).toBe(
      guessedWrite.results[0]!.message.replaceAll(guessed, "<id>"),
    );

    const forget = (id: string) =>
      agent.memory_forget({ id, expectedRevision: 1, reason: "test", turn: { forgetIntent: true } });
    const foreignForget = await forget(cardB);
    const guessedForget = await forget(guessed);
    expect(foreignForget).toMatchObject({ done: false, reason: "not_found", deletedIds: [] });
    expect(foreignForget.message.replaceAll(cardB, "<id>")).toBe(guessedForget.message.replaceAll(guessed, "<id>"));

    const all = await agent.memory_search({ all: true });
    expect(JSON.stringify(all)).not.toContain(cardB);
    const everything = await agent.memory_forget({
      all: true,
      reason: "clear",
      turn: { forgetIntent: true, forgetAllIntent: true },
    });
    expect(everything.deletedIds).not.toContain(cardB);

    // Evidence and message threading stay inside the tenant too, even with the same session id.
    const theirs = await tools(keyB).message_append({
      sessionId: "shared-name",
      messages: [{ role: "user", content: "B's words" }],
    });
    const cited = await agent.memory_write({
      ...create("stolen_evidence", { sourceMessageIds: theirs.messageIds }),
      turn: { sessionId: "shared-name" },
    });
    expect(cited).toMatchObject({ done: false, results: [{ reason: "untrusted_source" }] });
    await expect(
      agent.message_append({
        sessionId: "shared-name",
        messages: [{ role: "user", content: "reply", parentId: theirs.messageIds[0] }],
      }),
    ).rejects.toMatchObject({
      code: "BAD_REQUEST",
      cause: { reason: "unknown_parent" },
    });

    const [still] = await handle.db
      .select()
      .from(memoryNodes)
      .where(and(eq(memoryNodes.tenantId, b.tenantId), eq(memoryNodes.id, cardB)));
    expect(still).toMatchObject({ status: "active", revision: 1, content: "Something about secret_plan." });
  });

  it("hides and refuses tools the key has no permission for, naming the permission", async () => {
    const noForget = (
      await createKey(handle.db, {
        tenantId: a.tenantId,
        ownerUserId: a.adminId,
        permissions: ["memory:read", "memory:write"],
      })
    ).secret;
    const written = await tools(noForget).memory_write(create("keep_me"));
    const cardId = written.results[0]!.nodeId!;
    expect((await tools(noForget).list()).tools.map((t) => t.name)).not.toContain("memory_forget");
    const attempt = { id: cardId, expectedRevision: 1, reason: "user asked", turn: { forgetIntent: true } };
    await expect(tools(noForget).memory_forget(attempt)).rejects.toMatchObject({
      code: "FORBIDDEN",
      cause: { reason: "missing_permission", details: { permission: "memory:forget", tool: "memory_forget" } },
    });
    await expect(tools(noForget).call.call(null, { name: "memory_forget", arguments: attempt })).rejects.toMatchObject({
      code: "FORBIDDEN",
      message: expect.stringContaining("memory:forget"),
    });

    const readOnly = (
      await createKey(handle.db, { tenantId: a.tenantId, ownerUserId: a.adminId, permissions: ["memory:read"] })
    ).secret;
    await expect(tools(readOnly).memory_write(create("nope"))).rejects.toMatchObject({
      code: "FORBIDDEN",
      cause: { details: { permission: "memory:write" } },
    });
    await expect(
      tools(readOnly).message_append({ sessionId: "s", messages: [{ role: "user", content: "x" }] }),
    ).rejects.toMatchObject({
      code: "FORBIDDEN",
      cause: { details: { permission: "messages:write" } },
    });

    const [row] = await handle.db.select().from(memoryNodes).where(eq(memoryNodes.id, cardId));
    expect(row?.status).toBe("active");
  });

  it("takes access away from existing keys as soon as the owner's grant is removed", async () => {
    const memberKey = (await createKey(handle.db, { tenantId: a.tenantId, ownerUserId: a.memberId })).secret;
    const written = await tools(memberKey).memory_write(create("member_fact"));
    const cardId = written.results[0]!.nodeId!;
    expect((await tools(memberKey).memory_get({ id: cardId })).found).toBe(true);

    const admin = callerAs(handle.db, { userId: a.adminId });
    const grants = await admin.grants.list({ principalType: "user", principalId: a.memberId });
    const userGrant = grants.find((g) => g.scope === `user:${a.memberId}`)!;
    await admin.grants.remove({ grantId: userGrant.id });

    await expect(tools(memberKey).memory_get({ id: cardId })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect((await tools(memberKey).memory_search({ all: true })).exact.map((n) => n.id)).not.toContain(cardId);
    // No grant at all: the key has no default user scope left to write to.
    expect(await tools(memberKey).memory_write(create("member_fact_2"))).toMatchObject({
      done: false,
      results: [{ reason: "scope_required" }],
    });
    const forget = await tools(memberKey).memory_forget({
      id: cardId,
      expectedRevision: 1,
      reason: "x",
      turn: { forgetIntent: true },
    });
    expect(forget).toMatchObject({ done: false, reason: "not_found" });

    // Read-only grant back: reads work again, writes still do not.
    await admin.grants.set({
      principalType: "user",
      principalId: a.memberId,
      scope: `user:${a.memberId}`,
      canRead: true,
      canWrite: false,
    });
    expect((await tools(memberKey).memory_get({ id: cardId })).found).toBe(true);
    await expect(tools(memberKey).memory_write(create("member_fact_3"))).rejects.toMatchObject({
      code: "FORBIDDEN",
      cause: {
        reason: "scope_not_writable",
        details: {
          scopes: [`user:${a.memberId}`],
          results: [{ status: "rejected", reason: "scope_not_writable", scope: `user:${a.memberId}` }],
        },
      },
    });
    const rows = await handle.db
      .select()
      .from(scopeGrants)
      .where(and(eq(scopeGrants.tenantId, a.tenantId), eq(scopeGrants.principalId, a.memberId)));
    expect(rows.find((g) => g.scope === `user:${a.memberId}`)).toMatchObject({ canRead: true, canWrite: false });
  });

  it("rejects oversize and deeply nested input without writing anything", async () => {
    const agent = tools(keyA);
    const before = await handle.db.select().from(memoryNodes).where(eq(memoryNodes.tenantId, a.tenantId));

    await expect(
      agent.memory_write({
        operations: [
          { op: "create", kind: "custom_fact", itemKey: "big", node: { title: "t", content: "x".repeat(4001) } },
        ],
      }),
    ).rejects.toMatchObject({
      code: "BAD_REQUEST",
      cause: { reason: "invalid_input" },
    });
    const many = { operations: Array.from({ length: 51 }, (_, i) => create(`fact_${i}`).operations[0]!) };
    await expect(agent.memory_write(many)).rejects.toMatchObject({ code: "BAD_REQUEST" });
    let deepValue: unknown = "leaf";
    for (let i = 0; i < 9; i++) deepValue = { next: deepValue };
    await expect(agent.memory_write(create("deep", { valueJson: deepValue }))).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringMatching(/nests deeper/),
    });
    let hostile: unknown = 1;
    for (let i = 0; i < 3000; i++) hostile = [hostile];
    await expect(agent.memory_write({ ...create("hostile"), extra: hostile } as never)).rejects.toMatchObject({
      code: "BAD_REQUEST",
      cause: { reason: "too_deep" },
    });
    await expect(
      agent.memory_search({ queryText: "a", tags: ["x".repeat(AGENT_MAX_BODY_BYTES)] }),
    ).rejects.toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
    await expect(agent.memory_write(create("nul", { content: "bad\u0000text" }))).rejects.toMatchObject({
      code: "BAD_REQUEST",
      cause: { reason: "invalid_text" },
    });
    await expect(
      agent.message_append({ sessionId: "s", messages: [{ role: "user", content: "y".repeat(100_001) }] }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(
      agent.message_append({
        sessionId: "s",
        messages: Array.from({ length: 101 }, () => ({ role: "user" as const, content: "hi" })),
      }),
    ).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });

    const after = await handle.db.select().from(memoryNodes).where(eq(memoryNodes.tenantId, a.tenantId));
    expect(after).toHaveLength(before.length);
  });

  it("caps request bodies before parsing them", async () => {
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 40; i++) controller.enqueue(new Uint8Array(10_000));
        controller.close();
      },
    });
    const chunked = new Request("http://localhost/api/mcp", {
      method: "POST",
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(await readBodyWithin(chunked, AGENT_MAX_BODY_BYTES)).toEqual({ ok: false, maxBytes: AGENT_MAX_BODY_BYTES });
    const declared = new Request("http://localhost/api/mcp", {
      method: "POST",
      body: "{}",
      headers: { "content-length": String(AGENT_MAX_BODY_BYTES + 1) },
    });
    expect((await readBodyWithin(declared, AGENT_MAX_BODY_BYTES)).ok).toBe(false);
    const small = new Request("http://localhost/api/mcp", { method: "POST", body: '{"a":1}' });
    const read = await readBodyWithin(small, AGENT_MAX_BODY_BYTES);
    expect(read.ok && new TextDecoder().decode(read.bytes)).toBe('{"a":1}');
  });
});
