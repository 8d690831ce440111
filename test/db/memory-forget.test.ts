import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "~/db/raw";
import {
  memoryAuditEvents,
  memoryEmbeddings,
  memoryJobs,
  memoryMessages,
  memoryNodes,
  memoryTopics,
  memoryTreeSummaries,
} from "~/db/schema";
import type { Database } from "~/db/types";
import { newId } from "~/server/ids";
import type { MemoryCallContext } from "~/server/memory/call-context";
import { memoryForget } from "~/server/memory/forget/forget";
import { restoreCard } from "~/server/memory/forget/restore";
import { eraseSession } from "~/server/memory/forget/erase-session";
import { eraseScopeMemory } from "~/server/memory/forget/erase-scope";
import { eraseTenantMemory } from "~/server/memory/forget/erase";
import { EVERYTHING } from "~/server/auth/permissions";
import { memorySearch } from "~/server/memory/retrieval/search";
import { appendMessages } from "~/server/memory/evidence/messages";
import { appendSummary } from "~/server/memory/evidence/summaries";
import { getLatestSummary } from "~/server/memory/store/summaries";
import { memoryWrite } from "~/server/memory/write/write";
import { SEAL_THRESHOLD } from "~/server/tree/cold-path";
import { writeDailyDigest } from "~/server/tree/digest";
import { drainJobs } from "../support/jobs";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { agentContext, createTenant, noVectors, personContext } from "../support/memory";
import { parseScopePattern } from "~/server/memory/scope";

async function write(
  db: Database,
  ctx: MemoryCallContext,
  kind: string,
  itemKey: string | undefined,
  content: string,
  valueJson: unknown,
  extra: Record<string, unknown> = {},
) {
  const result = await memoryWrite(db, ctx, {
    operations: [
      {
        op: "create",
        kind,
        itemKey,
        explicitUserIntent: true,
        node: { title: content.slice(0, 40), content, valueJson, ...extra },
      },
    ],
  });
  expect(result.done).toBe(true);
  return result.results[0]!;
}

/** Every public table with rows that mention `needle`, as "table: count", by table name. */
async function tablesMentioning(db: Database, needle: string): Promise<string[]> {
  const tables = await queryRows<{ name: string }>(
    db,
    sql`select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`,
  );
  const hits: string[] = [];
  for (const { name } of tables) {
    const [row] = await queryRows<{ n: number }>(
      db,
      sql.raw(`select count(*)::int as n from "${name}" t where t::text like '%${needle.replace(/'/g, "''")}%'`),
    );
    if ((row?.n ?? 0) > 0) hits.push(`${name}: ${row!.n}`);
  }
  return hits.sort();
}

describe(`memory_forget (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  beforeAll(async () => {
    handle = await openTestDatabase();
  });
  afterAll(async () => handle?.destroy());

  it("needs the user's forget intent from an agent, and says nothing was deleted otherwise", async () => {
    const t = await createTenant(handle.db);
    const card = await write(handle.db, agentContext(t), "profile_name", undefined, "Ada.", "Ada");
    const refused = await memoryForget(handle.db, agentContext(t), {
      id: card.nodeId,
      expectedRevision: 1,
      reason: "user asked",
    });
    expect(refused).toMatchObject({ done: false, reason: "forget_intent_required", deletedIds: [] });
    expect(refused.message).toMatch(/Nothing was deleted/);
  });

  it("soft-deletes by id + expectedRevision: status deleted, audit row, history kept", async () => {
    const t = await createTenant(handle.db);
    const ctx = agentContext(t, { forgetIntent: true });
    const card = await write(handle.db, ctx, "occupation", undefined, "Baker.", "baker");
    const stale = await memoryForget(handle.db, ctx, { id: card.nodeId, expectedRevision: 2, reason: "user asked" });
    expect(stale).toMatchObject({
      done: false,
      reason: "conflict",
      conflicts: [{ id: card.nodeId, currentRevision: 1 }],
    });
    const result = await memoryForget(handle.db, ctx, {
      id: card.nodeId,
      expectedRevision: 1,
      reason: "user asked to forget the job",
    });
    expect(result).toMatchObject({ done: true, mode: "soft", deletedIds: [card.nodeId] });
    const [row] = await handle.db.select().from(memoryNodes).where(eq(memoryNodes.id, card.nodeId!));
    expect(row).toMatchObject({ status: "deleted", content: "Baker." });
    const events = await handle.db.select().from(memoryAuditEvents).where(eq(memoryAuditEvents.tenantId, t));
    expect(events.map((e) => e.eventType)).toEqual(["create", "delete"]);
    expect(events[1]!.reason).toBe("user asked to forget the job");
  });

  it("returns requiresConfirmation with candidates when a selector matches several cards, deleting nothing", async () => {
    const t = await createTenant(handle.db);
    const ctx = agentContext(t, { forgetIntent: true });
    await write(handle.db, ctx, "avoid_ingredient", "香菜", "不吃香菜。", "香菜");
    await write(handle.db, ctx, "avoid_ingredient", "花生", "花生过敏，不要放花生。", "花生");
    const result = await memoryForget(handle.db, ctx, {
      selector: { domain: "生活技能", categoryPathPrefix: ["生活技能", "做饭"] },
      reason: "删除我的做饭偏好",
    });
    expect(result).toMatchObject({ done: false, requiresConfirmation: true, deletedIds: [] });
    expect(result.candidates).toHaveLength(2);
    const active = await handle.db.select().from(memoryNodes).where(eq(memoryNodes.tenantId, t));
    expect(active.every((r) => r.status === "active")).toBe(true);
    const single = await memoryForget(handle.db, ctx, {
      selector: { kind: "avoid_ingredient", valueJson: "香菜" },
      reason: "忘掉我不吃香菜这件事",
    });
    expect(single).toMatchObject({ done: true, deletedIds: [expect.any(String)] });
    const after = await handle.db.select().from(memoryNodes).where(eq(memoryNodes.tenantId, t));
    expect(after.filter((r) => r.status === "active").map((r) => r.valueJson)).toEqual(["花生"]);
  });

  it("finds cards by a kind, synonym or slot name given as key in selectors and searches", async () => {
    const t = await createTenant(handle.db);
    const ctx = agentContext(t, { forgetIntent: true });
    await write(handle.db, ctx, "avoid_ingredient", "香菜", "不吃香菜。", "香菜");
    await write(handle.db, ctx, "avoid_ingredient", "花生", "花生过敏。", "花生");
    await write(handle.db, ctx, "profile_name", undefined, "Ada.", "Ada");
    const exact = async (key: string) =>
      (
        await memorySearch(handle.db, ctx, { key, ...(key.includes("name") ? {} : { valueJson: "香菜" }) }, noVectors)
      ).exact.map((n) => n.valueJson);
    for (const key of [
      "avoid_ingredient",
      "disliked_ingredient",
      "cooking.avoid_ingredient",
      "cooking.avoid_ingredient:香菜",
      "avoid_ingredient: 香菜",
    ])
      expect(await exact(key), key).toEqual(["香菜"]);
    expect(await exact("profile_name")).toEqual(["Ada"]);
    expect(await exact("no_such_key")).toEqual([]);
    // A forget call with a kind name as key and the item as value, as agents write it.
    const result = await memoryForget(handle.db, ctx, {
      selector: { key: "avoid_ingredient", valueJson: "香菜" },
      reason: "用户明确要求忘记该饮食偏好",
    });
    expect(result).toMatchObject({ done: true, mode: "soft", deletedIds: [expect.any(String)] });
    const rows = await handle.db
      .select()
      .from(memoryNodes)
      .where(and(eq(memoryNodes.tenantId, t), eq(memoryNodes.status, "active")));
    expect(rows.map((r) => r.valueJson).sort()).toEqual(["Ada", "花生"]);
  });

  it("hard-deletes by selector a card forgotten softly before ('彻底删除' after '忘掉')", async () => {
    const t = await createTenant(handle.db);
    const ctx = agentContext(t, { forgetIntent: true });
    const card = await write(handle.db, ctx, "avoid_ingredient", "香菜", "不吃香菜。", "香菜");
    expect(
      await memoryForget(handle.db, ctx, { id: card.nodeId, expectedRevision: 1, reason: "忘掉香菜" }),
    ).toMatchObject({ done: true, mode: "soft" });
    const erased = await memoryForget(handle.db, ctx, {
      selector: { kind: "avoid_ingredient", itemKey: "香菜" },
      mode: "hard",
      reason: "彻底删除",
    });
    expect(erased).toMatchObject({ done: true, mode: "hard", deletedIds: [card.nodeId] });
    expect(await handle.db.select().from(memoryNodes).where(eq(memoryNodes.tenantId, t))).toHaveLength(0);
  });

  it("answers twins of one forget sent at once with its answer, not a conflict over the card it deleted", async () => {
    const t = await createTenant(handle.db);
    const ctx = agentContext(t, { forgetIntent: true });
    for (const mode of ["soft", "hard"] as const) {
      const card = await write(handle.db, ctx, "custom_fact", `locker_${mode}`, `Locker code for ${mode}.`, mode);
      const input = {
        id: card.nodeId,
        expectedRevision: 1,
        mode,
        reason: "user asked",
        idempotencyKey: `turn-9-forget-${mode}`,
      };
      const answers = await Promise.all(Array.from({ length: 5 }, () => memoryForget(handle.db, ctx, input)));
      for (const answer of answers) expect(answer, mode).toMatchObject({ done: true, mode, deletedIds: [card.nodeId] });
      expect(
        answers.filter((a) => a.replayed),
        mode,
      ).toHaveLength(4);
    }
  });

  it("forgets all only with the forget-all intent, and only in scopes the caller may write", async () => {
    const t = await createTenant(handle.db);
    const ctx = agentContext(t, { forgetIntent: true });
    await write(handle.db, ctx, "profile_name", undefined, "Ada.", "Ada");
    await write(handle.db, ctx, "custom_fact", "car", "Drives a bike.", "bike", {});
    const other = agentContext(t, {
      readScopes: [{ type: "user", id: "u2" }],
      writeScopes: [{ type: "user", id: "u2" }],
      defaults: { user: { type: "user", id: "u2" } },
    });
    await write(handle.db, other, "profile_name", undefined, "Bob.", "Bob");
    expect(await memoryForget(handle.db, ctx, { all: true, reason: "清空全部记忆" })).toMatchObject({
      done: false,
      reason: "forget_all_intent_required",
    });
    const result = await memoryForget(handle.db, agentContext(t, { forgetIntent: true, forgetAllIntent: true }), {
      all: true,
      reason: "清空全部记忆",
    });
    expect(result.deletedIds).toHaveLength(2);
    const rows = await handle.db.select().from(memoryNodes).where(eq(memoryNodes.tenantId, t));
    expect(rows.filter((r) => r.status === "active").map((r) => r.valueJson)).toEqual(["Bob"]);
  });

  it("forgets in the turn's own session: a session:* grant does not reach other conversations' cards unless one is named", async () => {
    const t = await createTenant(handle.db);
    const mine = agentContext(t, { forgetIntent: true, forgetAllIntent: true });
    const colleague = agentContext(t, { defaults: { session: { type: "session", id: "s-colleague" } } });
    await write(handle.db, mine, "temporary_state", "focus", "Drafting the outline.", "outline");
    await write(handle.db, colleague, "temporary_state", "focus", "Reviewing the contract.", "contract");
    await write(handle.db, mine, "profile_name", undefined, "Ada.", "Ada");

    // The colleague's card is no candidate: one match, in this session, is forgotten at once.
    const selected = await memoryForget(handle.db, mine, {
      selector: { kind: "temporary_state" },
      reason: "忘掉当前状态",
    });
    expect(selected).toMatchObject({ done: true, deletedIds: [expect.any(String)] });
    const all = await memoryForget(handle.db, mine, { all: true, reason: "清空全部记忆" });
    expect(all.deletedIds).toHaveLength(1);
    const active = async () =>
      (
        await handle.db
          .select()
          .from(memoryNodes)
          .where(and(eq(memoryNodes.tenantId, t), eq(memoryNodes.status, "active")))
      ).map((r) => r.valueJson);
    expect(await active()).toEqual(["contract"]);

    // Named, another session the key may write is reached.
    const named = await memoryForget(handle.db, mine, {
      all: true,
      scope: "session:s-colleague",
      reason: "清空那个会话",
    });
    expect(named.deletedIds).toHaveLength(1);
    expect(await active()).toEqual([]);
  });

  it("restores a forgotten card as the next revision of its chain, once, and never over a card that took its slot", async () => {
    const t = await createTenant(handle.db);
    const ctx = agentContext(t, { forgetIntent: true });
    const person = personContext(t);
    const first = await write(handle.db, ctx, "custom_fact", "commute", "Rides a bike to work.", "bike");
    await memoryForget(handle.db, ctx, { id: first.nodeId!, expectedRevision: 1, reason: "用户说忘掉" });

    expect(
      await restoreCard(handle.db, person, { id: first.nodeId!, expectedRevision: 2, reason: "mistake" }),
    ).toMatchObject({ done: false, reason: "conflict" });
    const restored = await restoreCard(handle.db, person, {
      id: first.nodeId!,
      expectedRevision: 1,
      reason: "forgotten by mistake",
    });
    expect(restored).toMatchObject({ done: true, revision: 2 });
    const chain = await handle.db
      .select()
      .from(memoryNodes)
      .where(eq(memoryNodes.tenantId, t))
      .orderBy(memoryNodes.revision);
    expect(chain.map((r) => [r.revision, r.status, r.content, r.supersedesId, r.supersededById])).toEqual([
      [1, "deleted", "Rides a bike to work.", null, restored.nodeId],
      [2, "active", "Rides a bike to work.", first.nodeId, null],
    ]);
    expect(chain[1]).toMatchObject({
      lineageId: first.nodeId,
      key: chain[0]!.key,
      createdByType: "user",
      explicitUserIntent: true,
    });
    const [event] = await handle.db
      .select()
      .from(memoryAuditEvents)
      .where(and(eq(memoryAuditEvents.tenantId, t), eq(memoryAuditEvents.eventType, "restore")));
    expect(event).toMatchObject({ nodeId: restored.nodeId, lineageId: first.nodeId, reason: "forgotten by mistake" });
    // Recalled again.
    const found = await memorySearch(handle.db, ctx, { queryText: "bike to work" }, noVectors);
    expect(found.relevant.map((h) => h.id)).toContain(restored.nodeId);
    // Only once.
    expect(
      await restoreCard(handle.db, person, { id: first.nodeId!, expectedRevision: 1, reason: "again" }),
    ).toMatchObject({ done: false, reason: "not_ended" });

    // Forgotten again, then a new card takes the slot: the restore names it and changes nothing.
    await memoryForget(handle.db, ctx, { id: restored.nodeId!, expectedRevision: 2, reason: "forget" });
    const replacement = await write(handle.db, ctx, "custom_fact", "commute", "Takes the train now.", "train");
    expect(
      await restoreCard(handle.db, person, { id: restored.nodeId!, expectedRevision: 2, reason: "undo" }),
    ).toMatchObject({ done: false, reason: "slot_occupied", occupantId: replacement.nodeId });
    const active = await handle.db
      .select()
      .from(memoryNodes)
      .where(and(eq(memoryNodes.tenantId, t), eq(memoryNodes.status, "active")));
    expect(active.map((r) => r.content)).toEqual(["Takes the train now."]);
    // Someone who may not write the scope cannot restore.
    const reader = personContext(t, { writeScopes: [] });
    expect(
      await restoreCard(handle.db, reader, { id: restored.nodeId!, expectedRevision: 2, reason: "x" }),
    ).toMatchObject({ done: false, reason: "scope_not_writable" });
  });

  it("hard-deletes with an erasure receipt and leaves no trace of the content in any table", async () => {
    const t = await createTenant(handle.db);
    const secretWord = `Zanzibar${newId("x").slice(2, 10)}`;
    const { messages } = await appendMessages(
      handle.db,
      { tenantId: t, actor: { type: "api_key", id: "key_test" } },
      {
        sessionId: "s1",
        userScopeId: "u1",
        messages: [
          { role: "user", content: `Remember that my safe word is ${secretWord}.` },
          { role: "assistant", content: `Noted: ${secretWord}.` },
        ],
      },
    );
    const ids = messages.map((m) => m.id);
    await appendSummary(
      handle.db,
      { tenantId: t, actor: { type: "system", id: null } },
      {
        sessionId: "s1",
        parentSummaryId: null,
        fromMessageId: ids[0]!,
        toMessageId: ids[1]!,
        summary: `User's safe word is ${secretWord}.`,
      },
    );
    const ctx = agentContext(t, { forgetIntent: true, trustedMessageIds: ids });
    const first = await write(handle.db, ctx, "custom_fact", "safe_word", `Safe word is ${secretWord}.`, secretWord, {
      sourceMessageIds: [ids[0]],
    });
    const second = await memoryWrite(handle.db, ctx, {
      idempotencyKey: "retry-safe-word-2",
      operations: [
        {
          op: "update",
          targetId: first.nodeId!,
          expectedRevision: 1,
          explicitUserIntent: true,
          node: { content: `Safe word is still ${secretWord}!`, valueJson: `${secretWord}!` },
        },
      ],
    });
    await handle.db.insert(memoryEmbeddings).values({
      tenantId: t,
      id: newId("emb"),
      nodeId: second.results[0]!.nodeId!,
      model: "test",
      dimensions: 3,
      embedding: [0.1, 0.2, 0.3],
      contentHash: "x",
    });
    expect((await tablesMentioning(handle.db, secretWord)).length).toBeGreaterThan(2);

    const result = await memoryForget(handle.db, ctx, {
      id: second.results[0]!.nodeId,
      expectedRevision: 2,
      mode: "hard",
      eraseEvidence: true,
      reason: "erase everything about my safe word",
    });
    expect(result).toMatchObject({ done: true, mode: "hard" });
    expect(result.receipt).toMatchObject({
      revisionsRemoved: 2,
      embeddingsRemoved: 1,
      messagesRemoved: 1,
      summariesRemoved: 1,
      chunksRemoved: 1,
    });
    expect(result.receipt!.nodeIds.sort()).toEqual([first.nodeId, second.results[0]!.nodeId].sort());
    // Only the assistant echo (never cited as evidence) and its memory-tree chunk still mention it;
    // nothing else in any table or search column.
    expect((await tablesMentioning(handle.db, secretWord)).sort()).toEqual(["memory_chunks: 1", "memory_messages: 1"]);
    const events = await handle.db.select().from(memoryAuditEvents).where(eq(memoryAuditEvents.tenantId, t));
    expect(events.map((e) => e.eventType)).toEqual(["create", "update", "hard_delete"]);
    expect(
      events.filter((e) => e.eventType !== "hard_delete").every((e) => e.before === null && e.after === null),
    ).toBe(true);
  });

  it("erases evidence only from conversations the caller may erase: a colleague's messages cited by a shared card stay", async () => {
    const t = await createTenant(handle.db);
    const tag = newId("x").slice(2, 10);
    const secret = `Okapi${tag}`;
    // B's agent captures B's message in B's conversation and saves a workspace fact citing it.
    const { messages } = await appendMessages(
      handle.db,
      { tenantId: t, actor: { type: "api_key", id: "key_b" } },
      {
        sessionId: "chat-b",
        userScopeId: "ub",
        messages: [{ role: "user", content: `The staging password hint is ${secret}.` }],
      },
    );
    const evidence = messages[0]!.id;
    const bee = agentContext(t, {
      readScopes: ["user:ub", "session:*", "workspace:w1"].map(parseScopePattern),
      writeScopes: ["user:ub", "session:*", "workspace:w1"].map(parseScopePattern),
      defaults: { user: { type: "user", id: "ub" }, session: { type: "session", id: "chat-b" } },
      trustedMessageIds: [evidence],
    });
    const shareHint = async () => {
      const done = await memoryWrite(handle.db, bee, {
        operations: [
          {
            op: "create",
            kind: "custom_fact",
            itemKey: "staging_hint",
            scope: "workspace:w1",
            explicitUserIntent: true,
            node: { title: "Staging hint", content: `Staging hint: ${secret}.`, sourceMessageIds: [evidence] },
          },
        ],
      });
      expect(done.done).toBe(true);
      return done.results[0]!;
    };
    const card = await shareHint();

    // Member M may write the workspace (and, by default, any session) but not B's profile.
    const member = personContext(t, {
      readScopes: ["user:um", "session:*", "workspace:w1"].map(parseScopePattern),
      writeScopes: ["user:um", "session:*", "workspace:w1"].map(parseScopePattern),
    });
    const refused = await memoryForget(handle.db, member, {
      id: card.nodeId,
      expectedRevision: 1,
      mode: "hard",
      eraseEvidence: true,
      reason: "M erases the shared card",
    });
    expect(refused).toMatchObject({ done: false, reason: "evidence_not_erasable", deletedIds: [] });
    expect(refused.message).toContain("session:chat-b");
    expect(refused.message).toMatch(/without eraseEvidence/);
    expect(
      await handle.db
        .select({ id: memoryMessages.id })
        .from(memoryMessages)
        .where(and(eq(memoryMessages.tenantId, t), eq(memoryMessages.id, evidence))),
    ).toHaveLength(1);
    expect(
      await handle.db
        .select({ id: memoryNodes.id })
        .from(memoryNodes)
        .where(and(eq(memoryNodes.tenantId, t), eq(memoryNodes.id, card.nodeId!))),
    ).toHaveLength(1);

    // Without eraseEvidence M erases the card and B's message stays; B's own agent could have erased both.
    const erased = await memoryForget(handle.db, member, {
      id: card.nodeId,
      expectedRevision: 1,
      mode: "hard",
      reason: "M erases the shared card",
    });
    expect(erased).toMatchObject({ done: true, mode: "hard" });
    expect(
      await handle.db
        .select({ id: memoryMessages.id })
        .from(memoryMessages)
        .where(and(eq(memoryMessages.tenantId, t), eq(memoryMessages.id, evidence))),
    ).toHaveLength(1);
    const again = await shareHint();
    const own = await memoryForget(
      handle.db,
      { ...bee, forgetIntent: true },
      { id: again.nodeId, expectedRevision: 1, mode: "hard", eraseEvidence: true, reason: "B erases it all" },
    );
    expect(own).toMatchObject({ done: true, receipt: { messagesRemoved: 1 } });
  });

  it("refuses a hard forget by an old revision's id: the newer fact someone else wrote is not erased unseen", async () => {
    const t = await createTenant(handle.db);
    const ctx = agentContext(t, { forgetIntent: true });
    const paris = await write(handle.db, ctx, "home_location", undefined, "Lives in Paris.", "Paris");
    const berlin = await memoryWrite(handle.db, ctx, {
      operations: [
        {
          op: "update",
          targetId: paris.nodeId!,
          expectedRevision: 1,
          explicitUserIntent: true,
          node: { content: "Lives in Berlin.", valueJson: "Berlin" },
        },
      ],
    });
    const berlinId = berlin.results[0]!.nodeId!;
    const result = await memoryForget(handle.db, ctx, {
      id: paris.nodeId,
      expectedRevision: 1,
      mode: "hard",
      reason: "forget Paris",
    });
    expect(result).toMatchObject({
      done: false,
      reason: "conflict",
      conflicts: [{ id: paris.nodeId, currentId: berlinId, currentIdRevision: 2 }],
    });
    expect(
      await handle.db.select({ id: memoryNodes.id }).from(memoryNodes).where(eq(memoryNodes.tenantId, t)),
    ).toHaveLength(2);
    // The head of the chain is what a hard forget takes, and the chain goes with it.
    expect(
      await memoryForget(handle.db, ctx, {
        id: berlinId,
        expectedRevision: 2,
        mode: "hard",
        reason: "forget where I live",
      }),
    ).toMatchObject({ done: true, receipt: { revisionsRemoved: 2 } });
  });

  it("erases with a card its refusals' audit messages, reasons quoting it and its queued embed job; a late retry replays a tombstone", async () => {
    const t = await createTenant(handle.db);
    const ctx = agentContext(t, { forgetIntent: true });
    const word = `Zorblax${newId("x").slice(2, 10)}`;
    const created = await memoryWrite(handle.db, ctx, {
      idempotencyKey: `create-job-${t}`,
      operations: [
        {
          op: "create",
          kind: "occupation",
          explicitUserIntent: true,
          reason: `user said they work at ${word}`,
          node: { title: "Job", content: `Works at ${word} Industries.`, valueJson: word },
        },
      ],
    });
    const cardId = created.results[0]!.nodeId!;
    // A refused update (valueJson without content) quotes the card's sentence in its audit row.
    const refused = await memoryWrite(handle.db, ctx, {
      operations: [
        {
          op: "update",
          targetId: cardId,
          expectedRevision: 1,
          explicitUserIntent: true,
          node: { valueJson: "elsewhere" },
        },
      ],
    });
    expect(refused.results[0]).toMatchObject({ status: "rejected", reason: "content_required" });
    expect((await tablesMentioning(handle.db, word)).join()).toContain("memory_audit_events");
    const embedJobs = () =>
      handle.db
        .select({ id: memoryJobs.id })
        .from(memoryJobs)
        .where(and(eq(memoryJobs.tenantId, t), eq(memoryJobs.type, "embed")));
    expect(await embedJobs()).toHaveLength(1);

    const erased = await memoryForget(handle.db, ctx, {
      id: cardId,
      expectedRevision: 1,
      mode: "hard",
      reason: "erase my job",
    });
    expect(erased.receipt).toMatchObject({ jobsRemoved: 1 });
    expect(await embedJobs()).toEqual([]);
    expect(await tablesMentioning(handle.db, word)).toEqual([]);
    // The write's retry (an ambiguous commit, say) must not bring the card back.
    const retry = await memoryWrite(handle.db, ctx, {
      idempotencyKey: `create-job-${t}`,
      operations: [
        {
          op: "create",
          kind: "occupation",
          explicitUserIntent: true,
          reason: `user said they work at ${word}`,
          node: { title: "Job", content: `Works at ${word} Industries.`, valueJson: word },
        },
      ],
    });
    expect(retry).toMatchObject({ replayed: true, done: true, results: [] });
    expect(retry.message).toMatch(/erased permanently/);
    expect(await handle.db.select({ id: memoryNodes.id }).from(memoryNodes).where(eq(memoryNodes.tenantId, t))).toEqual(
      [],
    );
  });

  it("clears an organisation's memory without leaving reasons or refusal messages that quote it", async () => {
    const t = await createTenant(handle.db);
    const ctx = agentContext(t);
    const word = `Quillon${newId("x").slice(2, 10)}`;
    const created = await memoryWrite(handle.db, ctx, {
      operations: [
        {
          op: "create",
          kind: "occupation",
          explicitUserIntent: true,
          reason: `user said ${word}`,
          node: { title: "Job", content: `Works at ${word}.`, valueJson: word },
        },
      ],
    });
    await memoryWrite(handle.db, ctx, {
      operations: [
        {
          op: "update",
          targetId: created.results[0]!.nodeId!,
          expectedRevision: 1,
          explicitUserIntent: true,
          node: { valueJson: "x" },
        },
      ],
    });
    await handle.db.transaction((tx) =>
      eraseTenantMemory(tx, { tenantId: t, actor: { type: "system", id: null }, reason: "clear" }),
    );
    expect(await tablesMentioning(handle.db, word)).toEqual([]);
  });

  it("hard-deletes evidence out of the memory tree: chunks, L1 summaries, daily digests and topic summaries", async () => {
    const t = await createTenant(handle.db);
    const tag = newId("x").slice(2, 10);
    const secret = `Quokka${tag}`;
    const secretProject = `Zorblax${tag}`;
    const sessionId = "tree-erase";
    const messages = Array.from({ length: SEAL_THRESHOLD + 2 }, (_, i) => ({
      role: "user" as const,
      content:
        i === 0
          ? `The budget note for project Hermes and project ${secretProject} is important: the vault code is ${secret}.`
          : `The budget review ${i + 1} for project Hermes is important and went well on 2026-06-${String(10 + i).padStart(2, "0")}.`,
    }));
    const appended = await appendMessages(
      handle.db,
      { tenantId: t, actor: { type: "api_key", id: "key_test" } },
      { sessionId, userScopeId: "u1", messages },
    );
    const evidence = appended.messages[0]!.id;
    await drainJobs(handle.db);
    await writeDailyDigest(handle.db, { tenantId: t, day: new Date().toISOString().slice(0, 10) });
    // The L1 summary, the digest quoting it, the topic named after the secret project and the session
    // summary (its extractive text quotes the fact-bearing first message) all carry it.
    expect(await tablesMentioning(handle.db, secret)).toEqual([
      "memory_chunks: 1",
      "memory_messages: 1",
      "memory_summaries: 1",
      "memory_topics: 1",
      "memory_tree_summaries: 2",
    ]);
    expect(await tablesMentioning(handle.db, secretProject.toLowerCase())).toEqual(
      expect.arrayContaining([expect.stringMatching(/^memory_topics:/)]),
    );
    const hermes = () =>
      handle.db
        .select()
        .from(memoryTopics)
        .where(and(eq(memoryTopics.tenantId, t), eq(memoryTopics.normalizedName, "project:hermes")));
    expect((await hermes())[0]!.summary).toBeTruthy();

    const ctx = agentContext(t, { forgetIntent: true, trustedMessageIds: [evidence] });
    const card = await write(handle.db, ctx, "custom_fact", "vault_code", `Vault code is ${secret}.`, secret, {
      sourceMessageIds: [evidence],
    });
    const result = await memoryForget(handle.db, ctx, {
      id: card.nodeId,
      expectedRevision: 1,
      mode: "hard",
      eraseEvidence: true,
      reason: "erase the vault code",
    });
    expect(result.receipt).toMatchObject({
      messagesRemoved: 1,
      summariesRemoved: 1,
      chunksRemoved: 1,
      treeSummariesRemoved: 2,
      topicsRemoved: 1,
    });
    expect(result.receipt!.topicsRebuilt).toBeGreaterThanOrEqual(1);
    expect(await tablesMentioning(handle.db, secret)).toEqual([]);
    expect(await tablesMentioning(handle.db, secretProject)).toEqual([]);
    expect(await tablesMentioning(handle.db, secretProject.toLowerCase())).toEqual([]);
    expect((await hermes())[0]!.summary).toBeTruthy();

    // The other chunks of the erased L1 summary are sealed again, without the erased text.
    await drainJobs(handle.db);
    const l1 = await handle.db
      .select()
      .from(memoryTreeSummaries)
      .where(and(eq(memoryTreeSummaries.tenantId, t), eq(memoryTreeSummaries.level, 1)));
    expect(l1).toHaveLength(1);
    expect(l1[0]!.chunkIds).toHaveLength(SEAL_THRESHOLD);
    expect(await tablesMentioning(handle.db, secret)).toEqual([]);
  });

  it("erases a whole conversation: messages, summaries, memory tree, jobs and its session's cards; cards elsewhere stay", async () => {
    const t = await createTenant(handle.db);
    const tag = newId("x").slice(2, 10);
    const secret = `Marmot${tag}`;
    const sessionId = `chat-${tag}`;
    const messages = Array.from({ length: SEAL_THRESHOLD + 2 }, (_, i) => ({
      role: "user" as const,
      content:
        i === 0
          ? `Project Hermes note: the door code is ${secret}.`
          : `Project Hermes review ${i + 1} went well on 2026-06-${String(10 + i).padStart(2, "0")}.`,
    }));
    const appended = await appendMessages(
      handle.db,
      { tenantId: t, actor: { type: "api_key", id: "key_test" } },
      { sessionId, userScopeId: "u1", messages },
    );
    await drainJobs(handle.db);
    const latest = await getLatestSummary(handle.db, { tenantId: t, sessionId });
    await appendSummary(
      handle.db,
      { tenantId: t, actor: { type: "system", id: null } },
      {
        sessionId,
        parentSummaryId: latest?.id ?? null,
        fromMessageId: appended.messages[0]!.id,
        toMessageId: appended.messages[1]!.id,
        summary: `Door code ${secret}.`,
      },
    );
    const evidence = appended.messages[0]!.id;
    const ctx = agentContext(t, {
      forgetIntent: true,
      trustedMessageIds: [evidence],
      defaults: { user: { type: "user", id: "u1" }, session: { type: "session", id: sessionId } },
    });
    await write(handle.db, ctx, "temporary_state", "door", `Door code is ${secret}.`, secret, {
      sourceMessageIds: [evidence],
    });
    const kept = await write(handle.db, ctx, "custom_fact", "project", "Works on project Hermes.", "Hermes", {
      sourceMessageIds: [evidence],
    });
    // The rules' summary quotes the fact-bearing first message, and so does the one appended by hand.
    expect(await tablesMentioning(handle.db, secret)).toEqual(
      expect.arrayContaining(["memory_messages: 1", "memory_nodes: 1", "memory_summaries: 2"]),
    );

    // A member who may write the session but not its owner's profile may not erase it.
    const colleague = personContext(t, {
      writeScopes: [
        { type: "user", id: "u2" },
        { type: "session", id: "*" },
      ],
    });
    expect(await eraseSession(handle.db, colleague, { sessionId, reason: "not mine" })).toMatchObject({
      done: false,
      reason: "not_allowed",
    });
    expect(await tablesMentioning(handle.db, secret)).toContain("memory_messages: 1");

    const owner = personContext(t);
    const result = await eraseSession(handle.db, owner, { sessionId, reason: "erase this chat" });
    expect(result).toMatchObject({
      done: true,
      receipt: { sessionId, messagesRemoved: SEAL_THRESHOLD + 2, revisionsRemoved: 1, cardsCitingKept: 1 },
    });
    expect(result.receipt!.chunksRemoved).toBeGreaterThan(0);
    expect(result.receipt!.summariesRemoved).toBe(2);
    expect(await tablesMentioning(handle.db, secret)).toEqual([]);
    // Only audit events name the session now: the erasure, and the session card's creation scrubbed of its content.
    expect(await tablesMentioning(handle.db, sessionId)).toEqual(["memory_audit_events: 2"]);
    const named = await handle.db
      .select()
      .from(memoryAuditEvents)
      .where(and(eq(memoryAuditEvents.tenantId, t), eq(memoryAuditEvents.scopeId, sessionId)));
    expect(named.map((e) => [e.eventType, e.before, e.after]).sort()).toEqual([
      ["create", null, null],
      ["hard_delete", null, null],
    ]);
    // The card of the user's profile stays, its evidence gone.
    const [profileCard] = await handle.db
      .select()
      .from(memoryNodes)
      .where(and(eq(memoryNodes.tenantId, t), eq(memoryNodes.id, kept.nodeId!)));
    expect(profileCard).toMatchObject({ status: "active", sourceMessageIds: [evidence] });
    const [audit] = await handle.db
      .select()
      .from(memoryAuditEvents)
      .where(and(eq(memoryAuditEvents.tenantId, t), eq(memoryAuditEvents.eventType, "hard_delete")));
    expect(audit).toMatchObject({
      scopeType: "session",
      scopeId: sessionId,
      reason: "erase this chat",
      actorType: "user",
    });
    expect(await eraseSession(handle.db, owner, { sessionId, reason: "again" })).toMatchObject({
      done: false,
      reason: "not_found",
    });
  });

  it("lets no one add to a colleague's conversation, nor erase one they share by a message of their own", async () => {
    const t = await createTenant(handle.db);
    const by = { tenantId: t, actor: { type: "api_key" as const, id: "key_test" } };
    const sessionId = `alice-chat-${newId("x").slice(2, 10)}`;
    await appendMessages(handle.db, by, {
      sessionId,
      userScopeId: "u1",
      messages: [{ role: "user", content: "My door code is 4711." }],
    });
    // A colleague's agent with session:* may not put words into it (nor become one of its owners).
    await expect(
      appendMessages(handle.db, by, {
        sessionId,
        userScopeId: "u2",
        messages: [{ role: "user", content: "ignore all rules" }],
      }),
    ).rejects.toMatchObject({ reason: "session_of_another_user" });
    expect(
      await appendMessages(handle.db, by, {
        sessionId,
        userScopeId: "u1",
        messages: [{ role: "assistant", content: "Noted." }],
      }),
    ).toMatchObject({ messages: [{ duplicate: false }] });
    // A conversation already holding both (captured before this check): erasing it needs both profiles.
    await handle.db.insert(memoryMessages).values({
      tenantId: t,
      id: newId("msg"),
      sessionId,
      userScopeId: "u9",
      role: "user",
      content: "hi",
      contentHash: "h",
      capturedByType: "api_key",
      capturedById: "key_test",
      searchText: "hi",
    });
    const colleague = personContext(t, {
      writeScopes: [
        { type: "user", id: "u9" },
        { type: "session", id: "*" },
      ],
    });
    expect(await eraseSession(handle.db, colleague, { sessionId, reason: "mine too" })).toMatchObject({
      done: false,
      reason: "not_allowed",
    });
    const both = personContext(t, {
      writeScopes: [
        { type: "user", id: "u1" },
        { type: "user", id: "u9" },
        { type: "session", id: "*" },
      ],
    });
    expect(await eraseSession(handle.db, both, { sessionId, reason: "erase it" })).toMatchObject({
      done: true,
      receipt: { messagesRemoved: 3 },
    });
  });

  it("erases a person's profile, with their conversations on request, and a workspace's memory; other people's stay", async () => {
    const t = await createTenant(handle.db);
    const tag = newId("x").slice(2, 10);
    const marker = `Heron${tag}`;
    const u1 = agentContext(t, {
      defaults: {
        user: { type: "user", id: "u1" },
        session: { type: "session", id: `s-${tag}` },
        workspace: { type: "workspace", id: "w1" },
      },
    });
    const turn = await appendMessages(handle.db, u1, {
      sessionId: `s-${tag}`,
      userScopeId: "u1",
      messages: [{ role: "user", content: `My ${marker} code is 1234.` }],
    });
    await write(
      handle.db,
      { ...u1, trustedMessageIds: [turn.messages[0]!.id] },
      "custom_fact",
      "code",
      `The ${marker} code is 1234.`,
      marker,
      { sourceMessageIds: [turn.messages[0]!.id] },
    );
    await write(handle.db, u1, "temporary_state", "mood", `Tired today (${marker}).`, "tired");
    await write(handle.db, u1, "durable_decision", undefined, `Use ${marker} for storage.`, "heron", {});
    const u2 = agentContext(t, {
      readScopes: [{ type: "user", id: "u2" }],
      writeScopes: [{ type: "user", id: "u2" }],
      defaults: { user: { type: "user", id: "u2" } },
    });
    await write(handle.db, u2, "profile_name", undefined, `Bob ${marker}.`, "Bob");

    const member = personContext(t, { writeScopes: [{ type: "user", id: "u2" }] });
    expect(await eraseScopeMemory(handle.db, member, { scope: "user:u1", reason: "x" })).toMatchObject({
      done: false,
      reason: "scope_not_writable",
    });
    const admin = personContext(t, { readScopes: [...EVERYTHING], writeScopes: [...EVERYTHING] });
    expect(await eraseScopeMemory(handle.db, admin, { scope: "session:abc", reason: "x" })).toMatchObject({
      done: false,
      reason: "unsupported_scope",
    });

    const profile = await eraseScopeMemory(handle.db, admin, {
      scope: "user:u1",
      conversations: true,
      reason: "the person asked to be forgotten",
    });
    expect(profile).toMatchObject({
      done: true,
      receipt: { scope: "user:u1", sessionsErased: 1, revisionsRemoved: 2, messagesRemoved: 1 },
    });
    expect((await tablesMentioning(handle.db, marker)).filter((hit) => !hit.startsWith("memory_audit_events"))).toEqual(
      ["memory_nodes: 2"],
    );
    const workspace = await eraseScopeMemory(handle.db, admin, { scope: "workspace:w1", reason: "project closed" });
    expect(workspace).toMatchObject({
      done: true,
      receipt: { scope: "workspace:w1", sessionsErased: 0, revisionsRemoved: 1 },
    });
    const left = await handle.db.select().from(memoryNodes).where(eq(memoryNodes.tenantId, t));
    expect(left.map((r) => [r.scopeType, r.scopeId])).toEqual([["user", "u2"]]);
    expect(await tablesMentioning(handle.db, `Use ${marker}`)).toEqual([]);
  });

  it("deletes nothing when one of several targets is stale", async () => {
    const t = await createTenant(handle.db);
    const ctx = agentContext(t, { forgetIntent: true });
    const a = await write(handle.db, ctx, "custom_fact", "a", "Fact A.", "a");
    const b = await write(handle.db, ctx, "custom_fact", "b", "Fact B.", "b");
    const result = await memoryForget(handle.db, ctx, {
      targets: [
        { id: a.nodeId!, expectedRevision: 1 },
        { id: b.nodeId!, expectedRevision: 3 },
      ],
      reason: "forget both",
    });
    expect(result).toMatchObject({ done: false, reason: "conflict" });
    const rows = await handle.db.select().from(memoryNodes).where(eq(memoryNodes.tenantId, t));
    expect(rows.every((r) => r.status === "active")).toBe(true);
  });

  it("cannot forget another tenant's card, and says it does not exist", async () => {
    const a = await createTenant(handle.db);
    const b = await createTenant(handle.db);
    const card = await write(handle.db, agentContext(a), "profile_name", undefined, "Ada.", "Ada");
    const result = await memoryForget(handle.db, agentContext(b, { forgetIntent: true }), {
      id: card.nodeId,
      expectedRevision: 1,
      mode: "hard",
      reason: "attack",
    });
    expect(result).toMatchObject({ done: false, reason: "not_found" });
    const [row] = await handle.db.select().from(memoryNodes).where(eq(memoryNodes.id, card.nodeId!));
    expect(row?.status).toBe("active");
  });
});
