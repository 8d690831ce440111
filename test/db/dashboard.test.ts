import { and, eq, isNull } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import {
  apiKeys,
  memoryAuditEvents,
  memoryNodes,
  memoryQueryLog,
  memoryTopics,
  scopeGrants,
  tenants,
} from "~/db/schema";
import { addUserToTenant, registerAccount } from "~/server/auth/accounts";
import { createApiKey } from "~/server/auth/api-keys";
import { buildUserCallContext, effectiveUserScopes } from "~/server/auth/permissions";
import {
  auditCsvHeader,
  auditCsvLine,
  auditFilterFromSearchParams,
  iterateAuditEvents,
} from "~/server/dashboard/audit";
import { getCardDetail } from "~/server/dashboard/card-detail";
import { cardFilterFromSearchParams, cardFilterToSearchParams } from "~/server/dashboard/card-filter";
import { browseCards, foldCategoryTree } from "~/server/dashboard/cards";
import { dayRange } from "~/server/dashboard/stats";
import { flushBufferedWrites } from "~/db/buffered-writes";
import { exportCards } from "~/server/dashboard/transfer";
import { getTenantOverview } from "~/server/stats/overview";
import { appendMessages } from "~/server/memory/evidence/messages";
import { parseScopePattern } from "~/server/memory/scope";
import { appendSummary } from "~/server/memory/evidence/summaries";
import type { writeOperationSchema } from "~/server/memory/write/schema";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { agentContext, createOp, createTenant, writeCards } from "../support/memory";
import { callerAs } from "../support/trpc";

type Caller = ReturnType<typeof callerAs>;

type CreateOp = Extract<z.input<typeof writeOperationSchema>, { op: "create" }>;
const create = (kind: string, card: CreateOp["node"], extra: { itemKey?: string; scope?: string } = {}): CreateOp => ({
  op: "create",
  kind,
  node: card,
  ...extra,
});

describe(`dashboard queries and procedures (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  let admin: { userId: string; tenantId: string; api: Caller };
  let member: { userId: string; api: Caller };
  let outsider: { userId: string; tenantId: string; api: Caller };

  beforeAll(async () => {
    handle = await openTestDatabase();
    const first = await registerAccount(handle.db, {
      email: "ada@example.com",
      password: "correct horse battery",
      name: "Ada",
      openSignup: false,
    });
    admin = { userId: first.user.id, tenantId: first.tenantId, api: callerAs(handle.db, { userId: first.user.id }) };
    const added = await addUserToTenant(handle.db, {
      email: "max@example.com",
      password: "member password",
      role: "member",
      tenantId: first.tenantId,
      actorUserId: first.user.id,
    });
    member = { userId: added.user.id, api: callerAs(handle.db, { userId: added.user.id }) };
    const other = await registerAccount(handle.db, {
      email: "eve@example.org",
      password: "other password",
      openSignup: true,
    });
    outsider = { userId: other.user.id, tenantId: other.tenantId, api: callerAs(handle.db, { userId: other.user.id }) };
  });
  afterAll(async () => handle?.destroy());

  describe("memory browser", () => {
    let adminScope: string;
    let memberScope: string;
    beforeAll(async () => {
      adminScope = `user:${admin.userId}`;
      memberScope = `user:${member.userId}`;
      const ops = Array.from({ length: 12 }, (_, i) =>
        create(
          "custom_fact",
          {
            title: `Fact ${i}`,
            content: `Admin fact number ${i}`,
            valueJson: i,
            tags: i % 2 ? ["odd"] : ["even"],
            confidence: i / 20,
            importance: 0.5,
          },
          { itemKey: `fact-${i}`, scope: adminScope },
        ),
      );
      const result = await admin.api.memory.write({ operations: ops });
      expect(result.done).toBe(true);
      await admin.api.memory.write({
        operations: [
          create(
            "avoid_ingredient",
            { title: "不吃香菜", content: "用户做饭不要放香菜", valueJson: "香菜" },
            { scope: adminScope },
          ),
        ],
      });
      await member.api.memory.write({
        operations: [create("profile_name", { title: "Name", content: "The member is called Max.", valueJson: "Max" })],
      });
    });

    it("pages through every card exactly once with keyset cursors, newest change first", async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page: Awaited<ReturnType<Caller["memory"]["browse"]>> = await admin.api.memory.browse({
          filter: { scopes: [adminScope] },
          cursor,
          limit: 5,
        });
        seen.push(...page.cards.map((c) => c.id));
        for (let i = 1; i < page.cards.length; i++)
          expect(page.cards[i - 1]!.updatedAt >= page.cards[i]!.updatedAt).toBe(true);
        cursor = page.nextCursor;
        pages++;
      } while (cursor && pages < 10);
      expect(pages).toBe(3);
      expect(seen).toHaveLength(13);
      expect(new Set(seen).size).toBe(13);
    });

    it("filters by kind, tags, confidence range, category prefix and Chinese text", async () => {
      const byKind = await admin.api.memory.browse({ filter: { kinds: ["avoid_ingredient"] } });
      expect(byKind.cards.map((c) => c.title)).toEqual(["不吃香菜"]);
      const odd = await admin.api.memory.browse({ filter: { tags: ["odd"], minConfidence: 0.3 } });
      expect(odd.cards.map((c) => c.title).sort()).toEqual(["Fact 7", "Fact 9", "Fact 11"].sort());
      const cooking = await admin.api.memory.browse({ filter: { category: "生活技能/做饭" } });
      expect(cooking.cards).toHaveLength(1);
      const chinese = await admin.api.memory.browse({ filter: { text: "香菜" } });
      expect(chinese.cards.map((c) => c.title)).toEqual(["不吃香菜"]);
      const english = await admin.api.memory.browse({ filter: { text: "number 7" } });
      expect(english.cards.map((c) => c.title)).toEqual(["Fact 7"]);
    });

    it("shows superseded revisions only when asked, and counts the category tree", async () => {
      const [card] = (await admin.api.memory.browse({ filter: { kinds: ["avoid_ingredient"] } })).cards;
      const updated = await admin.api.memory.write({
        operations: [
          { op: "update", targetId: card!.id, expectedRevision: 1, node: { content: "用户做饭绝对不要放香菜" } },
        ],
      });
      expect(updated.results[0]).toMatchObject({ status: "updated", revision: 2 });
      const active = await admin.api.memory.browse({ filter: { kinds: ["avoid_ingredient"] } });
      expect(active.cards.map((c) => c.revision)).toEqual([2]);
      const all = await admin.api.memory.browse({
        filter: { kinds: ["avoid_ingredient"], statuses: ["active", "superseded"] },
      });
      // Both revisions changed in the same instant (the old one ended as the new one began).
      expect(all.cards.map((c) => `${c.revision}:${c.status}`).sort()).toEqual(["1:superseded", "2:active"]);
      const tree = await admin.api.memory.categoryTree();
      const cooking = tree.find((d) => d.domain === "生活技能");
      expect(cooking?.count).toBe(1);
      expect(cooking?.categories[0]).toMatchObject({
        name: "做饭",
        path: "生活技能/做饭",
        count: 1,
        children: [{ name: "饮食偏好", path: "生活技能/做饭/饮食偏好" }],
      });
    });

    it("keeps members to their grants: own scope yes, someone else's scope no", async () => {
      const mine = await member.api.memory.browse({ filter: {} });
      expect(mine.cards.map((c) => c.scope)).toEqual([memberScope]);
      await expect(member.api.memory.browse({ filter: { scopes: [adminScope] } })).rejects.toMatchObject({
        code: "FORBIDDEN",
      });
      const [adminCard] = (await admin.api.memory.browse({ filter: { kinds: ["avoid_ingredient"] } })).cards;
      await expect(member.api.memory.card({ id: adminCard!.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
      const facets = await member.api.memory.facets();
      expect(facets.kinds.map((k) => k.kind)).toEqual(["profile_name"]);
      // Admins see the member's card too.
      const everything = await admin.api.memory.browse({ filter: { scopes: [memberScope] } });
      expect(everything.cards).toHaveLength(1);
    });

    it("isolates organisations completely", async () => {
      const theirs = await outsider.api.memory.browse({
        filter: { statuses: ["active", "superseded", "expired", "deleted"] },
      });
      expect(theirs.cards).toEqual([]);
      const [adminCard] = (await admin.api.memory.browse({ filter: { kinds: ["avoid_ingredient"] } })).cards;
      await expect(outsider.api.memory.card({ id: adminCard!.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
      await expect(
        outsider.api.memory.write({ operations: [{ op: "expire", targetId: adminCard!.id, expectedRevision: 2 }] }),
      ).resolves.toMatchObject({ done: false, results: [{ status: "rejected", reason: "not_found" }] });
      // Asking for the other organisation by header is refused at the procedure level.
      await expect(
        callerAs(handle.db, { userId: outsider.userId, tenantId: admin.tenantId }).memory.browse({}),
      ).rejects.toMatchObject({ code: "FORBIDDEN" });
      const theirEvents = (await outsider.api.memory.audit({})).events;
      expect(
        theirEvents.some((e) => e.scope === adminScope || e.nodeId === adminCard!.id || e.lineageId === adminCard!.id),
      ).toBe(false);
    });

    it("round-trips filters through the URL", () => {
      const filter = {
        scopes: ["global"],
        kinds: ["a", "b"],
        statuses: ["active" as const, "deleted" as const],
        minConfidence: 0.2,
        text: "香菜 coriander",
        category: "x/y",
      };
      const params = cardFilterToSearchParams(filter);
      expect(
        cardFilterFromSearchParams(Object.fromEntries([...new Set(params.keys())].map((k) => [k, params.getAll(k)]))),
      ).toEqual(filter);
      expect(cardFilterFromSearchParams({ status: "bogus", minConfidence: "7", type: "fact" })).toEqual({
        types: ["fact"],
      });
    });

    it("rejects a tampered cursor with a clear message", async () => {
      await expect(admin.api.memory.browse({ cursor: "not-a-cursor" })).rejects.toMatchObject({
        code: "BAD_REQUEST",
        message: expect.stringContaining("first page"),
      });
    });
  });

  describe("card page and corrections", () => {
    let cardId: string;
    beforeAll(async () => {
      const result = await admin.api.memory.write({
        operations: [
          create(
            "occupation",
            { title: "Job", content: "Ada is an engineer.", valueJson: "engineer" },
            { scope: `user:${admin.userId}` },
          ),
        ],
      });
      cardId = result.results[0]!.nodeId!;
    });

    it("shows revisions, an audit timeline with named actors, and evidence", async () => {
      const updated = await admin.api.memory.write({
        operations: [
          {
            op: "update",
            targetId: cardId,
            expectedRevision: 1,
            node: { content: "Ada is a staff engineer.", valueJson: "staff engineer" },
          },
        ],
      });
      const detail = await admin.api.memory.card({ id: updated.results[0]!.nodeId! });
      expect(detail.revisions.map((r) => `${r.revision}:${r.status}`)).toEqual(["1:superseded", "2:active"]);
      expect(detail.currentId).toBe(detail.card.id);
      expect(detail.revisions[1]!.supersedesId).toBe(cardId);
      expect(detail.events.map((e) => e.eventType)).toEqual(["update", "create"]);
      expect(detail.events[0]!.actor).toMatchObject({ type: "user", id: admin.userId, label: "Ada <ada@example.com>" });
      expect(detail.evidence).toEqual([]);
    });

    it("reports a concurrent change as a conflict with the current revision, never overwriting", async () => {
      const stale = await admin.api.memory.write({
        operations: [{ op: "update", targetId: cardId, expectedRevision: 1, node: { content: "Ada is a manager." } }],
      });
      expect(stale.done).toBe(false);
      expect(stale.results[0]).toMatchObject({ status: "conflict", currentStatus: "superseded" });
      const detail = await admin.api.memory.card({ id: cardId });
      expect(detail.revisions.filter((r) => r.status === "active").map((r) => r.content)).toEqual([
        "Ada is a staff engineer.",
      ]);
    });

    it("explains recall with the search's answer for the card's title, without counting it as a search", async () => {
      const loggedSearches = async () => {
        await flushBufferedWrites(handle.db);
        return (await handle.db.select().from(memoryQueryLog).where(eq(memoryQueryLog.tenantId, admin.tenantId)))
          .length;
      };
      const before = await loggedSearches();
      const detail = await admin.api.memory.card({ id: cardId });
      const why = await admin.api.memory.whyRecalled({ id: detail.currentId! });
      expect(why.query).toBe("Job");
      // The card's own title finds it: it has a place among the answers, and the signals that put it there.
      expect(why.rank).not.toBeNull();
      expect(why.rank!).toBeGreaterThanOrEqual(1);
      expect(why.rank!).toBeLessThanOrEqual(why.total);
      expect(why.matchedBy.length).toBeGreaterThan(0);
      // A card page view is not a search: the usage charts count what people and agents searched for.
      expect(await loggedSearches()).toBe(before);
    });

    it("soft-forgets at the seen revision and hard-forgets with an erasure receipt", async () => {
      const detail = await admin.api.memory.card({ id: cardId });
      const current = detail.revisions.find((r) => r.status === "active")!;
      await expect(
        admin.api.memory.forget({ id: current.id, expectedRevision: 1, mode: "soft", reason: "wrong revision" }),
      ).resolves.toMatchObject({ done: false, reason: "conflict" });
      const soft = await admin.api.memory.forget({
        id: current.id,
        expectedRevision: current.revision,
        mode: "soft",
        reason: "user asked",
      });
      expect(soft).toMatchObject({ done: true, deletedIds: [current.id] });
      const hard = await admin.api.memory.forget({
        id: current.id,
        expectedRevision: current.revision,
        mode: "hard",
        reason: "erase it",
      });
      expect(hard.done).toBe(true);
      expect(hard.receipt).toMatchObject({ revisionsRemoved: 2 });
      await expect(admin.api.memory.card({ id: current.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    });

    it("lets a member correct only what they may write", async () => {
      const [adminCard] = (await admin.api.memory.browse({ filter: { kinds: ["avoid_ingredient"] } })).cards;
      const attempt = await member.api.memory.write({
        operations: [{ op: "expire", targetId: adminCard!.id, expectedRevision: adminCard!.revision }],
      });
      expect(attempt.results[0]).toMatchObject({ status: "rejected", reason: "not_found" });
      const global = await member.api.memory.write({
        operations: [
          create(
            "custom_fact",
            { title: "Office", content: "The office is in Berlin." },
            { itemKey: "office", scope: "global" },
          ),
        ],
      });
      expect(global.done).toBe(false);
    });

    it("lists the kind registry for the create form", async () => {
      const kinds = await member.api.memory.kinds();
      expect(kinds.find((k) => k.kind === "avoid_ingredient")).toMatchObject({
        itemized: true,
        itemFrom: "value",
        defaultScope: "user",
      });
      expect(kinds.find((k) => k.kind === "durable_decision")).toMatchObject({
        itemized: true,
        itemFrom: "title",
        defaultScope: "workspace",
      });
      // Merged into avoid_ingredient: no longer offered as a kind of its own.
      expect(kinds.find((k) => k.kind === "food_avoidance")).toBeUndefined();
    });
  });

  describe("sessions", () => {
    let messageIds: string[];
    beforeAll(async () => {
      const ctx = { tenantId: admin.tenantId, actor: { type: "api_key" as const, id: "key_x" } };
      const appended = await appendMessages(handle.db, ctx, {
        sessionId: "chat-1",
        userScopeId: member.userId,
        messages: Array.from({ length: 60 }, (_, i) => ({
          role: i % 2 ? ("assistant" as const) : ("user" as const),
          content: `turn ${i} 记住我不吃辣`,
        })),
      });
      messageIds = appended.messages.map((m) => m.id);
      await appendMessages(handle.db, ctx, { sessionId: "chat-2", messages: [{ role: "user", content: "hello" }] });
      await appendSummary(
        handle.db,
        { tenantId: admin.tenantId, actor: { type: "system", id: null } },
        {
          sessionId: "chat-1",
          parentSummaryId: null,
          fromMessageId: messageIds[0]!,
          toMessageId: messageIds[9]!,
          summary: "The user does not eat spicy food.",
        },
      );
      const otherCtx = { tenantId: outsider.tenantId, actor: { type: "api_key" as const, id: "key_y" } };
      await appendMessages(handle.db, otherCtx, {
        sessionId: "secret-chat",
        messages: [{ role: "user", content: "other org" }],
      });
    });

    it("lists sessions the viewer may read, newest first, and never another organisation's", async () => {
      const list = await member.api.memory.sessions();
      expect(list.sessions.map((s) => s.sessionId)).toEqual(["chat-2", "chat-1"]);
      expect(list.sessions[1]).toMatchObject({ messageCount: 60, userScopeId: member.userId });
      const outsiderList = await outsider.api.memory.sessions();
      expect(outsiderList.sessions.map((s) => s.sessionId)).toEqual(["secret-chat"]);
      await expect(outsider.api.memory.session({ sessionId: "chat-1" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    });

    it("opens a window of messages, pages back, lands on a cited message, and shows the summary chain", async () => {
      const latest = await member.api.memory.session({ sessionId: "chat-1" });
      expect(latest.messages).toHaveLength(50);
      expect(latest.messages.at(-1)!.id).toBe(messageIds[59]);
      expect(latest.hasNewer).toBe(false);
      expect(latest.olderBefore).not.toBeNull();
      const older = await member.api.memory.session({ sessionId: "chat-1", before: latest.olderBefore! });
      expect(older.messages.map((m) => m.id)).toEqual(messageIds.slice(0, 10));
      expect(older.olderBefore).toBeNull();
      const around = await member.api.memory.session({ sessionId: "chat-1", aroundMessageId: messageIds[5] });
      expect(around.messages.at(-1)!.id).toBe(messageIds[5]);
      expect(around.hasNewer).toBe(true);
      expect(latest.summaries.map((s) => s.summary)).toEqual(["The user does not eat spicy food."]);
    });

    it("shows under each message the current cards the viewer may read that cite it", async () => {
      // An organisation of its own: the other tests here count this describe's cards.
      const owner = await registerAccount(handle.db, {
        email: "ines@example.net",
        password: "owner password 1",
        openSignup: true,
      });
      const staff = await addUserToTenant(handle.db, {
        email: "jo@example.net",
        password: "member password",
        role: "member",
        tenantId: owner.tenantId,
        actorUserId: owner.user.id,
      });
      const ctx = { tenantId: owner.tenantId, actor: { type: "api_key" as const, id: "key_z" } };
      const turn = await appendMessages(handle.db, ctx, {
        sessionId: "saved-chat",
        userScopeId: staff.user.id,
        messages: [
          { role: "user", content: "I never eat spicy food." },
          { role: "user", content: "ok" },
        ],
      });
      const cited = turn.messages[0]!.id;
      const writer = agentContext(owner.tenantId, {
        writeScopes: [parseScopePattern(`user:${staff.user.id}`), parseScopePattern(`user:${owner.user.id}`)],
        trustedMessageIds: [cited],
      });
      const note = (scope: string, title: string) =>
        createOp(
          "custom_fact",
          { title, content: `${title}.`, valueJson: title, sourceMessageIds: [cited] },
          { scope, itemKey: title.replace(/\W+/g, "_") },
        );
      const [mine, owners] = await writeCards(
        handle.db,
        writer,
        note(`user:${staff.user.id}`, "No spicy food"),
        note(`user:${owner.user.id}`, "Owner private note"),
      );
      const staffView = await callerAs(handle.db, { userId: staff.user.id }).memory.session({
        sessionId: "saved-chat",
      });
      expect(staffView.messages.map((m) => m.savedAs)).toEqual([
        [{ id: mine, title: "No spicy food", extracted: false }],
        [],
      ]);
      // The admin reads both; a card of a scope the member cannot read never shows for the member.
      const ownerView = await callerAs(handle.db, { userId: owner.user.id }).memory.session({
        sessionId: "saved-chat",
      });
      expect(ownerView.messages[0]!.savedAs.map((c) => c.id).sort()).toEqual([mine, owners].sort());
      // Erasing the whole conversation: its owner or an admin, not a colleague with the default session:* grant.
      await appendMessages(handle.db, ctx, {
        sessionId: "owners-chat",
        userScopeId: owner.user.id,
        messages: [{ role: "user", content: "mine" }],
      });
      expect([staffView.erasable, ownerView.erasable]).toEqual([true, true]);
      expect(
        (await callerAs(handle.db, { userId: staff.user.id }).memory.session({ sessionId: "owners-chat" })).erasable,
      ).toBe(false);
    });

    it("hides sessions from a member whose session grant was taken away", async () => {
      await handle.db
        .delete(scopeGrants)
        .where(
          and(
            eq(scopeGrants.tenantId, admin.tenantId),
            eq(scopeGrants.principalId, member.userId),
            eq(scopeGrants.scope, "session:*"),
          ),
        );
      expect((await member.api.memory.sessions()).sessions).toEqual([]);
      await expect(member.api.memory.session({ sessionId: "chat-1" })).rejects.toMatchObject({ code: "NOT_FOUND" });
      expect(await member.api.memory.topics()).toEqual({ visible: false, topics: [] });
      // Nor through the memory tree's API: topic summaries quote every conversation.
      await expect(member.api.tree.hotTopics()).rejects.toMatchObject({ code: "FORBIDDEN" });
      await expect(member.api.tree.topic({ topicId: "top_any" })).rejects.toMatchObject({ code: "FORBIDDEN" });
      // Nor the tree's totals, which count every conversation's chunks and topics.
      await expect(member.api.tree.stats()).rejects.toMatchObject({ code: "FORBIDDEN" });
      await handle.db.insert(scopeGrants).values({
        tenantId: admin.tenantId,
        id: "grt_restore",
        principalType: "user",
        principalId: member.userId,
        scope: "session:*",
        canRead: true,
        canWrite: true,
      });
    });

    it("previews recall for a question as a prompt block with its token count", async () => {
      const preview = await admin.api.memory.tryRecall({ sessionId: "chat-1", question: "what should I cook?" });
      expect(preview.diagnostics.enabled).toBe(true);
      expect(preview.recentMessageCount).toBeGreaterThan(0);
      expect(preview.hasSummary).toBe(true);
      expect(preview.prompt).toContain("<memory>");
      expect(preview.promptTokens).toBeGreaterThan(0);
      expect(preview.promptTokens).toBeLessThanOrEqual(preview.diagnostics.tokenBudget);
    });
  });

  describe("audit log", () => {
    it("pages newest first; members see only events in scopes they can read", async () => {
      const adminView = await admin.api.memory.audit({ limit: 3 });
      expect(adminView.events).toHaveLength(3);
      expect(adminView.nextCursor).not.toBeNull();
      const next = await admin.api.memory.audit({ cursor: adminView.nextCursor, limit: 3 });
      expect(next.events[0]!.id).toBeLessThan(adminView.events.at(-1)!.id);
      const memberView = await member.api.memory.audit({ limit: 500 });
      expect(memberView.events.length).toBeGreaterThan(0);
      const readable = new Set([`user:${member.userId}`, "global"]);
      for (const e of memberView.events)
        expect(e.scope === null ? false : readable.has(e.scope) || e.scope.startsWith("session:")).toBe(true);
      const memberships = await admin.api.memory.audit({ filter: { eventTypes: ["member"] } });
      expect(memberships.events.length).toBeGreaterThanOrEqual(2);
    });

    it("filters by node lineage and exports every matching event as CSV / JSONL lines", async () => {
      const [card] = (await admin.api.memory.browse({ filter: { kinds: ["avoid_ingredient"] } })).cards;
      const detail = await admin.api.memory.card({ id: card!.id });
      const byCard = await admin.api.memory.audit({ filter: { nodeId: detail.card.lineageId } });
      expect(byCard.events.map((e) => e.eventType)).toEqual(["update", "create"]);
      const viewer = {
        tenantId: admin.tenantId,
        role: "admin" as const,
        readScopes: (
          await buildUserCallContext(handle.db, { tenantId: admin.tenantId, userId: admin.userId, role: "admin" })
        ).readScopes,
      };
      const all = [];
      for await (const e of iterateAuditEvents(handle.db, { viewer, filter: {}, pageSize: 4 })) all.push(e);
      const total = await handle.db
        .select()
        .from(memoryAuditEvents)
        .where(eq(memoryAuditEvents.tenantId, admin.tenantId));
      expect(all).toHaveLength(total.length);
      expect(auditCsvHeader()).toMatch(/^id,createdAt,eventType/);
      const line = auditCsvLine({ ...all[0]!, reason: '=cmd "quoted", text' });
      expect(line).toContain(`"'=cmd ""quoted"", text"`);
      expect(auditFilterFromSearchParams(new URLSearchParams("event=create&event=bogus&from=2024-01-02"))).toEqual({});
      expect(auditFilterFromSearchParams(new URLSearchParams("event=create,update&from=2024-01-02"))).toEqual({
        eventTypes: ["create", "update"],
        from: "2024-01-02T00:00:00.000Z",
      });
    });
  });

  describe("stats and topics", () => {
    it("counts cards, writes and searches per day in the viewer's time zone, with latency percentiles", async () => {
      await handle.db.insert(memoryQueryLog).values(
        [10, 20, 30, 40, 100].map((latencyMs) => ({
          tenantId: admin.tenantId,
          operation: "memory_search",
          actorType: "user" as const,
          actorId: admin.userId,
          latencyMs,
          resultCount: 1,
        })),
      );
      const stats = await admin.api.memory.stats({ days: 7, timeZone: "Asia/Shanghai" });
      expect(stats.writesPerDay).toHaveLength(7);
      expect(stats.searchesPerDay).toHaveLength(7);
      expect(stats.writesPerDay.reduce((n, d) => n + d.create, 0)).toBeGreaterThanOrEqual(14);
      expect(stats.latency.count).toBeGreaterThanOrEqual(5);
      expect(stats.latency.p50).not.toBeNull();
      expect(stats.byStatus.map((s) => s.status)).toContain("superseded");
      expect(stats.byKind.find((k) => k.kind === "custom_fact")?.count).toBe(12);
      const memberStats = await member.api.memory.stats({});
      expect(memberStats.byKind.map((k) => k.kind)).toEqual(["profile_name"]);
      // Writes per day count what the member may read, as the audit page lists it (their one card).
      const memberWrites = memberStats.writesPerDay.reduce((n, d) => n + d.create, 0);
      expect(memberWrites).toBeGreaterThanOrEqual(1);
      expect(memberWrites).toBeLessThan(stats.writesPerDay.reduce((n, d) => n + d.create, 0));
      await expect(admin.api.memory.stats({ timeZone: "Mars/Olympus" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
      expect(dayRange(3, "UTC", new Date("2024-03-10T12:00:00Z"))).toEqual(["2024-03-08", "2024-03-09", "2024-03-10"]);
    });

    it("lists topics hottest first, per organisation", async () => {
      expect((await admin.api.memory.topics()).topics).toEqual([]);
      await handle.db.insert(memoryTopics).values([
        {
          tenantId: admin.tenantId,
          id: "top_1",
          name: "cooking",
          normalizedName: "cooking",
          hotness: 0.2,
          mentionCount: 3,
        },
        { tenantId: admin.tenantId, id: "top_2", name: "香菜", normalizedName: "香菜", hotness: 0.9, mentionCount: 9 },
        {
          tenantId: outsider.tenantId,
          id: "top_3",
          name: "secret",
          normalizedName: "secret",
          hotness: 1,
          mentionCount: 1,
        },
      ]);
      expect((await admin.api.memory.topics()).topics.map((t) => t.name)).toEqual(["香菜", "cooking"]);
    });

    it("folds category paths into a counted tree", () => {
      const tree = foldCategoryTree([
        { domain: "d", path: "a/b", count: 2 },
        { domain: "d", path: "a/c", count: 3 },
        { domain: "e", path: "", count: 1 },
        { domain: "d", path: "d/z", count: 1 },
      ]);
      expect(tree[0]).toMatchObject({
        domain: "d",
        count: 6,
        categories: [
          {
            name: "a",
            count: 5,
            children: [
              { name: "c", count: 3 },
              { name: "b", count: 2 },
            ],
          },
          { name: "z", path: "d/z", count: 1 },
        ],
      });
      expect(tree[1]).toMatchObject({ domain: "e", count: 1, categories: [] });
    });
  });

  it("shows members the overview's totals of what they may see, not the whole organisation's", async () => {
    const totals = async (userId: string, role: "admin" | "member") => {
      const scopes = await effectiveUserScopes(handle.db, { tenantId: admin.tenantId, userId, role });
      return getTenantOverview(handle.db, {
        tenantId: admin.tenantId,
        readScopes: scopes.read,
        keysOf: role === "admin" ? undefined : userId,
      });
    };
    const asAdmin = await totals(admin.userId, "admin");
    const asMember = await totals(member.userId, "member");
    const readable = await member.api.memory.browse({ limit: 200 });
    expect(asMember.activeMemories).toBeLessThan(asAdmin.activeMemories);
    expect(asMember.activeMemories).toBeGreaterThanOrEqual(readable.cards.length);
    const ownKeys = await handle.db
      .select()
      .from(apiKeys)
      .where(
        and(eq(apiKeys.tenantId, admin.tenantId), eq(apiKeys.ownerUserId, member.userId), isNull(apiKeys.revokedAt)),
      );
    expect(asMember.activeKeys).toBe(ownKeys.filter((k) => !k.expiresAt || k.expiresAt > new Date()).length);
  });

  describe("import and export", () => {
    it("exports a scope as JSONL lines and imports them elsewhere, dry run first", async () => {
      const ctx = await buildUserCallContext(handle.db, {
        tenantId: admin.tenantId,
        userId: admin.userId,
        role: "admin",
      });
      const lines: string[] = [];
      for await (const card of exportCards(handle.db, {
        tenantId: admin.tenantId,
        readScopes: ctx.readScopes,
        scopes: [`user:${admin.userId}`],
        includeEvidence: true,
      }))
        lines.push(JSON.stringify(card));
      expect(lines).toHaveLength(13);
      expect(JSON.parse(lines[0]!)).toMatchObject({
        format: "memory-card/v1",
        scope: `user:${admin.userId}`,
        evidence: [],
      });

      // Into the other organisation, rewritten to its admin's own scope.
      const rewritten = lines.map((l) => l.replaceAll(`user:${admin.userId}`, `user:${outsider.userId}`));
      const before = await handle.db.select().from(memoryNodes).where(eq(memoryNodes.tenantId, outsider.tenantId));
      const dry = await outsider.api.memory.import({ lines: [...rewritten, "not json", ""], dryRun: true });
      expect(dry.counts).toMatchObject({ created: 13, rejected: 1, skipped: 1 });
      expect(dry.results[13]).toMatchObject({ line: 14, status: "rejected", message: "not valid JSON" });
      const afterDry = await handle.db.select().from(memoryNodes).where(eq(memoryNodes.tenantId, outsider.tenantId));
      expect(afterDry).toHaveLength(before.length);

      const real = await outsider.api.memory.import({ lines: rewritten, dryRun: false });
      expect(real.counts.created).toBe(13);
      const again = await outsider.api.memory.import({ lines: rewritten, dryRun: true });
      expect(again.counts.noop).toBe(13);
      const changed = JSON.parse(rewritten[0]!) as { content: string };
      changed.content = "something else entirely";
      const conflict = await outsider.api.memory.import({ lines: [JSON.stringify(changed)], dryRun: false });
      expect(conflict.results[0]).toMatchObject({ status: "conflict" });
      const superseded = await outsider.api.memory.import({
        lines: [JSON.stringify(changed)],
        dryRun: false,
        onConflict: "supersede",
      });
      expect(superseded.results[0]).toMatchObject({ status: "superseded" });
      const imports = await handle.db
        .select()
        .from(memoryAuditEvents)
        .where(and(eq(memoryAuditEvents.tenantId, outsider.tenantId), eq(memoryAuditEvents.eventType, "import")));
      expect(imports).toHaveLength(2);
    });

    it("exports every card's evidence, however many messages a page cites", async () => {
      // An organisation of its own: 300 more cards would change the other tests' counts.
      const tenantId = await createTenant(handle.db);
      const sessionId = "transfer-evidence";
      const ids: string[] = [];
      for (let batch = 0; batch < 6; batch++) {
        const appended = await appendMessages(
          handle.db,
          { tenantId, actor: { type: "api_key", id: "key_x" } },
          {
            sessionId,
            messages: Array.from({ length: 100 }, (_, i) => ({
              role: "user" as const,
              content: `evidence ${batch * 100 + i}`,
            })),
          },
        );
        ids.push(...appended.messages.map((m) => m.id));
      }
      const agent = agentContext(tenantId, {
        writeScopes: [parseScopePattern("session:*")],
        readScopes: [parseScopePattern("session:*")],
        trustedMessageIds: ids,
      });
      // 300 cards citing two messages each: 600 messages on one export page (a cap of 500 left the last cards without any).
      for (let batch = 0; batch < 6; batch++) {
        await writeCards(
          handle.db,
          agent,
          ...Array.from({ length: 50 }, (_, i) => {
            const n = batch * 50 + i;
            return createOp(
              "custom_fact",
              {
                title: `Fact ${n}`,
                content: `Evidence fact number ${n}.`,
                sourceMessageIds: [ids[2 * n]!, ids[2 * n + 1]!],
              },
              { scope: `session:${sessionId}`, itemKey: `fact_${n}` },
            );
          }),
        );
      }
      const evidence: number[] = [];
      for await (const card of exportCards(handle.db, {
        tenantId,
        readScopes: agent.readScopes,
        scopes: [`session:${sessionId}`],
        includeEvidence: true,
      }))
        evidence.push(card.evidence?.length ?? -1);
      expect(evidence).toHaveLength(300);
      expect(evidence.filter((n) => n !== 2)).toEqual([]);
    });

    it("keeps an inferred card inferred across export and import", async () => {
      const ctx = await buildUserCallContext(handle.db, {
        tenantId: admin.tenantId,
        userId: admin.userId,
        role: "admin",
      });
      const agent = agentContext(admin.tenantId, {
        writeScopes: [parseScopePattern("session:*")],
        readScopes: [parseScopePattern("session:*")],
      });
      const [inferred] = await writeCards(handle.db, agent, {
        ...createOp(
          "flavor_profile",
          { title: "Likes it mild", content: "Seems to like mild food.", valueJson: "mild" },
          { scope: "session:transfer-inferred" },
        ),
        explicitUserIntent: false,
      });
      const lines: string[] = [];
      for await (const card of exportCards(handle.db, {
        tenantId: admin.tenantId,
        readScopes: ctx.readScopes,
        scopes: ["session:transfer-inferred"],
      }))
        lines.push(JSON.stringify(card));
      expect(lines.map((l) => JSON.parse(l) as { explicitUserIntent: boolean; source: { id: string } })).toMatchObject([
        { explicitUserIntent: false, source: { id: inferred } },
      ]);
      const report = await outsider.api.memory.import({ lines, dryRun: false });
      expect(report.counts.created).toBe(1);
      const [copy] = await handle.db
        .select()
        .from(memoryNodes)
        .where(and(eq(memoryNodes.tenantId, outsider.tenantId), eq(memoryNodes.id, report.results[0]!.nodeId!)));
      expect(copy).toMatchObject({ scopeId: "transfer-inferred", explicitUserIntent: false });
    });

    it("keeps a redacted card marked redacted across export and import", async () => {
      const ctx = await buildUserCallContext(handle.db, {
        tenantId: admin.tenantId,
        userId: admin.userId,
        role: "admin",
      });
      await handle.db.update(tenants).set({ sensitivePolicy: "redact" }).where(eq(tenants.id, admin.tenantId));
      const agent = agentContext(admin.tenantId, {
        writeScopes: [parseScopePattern("session:*")],
        readScopes: [parseScopePattern("session:*")],
      });
      await writeCards(
        handle.db,
        agent,
        createOp(
          "flavor_profile",
          {
            title: "Pays for spicy food",
            content: "Likes it mild; pays with card 4111 1111 1111 1111.",
            valueJson: "mild",
          },
          { scope: "session:transfer-redacted" },
        ),
      );
      await handle.db.update(tenants).set({ sensitivePolicy: "reject" }).where(eq(tenants.id, admin.tenantId));
      const lines: string[] = [];
      for await (const card of exportCards(handle.db, {
        tenantId: admin.tenantId,
        readScopes: ctx.readScopes,
        scopes: ["session:transfer-redacted"],
      }))
        lines.push(JSON.stringify(card));
      expect(lines.map((l) => JSON.parse(l) as { redacted: boolean; content: string })).toMatchObject([
        { redacted: true, content: expect.stringContaining("[REDACTED:") },
      ]);
      const report = await outsider.api.memory.import({ lines, dryRun: false });
      expect(report.counts.created).toBe(1);
      const [copy] = await handle.db
        .select()
        .from(memoryNodes)
        .where(and(eq(memoryNodes.tenantId, outsider.tenantId), eq(memoryNodes.id, report.results[0]!.nodeId!)));
      expect(copy).toMatchObject({ redacted: true });
    });

    it("refuses to import into a scope the person cannot write", async () => {
      const line = JSON.stringify({
        kind: "custom_fact",
        itemKey: "x",
        scope: `user:${admin.userId}`,
        title: "x",
        content: "x",
      });
      const report = await member.api.memory.import({ lines: [line], dryRun: false });
      expect(report.results[0]).toMatchObject({ status: "rejected" });
    });

    it("keeps browse fast-path semantics at the function level too", async () => {
      const ctx = await buildUserCallContext(handle.db, {
        tenantId: admin.tenantId,
        userId: admin.userId,
        role: "admin",
      });
      const page = await browseCards(handle.db, {
        tenantId: admin.tenantId,
        readScopes: ctx.readScopes,
        filter: { kinds: ["custom_fact"] },
        limit: 200,
      });
      expect(page.cards).toHaveLength(12);
      expect(page.nextCursor).toBeNull();
    });
  });

  describe("admin procedures", () => {
    it("creates workspaces and lists them with the ones cards or grants only name, their cards and who has access", async () => {
      const created = await admin.api.admin.workspaces.create({ name: "Mobile App" });
      expect(created).toMatchObject({
        id: "mobile-app",
        scope: "workspace:mobile-app",
        name: "Mobile App",
        registered: true,
        activeCards: 0,
        access: [],
      });
      const chinese = await admin.api.admin.workspaces.create({ name: "数据平台" });
      expect(chinese).toMatchObject({ id: "数据平台", scope: "workspace:数据平台" });
      await expect(admin.api.admin.workspaces.create({ name: "Again", id: "mobile-app" })).rejects.toMatchObject({
        code: "BAD_REQUEST",
        cause: { reason: "workspace_exists" },
      });
      await expect(admin.api.admin.workspaces.create({ name: "Bad", id: "Has Spaces" })).rejects.toMatchObject({
        code: "BAD_REQUEST",
      });
      await expect(member.api.admin.workspaces.list()).rejects.toMatchObject({ code: "FORBIDDEN" });

      // The member is granted the workspace; an agent names another one that no one created.
      await admin.api.grants.set({
        principalType: "user",
        principalId: member.userId,
        scope: "workspace:mobile-app",
        canRead: true,
        canWrite: true,
      });
      const agent = agentContext(admin.tenantId, {
        writeScopes: [{ type: "workspace", id: "*" }],
        defaults: { workspace: { type: "workspace", id: "mobile-app" } },
      });
      await writeCards(
        handle.db,
        agent,
        createOp("durable_decision", {
          title: "Use SQLite on device",
          content: "The app stores data in SQLite.",
          valueJson: "sqlite",
        }),
      );
      await writeCards(
        handle.db,
        agent,
        createOp(
          "durable_decision",
          { title: "Ship weekly", content: "Release every week.", valueJson: "weekly" },
          { scope: "workspace:side-project" },
        ),
      );
      const list = await admin.api.admin.workspaces.list();
      const byId = Object.fromEntries(list.map((w) => [w.id, w]));
      expect(byId["mobile-app"]).toMatchObject({
        activeCards: 1,
        access: [{ principalType: "user", principalId: member.userId, canWrite: true }],
      });
      expect(byId["side-project"]).toMatchObject({ registered: false, name: "side-project", activeCards: 1 });
      expect(list.filter((w) => w.registered).map((w) => w.name)).toEqual(["Mobile App", "数据平台"]);
      const [audit] = await handle.db
        .select()
        .from(memoryAuditEvents)
        .where(
          and(
            eq(memoryAuditEvents.tenantId, admin.tenantId),
            eq(memoryAuditEvents.scopeId, "mobile-app"),
            eq(memoryAuditEvents.eventType, "policy"),
          ),
        );
      expect(audit).toMatchObject({
        actorType: "user",
        actorId: admin.userId,
        reason: "workspace created: Mobile App",
      });
    });

    it("refuses every admin procedure to members with FORBIDDEN", async () => {
      const attempts = [
        () => member.api.admin.workspaces.create({ name: "x" }),
        () => member.api.admin.eraseMemory({ scope: `user:${member.userId}`, reason: "x" }),
        () => member.api.admin.members.list(),
        () => member.api.admin.members.add({ email: "x@example.com", role: "member" }),
        () => member.api.admin.members.setRole({ userId: member.userId, role: "admin" }),
        () => member.api.admin.members.remove({ userId: admin.userId }),
        () => member.api.admin.kinds.list(),
        () => member.api.admin.kinds.save({ definition: {} }),
        () => member.api.admin.kinds.remove({ kind: "x" }),
      ];
      for (const attempt of attempts) await expect(attempt()).rejects.toMatchObject({ code: "FORBIDDEN" });
    });

    it("adds, promotes, demotes and removes members, audited, never leaving the organisation without an admin", async () => {
      const added = await admin.api.admin.members.add({
        email: "New.Person@example.com",
        role: "member",
        name: "New",
        password: "a fine password",
      });
      expect(added).toMatchObject({ email: "new.person@example.com", role: "member" });
      await expect(
        admin.api.admin.members.add({ email: "new.person@example.com", role: "admin" }),
      ).rejects.toMatchObject({ code: "CONFLICT" });
      await expect(admin.api.admin.members.setRole({ userId: admin.userId, role: "member" })).rejects.toMatchObject({
        code: "CONFLICT",
        message: expect.stringContaining("only admin"),
      });
      await expect(admin.api.admin.members.remove({ userId: admin.userId })).rejects.toMatchObject({
        code: "CONFLICT",
      });
      expect(await admin.api.admin.members.setRole({ userId: added.userId, role: "admin" })).toMatchObject({
        changed: true,
      });
      expect(await admin.api.admin.members.setRole({ userId: added.userId, role: "member" })).toMatchObject({
        changed: true,
      });

      const { apiKey } = await createApiKey(handle.db, {
        tenantId: admin.tenantId,
        ownerUserId: added.userId,
        createdByUserId: admin.userId,
        name: "bot",
        scopes: [],
        permissions: ["memory:read"],
      });
      const removed = await admin.api.admin.members.remove({ userId: added.userId });
      expect(removed).toMatchObject({ grantsRemoved: 3, keysRevoked: 1 });
      const [key] = await handle.db.select().from(apiKeys).where(eq(apiKeys.id, apiKey.id));
      expect(key!.revokedAt).not.toBeNull();
      const list = await admin.api.admin.members.list();
      expect(list.map((m) => m.email)).toEqual(["ada@example.com", "max@example.com"]);
      const events = await handle.db
        .select()
        .from(memoryAuditEvents)
        .where(and(eq(memoryAuditEvents.tenantId, admin.tenantId), eq(memoryAuditEvents.eventType, "member")));
      expect(events.map((e) => e.reason)).toEqual(
        expect.arrayContaining(["added by admin", "role changed", "member removed"]),
      );
      // Another organisation's admin cannot touch these members.
      await expect(outsider.api.admin.members.remove({ userId: member.userId })).rejects.toMatchObject({
        code: "NOT_FOUND",
      });
    });

    it("saves and removes custom kinds, which then appear in the registry", async () => {
      const saved = await admin.api.admin.kinds.save({
        definition: {
          kind: "hobby",
          key: "hobby.main",
          domain: "profile",
          type: "fact",
          valueShape: "string",
          description: "The user's main hobby",
        },
      });
      expect(saved).toEqual({ kind: "hobby", key: "hobby.main" });
      expect((await member.api.memory.kinds()).some((k) => k.kind === "hobby")).toBe(true);
      await expect(
        admin.api.admin.kinds.save({
          definition: { kind: "profile_name", key: "profile.x", domain: "p", type: "fact", description: "x" },
        }),
      ).rejects.toMatchObject({ code: "BAD_REQUEST" });
      expect(await admin.api.admin.kinds.remove({ kind: "hobby" })).toEqual({ kind: "hobby" });
      expect(await outsider.api.admin.kinds.list()).toEqual([]);
    });
  });

  it("shows a card's evidence only from conversations the viewer may read, and says how much it left out", async () => {
    const t = (
      await registerAccount(handle.db, {
        email: `evidence-${Date.now()}@example.org`,
        password: "evidence password",
        openSignup: true,
      })
    ).tenantId;
    const said = await appendMessages(
      handle.db,
      { tenantId: t, actor: { type: "api_key", id: "key_test" } },
      { sessionId: "alice-private", userScopeId: "u1", messages: [{ role: "user", content: "My salary is 9000." }] },
    );
    const ids = said.messages.map((m) => m.id);
    const [cardId] = await writeCards(
      handle.db,
      agentContext(t, { trustedMessageIds: ids }),
      createOp(
        "custom_fact",
        { title: "Salary", content: "Earns 9000.", valueJson: "9000", sourceMessageIds: ids },
        { itemKey: "salary", scope: "user:u1" },
      ),
    );
    const narrow = { tenantId: t, readScopes: ["user:u1", "session:team-standup"].map(parseScopePattern) };
    const detail = await getCardDetail(handle.db, narrow, cardId!);
    expect(detail).toMatchObject({ evidence: [], missingEvidenceIds: [], hiddenEvidenceCount: 1 });
    const lines: string[] = [];
    for await (const card of exportCards(handle.db, { ...narrow, includeEvidence: true }))
      lines.push(JSON.stringify(card));
    expect(lines.join("\n")).not.toContain("My salary");
    const wide = await getCardDetail(
      handle.db,
      { tenantId: t, readScopes: ["user:u1", "session:*"].map(parseScopePattern) },
      cardId!,
    );
    expect(wide).toMatchObject({ evidence: [{ content: "My salary is 9000." }], hiddenEvidenceCount: 0 });
  });
});
