import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryMessages, tenants } from "~/db/schema";
import type { Actor } from "~/server/memory/call-context";
import { appendMessages, deterministicMessageId } from "~/server/memory/evidence/messages";
import {
  getMessagesByIds,
  listRecentMessages,
  listSessions,
  resolveTrustedMessageIds,
} from "~/server/memory/store/messages";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";

const agent: Actor = { type: "api_key", id: "key_test" };
const tenantA = "ten_messages_a";
const tenantB = "ten_messages_b";
const ctxA = { tenantId: tenantA, actor: agent };
const ctxB = { tenantId: tenantB, actor: agent };

describe(`message log (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;

  beforeAll(async () => {
    handle = await openTestDatabase();
    await handle.db.insert(tenants).values([
      { id: tenantA, name: "A", slug: "messages-a" },
      { id: tenantB, name: "B", slug: "messages-b" },
    ]);
  });
  afterAll(async () => handle?.destroy());

  const rowsOf = (tenantId: string, sessionId: string) =>
    handle.db
      .select()
      .from(memoryMessages)
      .where(and(eq(memoryMessages.tenantId, tenantId), eq(memoryMessages.sessionId, sessionId)));

  it("stores a batch chained by parent, with hash, search text and who captured it", async () => {
    const { messages } = await appendMessages(handle.db, ctxA, {
      sessionId: "s-chain",
      userScopeId: "u1",
      messages: [
        { role: "user", content: "记住我以后做饭不要香菜" },
        { role: "assistant", content: "好的，已记住。" },
      ],
    });
    expect(messages.map((m) => m.duplicate)).toEqual([false, false]);
    expect(messages[0]!.id).toMatch(/^msg_[0-9a-f]{24}$/);
    const rows = await listRecentMessages(handle.db, { tenantId: tenantA, sessionId: "s-chain" });
    expect(rows.map((r) => r.id)).toEqual(messages.map((m) => m.id));
    expect(rows[0]!.parentId).toBeNull();
    expect(rows[1]!.parentId).toBe(messages[0]!.id);
    expect(rows[0]).toMatchObject({ userScopeId: "u1", capturedByType: "api_key", capturedById: "key_test" });
    expect(rows[0]!.contentHash).toMatch(/^[0-9a-f]{64}$/);
    const [raw] = await handle.db.select().from(memoryMessages).where(eq(memoryMessages.id, messages[0]!.id));
    expect(raw!.searchText.split(" ")).toEqual(expect.arrayContaining(["香菜", "做饭"]));

    // The next call chains onto the latest stored message.
    const next = await appendMessages(handle.db, ctxA, {
      sessionId: "s-chain",
      messages: [{ role: "user", content: "再来一道菜" }],
    });
    const [third] = await getMessagesByIds(handle.db, { tenantId: tenantA, ids: [next.messages[0]!.id] });
    expect(third!.parentId).toBe(messages[1]!.id);
  });

  it("stores the same message twice as one row (a retried batch is reported as duplicate)", async () => {
    const batch = [
      { role: "user" as const, content: "hello" },
      { role: "assistant" as const, content: "hi there" },
    ];
    const first = await appendMessages(handle.db, ctxA, { sessionId: "s-retry", messages: batch });
    const again = await appendMessages(handle.db, ctxA, { sessionId: "s-retry", messages: batch });
    expect(again.messages.map((m) => m.id)).toEqual(first.messages.map((m) => m.id));
    expect(again.messages.every((m) => m.duplicate)).toBe(true);
    expect(again.messages[0]!.createdAt).toEqual(first.messages[0]!.createdAt);
    expect(await rowsOf(tenantA, "s-retry")).toHaveLength(2);

    // Re-sending the last message plus a new one stores only the new one.
    const overlap = await appendMessages(handle.db, ctxA, {
      sessionId: "s-retry",
      messages: [
        { role: "assistant", content: "hi there" },
        { role: "user", content: "how are you?" },
      ],
    });
    expect(overlap.messages.map((m) => m.duplicate)).toEqual([true, false]);
    expect(await rowsOf(tenantA, "s-retry")).toHaveLength(3);
  });

  it("stores a batch sent twice at once only once", async () => {
    const batch = [
      { role: "user" as const, content: "parallel" },
      { role: "assistant" as const, content: "reply" },
    ];
    const [a, b] = await Promise.all([
      appendMessages(handle.db, ctxA, { sessionId: "s-race", messages: batch }),
      appendMessages(handle.db, ctxA, { sessionId: "s-race", messages: batch }),
    ]);
    expect(a.messages.map((m) => m.id)).toEqual(b.messages.map((m) => m.id));
    expect([...a.messages, ...b.messages].filter((m) => m.duplicate)).toHaveLength(2);
    expect(await rowsOf(tenantA, "s-race")).toHaveLength(2);
  });

  it("stores secrets pasted into a chat redacted, and a resent message still lands on its row", async () => {
    const said = {
      role: "user" as const,
      content: "Deploy with key sk-proj4f8Xq2LmN7pRt9VwY3zB6cD and password: hunter2!x, then email ops@example.com",
      metadata: { client: "cli", raw: { text: "password: hunter2!x" } },
    };
    const first = await appendMessages(handle.db, ctxA, { sessionId: "s-secret", messages: [said] });
    const again = await appendMessages(handle.db, ctxA, { sessionId: "s-secret", messages: [said] });
    expect(again.messages[0]).toMatchObject({ id: first.messages[0]!.id, duplicate: true });
    const [row] = await rowsOf(tenantA, "s-secret");
    expect(row!.content).toBe(
      "Deploy with key [REDACTED:api_key] and password: [REDACTED:password], then email ops@example.com",
    );
    expect(row!.searchText).not.toContain("hunter2");
    // The host's metadata too: it was stored as sent.
    expect(row!.metadata).toMatchObject({ client: "cli", raw: { text: "password: [REDACTED:password]" } });
    expect(await rowsOf(tenantA, "s-secret")).toHaveLength(1);
  });

  it("keeps the same text at different positions as separate rows", async () => {
    const { messages } = await appendMessages(handle.db, ctxA, {
      sessionId: "s-repeat",
      messages: [
        { role: "user", content: "ok" },
        { role: "assistant", content: "next step?" },
        { role: "user", content: "ok" },
      ],
    });
    expect(new Set(messages.map((m) => m.id)).size).toBe(3);
    const later = await appendMessages(handle.db, ctxA, {
      sessionId: "s-repeat",
      messages: [
        { role: "assistant", content: "done" },
        { role: "user", content: "ok" },
      ],
    });
    expect(later.messages.map((m) => m.duplicate)).toEqual([false, false]);
    expect(await rowsOf(tenantA, "s-repeat")).toHaveLength(5);
  });

  it("derives the id from clientMessageId when given, whatever the position", async () => {
    const first = await appendMessages(handle.db, ctxA, {
      sessionId: "s-client",
      messages: [
        { role: "user", content: "same" },
        { role: "user", content: "same", clientMessageId: "c-2" },
      ],
    });
    expect(first.messages[1]!.id).toBe(
      deterministicMessageId(tenantA, "s-client", {
        clientMessageId: "c-2",
        parentId: null,
        role: "user",
        content: "x",
      }),
    );
    // A deliberate repeat with a new client id is kept; the old client id is a duplicate even when sent alone later.
    const second = await appendMessages(handle.db, ctxA, {
      sessionId: "s-client",
      messages: [{ role: "user", content: "same", clientMessageId: "c-3" }],
    });
    expect(second.messages[0]!.duplicate).toBe(false);
    const replay = await appendMessages(handle.db, ctxA, {
      sessionId: "s-client",
      messages: [{ role: "user", content: "edited text", clientMessageId: "c-2" }],
    });
    expect(replay.messages[0]).toMatchObject({ id: first.messages[1]!.id, duplicate: true });
    const rows = await rowsOf(tenantA, "s-client");
    expect(rows).toHaveLength(3);
    // Append-only: the duplicate did not overwrite the stored content.
    expect(rows.find((r) => r.id === first.messages[1]!.id)!.content).toBe("same");
  });

  it("accepts an explicit parentId only from the same session", async () => {
    const base = await appendMessages(handle.db, ctxA, {
      sessionId: "s-parent",
      messages: [{ role: "user", content: "root" }],
    });
    const other = await appendMessages(handle.db, ctxA, {
      sessionId: "s-other",
      messages: [{ role: "user", content: "elsewhere" }],
    });
    const branch = await appendMessages(handle.db, ctxA, {
      sessionId: "s-parent",
      messages: [{ role: "assistant", content: "branch", parentId: base.messages[0]!.id }],
    });
    expect(branch.messages[0]!.duplicate).toBe(false);
    await expect(
      appendMessages(handle.db, ctxA, {
        sessionId: "s-parent",
        messages: [{ role: "user", content: "x", parentId: other.messages[0]!.id }],
      }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST", reason: "unknown_parent" });
  });

  it("rejects empty content, oversized content and oversized batches, writing nothing", async () => {
    await expect(
      appendMessages(handle.db, ctxA, { sessionId: "s-bad", messages: [{ role: "user", content: "   " }] }),
    ).rejects.toMatchObject({
      code: "BAD_REQUEST",
      reason: "empty_content",
    });
    await expect(
      appendMessages(handle.db, ctxA, {
        sessionId: "s-bad",
        messages: [
          { role: "user", content: "ok" },
          { role: "user", content: "x".repeat(100_001) },
        ],
      }),
    ).rejects.toMatchObject({ reason: "content_too_long" });
    const tooMany = Array.from({ length: 101 }, (_, i) => ({ role: "user" as const, content: `m${i}` }));
    await expect(appendMessages(handle.db, ctxA, { sessionId: "s-bad", messages: tooMany })).rejects.toMatchObject({
      reason: "too_many_messages",
    });
    await expect(appendMessages(handle.db, ctxA, { sessionId: "s-bad", messages: [] })).rejects.toMatchObject({
      reason: "no_messages",
    });
    expect(await rowsOf(tenantA, "s-bad")).toHaveLength(0);
  });

  it("lists the latest messages oldest-first, honouring limit and before", async () => {
    const contents = Array.from({ length: 30 }, (_, i) => `turn ${i}`);
    await appendMessages(handle.db, ctxA, {
      sessionId: "s-long",
      messages: contents.map((content, i) => ({ role: i % 2 ? "assistant" : "user", content })),
    });
    const recent = await listRecentMessages(handle.db, { tenantId: tenantA, sessionId: "s-long" });
    expect(recent.map((m) => m.content)).toEqual(contents.slice(10));
    const five = await listRecentMessages(handle.db, { tenantId: tenantA, sessionId: "s-long", limit: 5 });
    expect(five.map((m) => m.content)).toEqual(contents.slice(25));
    const earlier = await listRecentMessages(handle.db, {
      tenantId: tenantA,
      sessionId: "s-long",
      limit: 5,
      before: five[0]!.seq,
    });
    expect(earlier.map((m) => m.content)).toEqual(contents.slice(20, 25));
    const capped = await listRecentMessages(handle.db, { tenantId: tenantA, sessionId: "s-long", limit: 10_000 });
    expect(capped).toHaveLength(30);
    expect(capped.every((m, i) => i === 0 || m.seq > capped[i - 1]!.seq)).toBe(true);
  });

  it("resolves trusted ids only within the tenant and session", async () => {
    const mine = await appendMessages(handle.db, ctxA, {
      sessionId: "s-trust",
      messages: [{ role: "user", content: "evidence" }],
    });
    const otherSession = await appendMessages(handle.db, ctxA, {
      sessionId: "s-trust-2",
      messages: [{ role: "user", content: "evidence" }],
    });
    const otherTenant = await appendMessages(handle.db, ctxB, {
      sessionId: "s-trust",
      messages: [{ role: "user", content: "evidence" }],
    });
    const id = mine.messages[0]!.id;
    expect(otherTenant.messages[0]!.id).not.toBe(id);
    const trusted = await resolveTrustedMessageIds(handle.db, {
      tenantId: tenantA,
      sessionId: "s-trust",
      ids: [otherSession.messages[0]!.id, id, otherTenant.messages[0]!.id, "msg_made_up", id],
    });
    expect(trusted).toEqual([id]);
  });

  it("lists sessions with counts and timestamps, newest activity first, paged", async () => {
    await appendMessages(handle.db, ctxB, {
      sessionId: "b-1",
      userScopeId: "ub",
      messages: [
        { role: "user", content: "one" },
        { role: "assistant", content: "two" },
      ],
    });
    await appendMessages(handle.db, ctxB, {
      sessionId: "b-2",
      userScopeId: "ub",
      messages: [{ role: "user", content: "three" }],
    });
    await appendMessages(handle.db, ctxB, {
      sessionId: "b-3",
      userScopeId: "other",
      messages: [{ role: "user", content: "four" }],
    });
    const page = await listSessions(handle.db, { tenantId: tenantB, userScopeId: "ub", limit: 1 });
    expect(page.sessions.map((s) => s.sessionId)).toEqual(["b-2"]);
    expect(page.nextCursor).not.toBeNull();
    const next = await listSessions(handle.db, {
      tenantId: tenantB,
      userScopeId: "ub",
      limit: 1,
      cursor: page.nextCursor,
    });
    expect(next.sessions[0]).toMatchObject({ sessionId: "b-1", messageCount: 2, userScopeId: "ub" });
    expect(next.sessions[0]!.firstMessageAt).toBeInstanceOf(Date);
    expect(next.sessions[0]!.lastMessageAt.getTime()).toBeGreaterThanOrEqual(
      next.sessions[0]!.firstMessageAt.getTime(),
    );
    expect(next.nextCursor).toBeNull();
    await expect(listSessions(handle.db, { tenantId: tenantB, cursor: "nope" })).rejects.toMatchObject({
      reason: "invalid_cursor",
    });
  });

  it("never shows one tenant's messages to another", async () => {
    const secret = await appendMessages(handle.db, ctxA, {
      sessionId: "shared-name",
      messages: [{ role: "user", content: "A's secret" }],
    });
    expect(await listRecentMessages(handle.db, { tenantId: tenantB, sessionId: "shared-name" })).toEqual([]);
    expect(await getMessagesByIds(handle.db, { tenantId: tenantB, ids: [secret.messages[0]!.id] })).toEqual([]);
    const sessionsB = await listSessions(handle.db, { tenantId: tenantB, limit: 200 });
    expect(sessionsB.sessions.map((s) => s.sessionId)).not.toContain("shared-name");
    expect(sessionsB.sessions.every((s) => s.sessionId.startsWith("b-") || s.sessionId === "s-trust")).toBe(true);
  });
});
