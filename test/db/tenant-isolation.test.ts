import fs from "node:fs";
import path from "node:path";
import { getTableName, sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { memoryChunkTopics, memoryNodes, memoryTopics } from "~/db/schema";
import { queryRows } from "~/db/raw";
import { addUserToTenant, verifyCredentials } from "~/server/auth/accounts";
import { newId } from "~/server/ids";
import { log, logServerError } from "~/server/log";
import { handleMcpRequest } from "~/server/tools/mcp";
import { flushBufferedWrites } from "~/db/buffered-writes";
import {
  TENANT_AUDIT_TABLE,
  TENANT_MEMORY_TABLES,
  TENANT_TABLES_WITHOUT_MEMORY,
} from "~/server/memory/forget/tenant-tables";
import { turnInputJsonSchema } from "~/server/tools/registry";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { createKey, createOrg, trpcHttp } from "../support/agents";
import { callerAs } from "../support/trpc";
import {
  invokePath,
  minimalInput,
  procedureInputSchema,
  routerProcedures,
  setPath,
  textFields,
  type JsonSchema,
} from "../support/router-inputs";

/**
 * The second wall of tenant isolation (docs/performance.md, "Row-level security"): a leak suite
 * generated from the router. Every procedure of `appRouter` must be classified below — a new
 * procedure that is not fails the first test — and each class is enforced (anonymous, bearer-only,
 * session-only, member-of-another-organisation calls are refused). Then every procedure is called
 * as organisation B (its admin, or its API key for agent tools) with organisation A's ids: node,
 * session, message, key, grant, topic, kind and member ids. Each call is refused (FORBIDDEN /
 * NOT_FOUND / BAD_REQUEST) or answers without any of A's data, and A's rows are byte-for-byte the
 * same afterwards. Then hostile SQL-ish strings go into every text field of every tool's JSON Schema
 * (walked, not listed), and API key secrets are checked to never reach a log line.
 *
 * Hard delete leaving no trace is covered by test/db/memory-forget.test.ts ("hard-deletes with an
 * erasure receipt and leaves no trace of the content in any table"); this file only checks it exists.
 */

type Access = "public" | "signed-in" | "tenant" | "admin" | "agent";

/** A leak marker: text only organisation A's data contains. */
const MARK = "kestrelzebra";

type Fixture = {
  a: {
    tenantId: string;
    adminId: string;
    memberId: string;
    secret: string;
    keyId: string;
    nodeId: string;
    sessionNodeId: string;
    workspaceNodeId: string;
    messageId: string;
    privateMessageId: string;
    topicId: string;
    grantId: string;
    kind: string;
    victimEmail: string;
    adminEmail: string;
  };
  b: { tenantId: string; adminId: string; memberId: string; secret: string; nodeId: string };
};

type Kit = {
  fx: Fixture;
  /** Calls this procedure as organisation B: its admin (session) or, for agent tools, its API key. */
  call: (input?: unknown) => Promise<unknown>;
  /** The call must be refused with one of these codes. */
  refused: (input: unknown, ...codes: string[]) => Promise<void>;
  /** Fails when the value carries any of A's markers (text, ids, emails). */
  clean: (value: unknown) => unknown;
  invoke: (path: string, input: unknown, as: "bAdmin" | "bKey" | "aAdmin" | "aKey" | "anon") => Promise<unknown>;
};

const noLeak = async (k: Kit) => void k.clean(await k.call());

const updateOp = (targetId: string) => ({
  op: "update",
  targetId,
  expectedRevision: 1,
  explicitUserIntent: true,
  node: { content: "hijacked by B" },
});

/**
 * Every procedure of the router: its access class and its cross-tenant probe. Keep in sync with
 * src/server/api/routers/*: the first test fails on any procedure missing here (or listed but gone).
 */
const PROCEDURES: Record<string, { access: Access; probe: (k: Kit) => Promise<void> }> = {
  "account.signUpStatus": { access: "public", probe: noLeak },
  "account.signUp": {
    access: "public",
    probe: async (k) => k.refused({ email: k.fx.a.adminEmail, password: "another password" }, "CONFLICT", "FORBIDDEN"),
  },
  "admin.members.list": { access: "admin", probe: noLeak },
  "admin.members.setRole": {
    access: "admin",
    probe: (k) => k.refused({ userId: k.fx.a.memberId, role: "admin" }, "NOT_FOUND"),
  },
  "admin.members.remove": { access: "admin", probe: (k) => k.refused({ userId: k.fx.a.memberId }, "NOT_FOUND") },
  "admin.members.signOutEverywhere": {
    access: "admin",
    probe: (k) => k.refused({ userId: k.fx.a.memberId }, "NOT_FOUND"),
  },
  "admin.members.invitations": { access: "admin", probe: noLeak },
  // B's own invitations only: A's admin was never invited by B.
  "admin.members.cancelInvitation": {
    access: "admin",
    probe: (k) => k.refused({ email: k.fx.a.adminEmail }, "NOT_FOUND"),
  },
  "admin.members.add": {
    access: "admin",
    // Adding an existing account by email is allowed (people may belong to several organisations),
    // but it must never change that account: B's admin choosing A's member's password would be a takeover.
    probe: async (k) => {
      await k.call({ email: k.fx.a.victimEmail, role: "member", password: "password chosen by B" });
    },
  },
  "admin.eraseMemory": {
    access: "admin",
    // B's admin erasing "A's member's profile" reaches only B's rows of that scope (none): A's stay, checked after every probe.
    probe: async (k) =>
      void k.clean(await k.call({ scope: `user:${k.fx.a.memberId}`, conversations: true, reason: "B tries" })),
  },
  "admin.workspaces.list": { access: "admin", probe: noLeak },
  "admin.workspaces.create": {
    access: "admin",
    // B's workspace of the same id as A's is B's own: A's rows stay as they were (checked after every probe).
    probe: async (k) => void k.clean(await k.call({ name: "B's project", id: "w-probe" })),
  },
  "admin.kinds.list": { access: "admin", probe: noLeak },
  "admin.kinds.remove": { access: "admin", probe: (k) => k.refused({ kind: k.fx.a.kind }, "NOT_FOUND") },
  "admin.kinds.save": {
    access: "admin",
    // Same name in B is B's own kind; A's stays as it was (snapshot).
    probe: async (k) => {
      await k.call({
        definition: { kind: k.fx.a.kind, key: "b.own", domain: "b", type: "fact", description: "B's own kind" },
      });
    },
  },
  "memory.scopes": { access: "tenant", probe: noLeak },
  "memory.kinds": { access: "tenant", probe: noLeak },
  "memory.scopeChoices": { access: "tenant", probe: noLeak },
  "memory.scopeLabels": {
    access: "tenant",
    // A's scope ids go in (B may type anything), but no name, email or workspace of A's comes back.
    probe: async (k) => {
      const answer = JSON.stringify(
        await k.call({
          scopes: [`user:${k.fx.a.adminId}`, `user:${k.fx.a.memberId}`, "workspace:wa", "session:a-private-session"],
        }),
      );
      for (const secret of [k.fx.a.adminEmail, k.fx.a.victimEmail, "Workspace A", MARK])
        expect(answer).not.toContain(secret);
    },
  },
  "memory.previewCreate": {
    access: "tenant",
    // The slot A's card holds, previewed by B: nothing of A's card is named as the one it would replace.
    probe: async (k) => {
      k.clean(
        await k.call({
          operation: {
            op: "create",
            kind: "custom_fact",
            itemKey: "launch_code",
            node: { title: "launch code", content: "B's launch code." },
          },
        }),
      );
      k.clean(
        await k.call({
          operation: {
            op: "create",
            kind: "project_context",
            itemKey: "launch",
            scope: "workspace:wa",
            node: { title: "plan", content: "B's plan." },
          },
        }),
      );
    },
  },
  "memory.browse": {
    access: "tenant",
    probe: async (k) => {
      k.clean(await k.call({}));
      const scoped = (await k.call({ filter: { scopes: [`user:${k.fx.a.memberId}`] } })) as { cards: unknown[] };
      expect(scoped.cards).toEqual([]);
      const searched = (await k.call({
        filter: { text: MARK, statuses: ["active", "superseded", "expired", "deleted"] },
      })) as { cards: unknown[] };
      expect(searched.cards).toEqual([]);
    },
  },
  "memory.facets": { access: "tenant", probe: noLeak },
  "memory.categoryTree": { access: "tenant", probe: async (k) => void k.clean(await k.call({})) },
  "memory.search": {
    access: "tenant",
    probe: async (k) => {
      const result = k.clean(await k.call({ queryText: `${MARK} launch code` })) as { hits: unknown[] };
      expect(result.hits).toEqual([]);
    },
  },
  "memory.card": { access: "tenant", probe: (k) => k.refused({ id: k.fx.a.nodeId }, "NOT_FOUND") },
  "memory.whyRecalled": { access: "tenant", probe: (k) => k.refused({ id: k.fx.a.nodeId, query: MARK }, "NOT_FOUND") },
  "memory.write": {
    access: "tenant",
    probe: async (k) => {
      for (const op of [
        updateOp(k.fx.a.nodeId),
        { op: "expire", targetId: k.fx.a.nodeId, expectedRevision: 1 },
        {
          op: "supersede",
          targetId: k.fx.a.sessionNodeId,
          expectedRevision: 1,
          node: { title: "B", content: "hijacked by B" },
        },
      ]) {
        const result = (await k.call({ operations: [op] })) as { done: boolean; results: { reason?: string }[] };
        expect(result).toMatchObject({ done: false, results: [{ reason: "not_found" }] });
      }
    },
  },
  "memory.forget": {
    access: "tenant",
    probe: async (k) => {
      const outcome = await k
        .call({ id: k.fx.a.nodeId, expectedRevision: 1, mode: "hard", eraseEvidence: true, reason: "B tries" })
        .catch((e: unknown) => e);
      expect(outcome).toMatchObject(
        (outcome as { code?: string }).code ? { code: "NOT_FOUND" } : { done: false, reason: "not_found" },
      );
    },
  },
  "memory.restore": {
    access: "tenant",
    probe: async (k) =>
      void expect(await k.call({ id: k.fx.a.nodeId, expectedRevision: 1, reason: "B tries" })).toMatchObject({
        done: false,
        reason: "not_found",
      }),
  },
  "memory.eraseSession": {
    access: "tenant",
    // B's admin may write every scope of B: A's session names nothing there (A's rows are checked unchanged after every probe).
    probe: async (k) =>
      void expect(await k.call({ sessionId: "a-private-session", reason: "B tries" })).toMatchObject({
        done: false,
        reason: "not_found",
      }),
  },
  "memory.sessions": { access: "tenant", probe: async (k) => void k.clean(await k.call({})) },
  "memory.session": {
    access: "tenant",
    probe: async (k) => {
      k.clean(await k.call({ sessionId: "shared-session" }));
      const detail = await k
        .call({ sessionId: "a-private-session", aroundMessageId: k.fx.a.privateMessageId })
        .catch((e: unknown) => e);
      k.clean(detail);
    },
  },
  "memory.tryRecall": {
    access: "tenant",
    probe: async (k) =>
      void k.clean(await k.call({ sessionId: "shared-session", question: `What is the ${MARK} launch code?` })),
  },
  "memory.audit": {
    access: "tenant",
    probe: async (k) => {
      // B's own refused attempts (earlier probes) echo the id B sent, and carry nothing of A's.
      const { events } = (await k.call({})) as {
        events: { eventType: string; nodeId: string | null; before: unknown; after: unknown }[];
      };
      k.clean(events.filter((e) => e.eventType !== "rejected"));
      for (const e of events.filter((e) => e.eventType === "rejected"))
        expect(e).toMatchObject({ nodeId: null, before: null, after: null });
      const byCard = (await k.call({ filter: { nodeId: k.fx.a.nodeId } })) as { events: unknown[] };
      expect(byCard.events).toEqual([]);
    },
  },
  "memory.stats": { access: "tenant", probe: noLeak },
  "memory.topics": { access: "tenant", probe: noLeak },
  "memory.exportPage": {
    access: "tenant",
    probe: async (k) => {
      k.clean(await k.call({ includeEvidence: true }));
      const scoped = (await k.call({ scopes: [`user:${k.fx.a.memberId}`], includeEvidence: true })) as {
        cards: unknown[];
      };
      expect(scoped.cards).toEqual([]);
    },
  },
  "memory.import": {
    access: "tenant",
    // Lines naming A's node and A's member's scope create B's own card, never touch A's (snapshot).
    probe: async (k) => {
      const line = JSON.stringify({
        id: k.fx.a.nodeId,
        kind: "custom_fact",
        itemKey: "launch_code",
        scope: `user:${k.fx.a.memberId}`,
        title: "B's card",
        content: "B's content",
      });
      k.clean(await k.call({ lines: [line], dryRun: false, onConflict: "supersede" }));
    },
  },
  "tools.list": { access: "agent", probe: noLeak },
  "tools.call": {
    access: "agent",
    probe: async (k) => {
      await k.refused({ name: "memory_get", arguments: { id: k.fx.a.nodeId } }, "NOT_FOUND");
      k.clean(
        await k.call({ name: "memory_search", arguments: { queryText: MARK }, turn: { sessionId: "shared-session" } }),
      );
    },
  },
  "tools.memory_search": {
    access: "agent",
    probe: async (k) => {
      k.clean(await k.call({ all: true }));
      k.clean(
        await k.call({
          queryText: `${MARK} launch code`,
          includeEvidence: true,
          turn: { sessionId: "shared-session" },
        }),
      );
      k.clean(await k.call({ kinds: ["custom_fact"], itemKey: "launch_code" }));
      k.clean(
        await k
          .call({ queryText: MARK, scopes: [`user:${k.fx.a.memberId}`] })
          .catch((e: { code?: string }) => expect(["FORBIDDEN", "BAD_REQUEST"]).toContain(e.code)),
      );
      k.clean(await k.call({ queryText: MARK, turn: { userId: k.fx.a.memberId, sessionId: "a-private-session" } }));
    },
  },
  "tools.memory_get": {
    access: "agent",
    probe: async (k) => {
      await k.refused({ id: k.fx.a.nodeId }, "NOT_FOUND");
      await k.refused({ id: k.fx.a.sessionNodeId }, "NOT_FOUND");
      expect(k.clean(await k.call({ kind: "custom_fact", itemKey: "launch_code" }))).toMatchObject({ found: false });
    },
  },
  "tools.memory_write": {
    access: "agent",
    probe: async (k) => {
      expect(await k.call({ operations: [updateOp(k.fx.a.nodeId)] })).toMatchObject({
        done: false,
        results: [{ reason: "not_found" }],
      });
      const cite = {
        op: "create",
        kind: "custom_fact",
        itemKey: "stolen",
        explicitUserIntent: true,
        node: { title: "x", content: "y", sourceMessageIds: [k.fx.a.messageId] },
      };
      expect(await k.call({ operations: [cite], turn: { sessionId: "shared-session" } })).toMatchObject({
        done: false,
        results: [{ reason: "untrusted_source" }],
      });
    },
  },
  "tools.memory_forget": {
    access: "agent",
    probe: async (k) => {
      const turn = { forgetIntent: true, forgetAllIntent: true, sessionId: "shared-session" };
      expect(await k.call({ id: k.fx.a.nodeId, expectedRevision: 1, mode: "hard", reason: "B", turn })).toMatchObject({
        done: false,
        deletedIds: [],
      });
      expect(
        await k.call({
          targets: [
            { id: k.fx.a.nodeId, expectedRevision: 1 },
            { id: k.fx.a.sessionNodeId, expectedRevision: 1 },
          ],
          reason: "B",
          turn,
        }),
      ).toMatchObject({ done: false, deletedIds: [] });
      k.clean(await k.call({ selector: { kind: "custom_fact", itemKey: "launch_code" }, reason: "B", turn }));
      k.clean(
        await k.call({
          selector: { sourceMessageId: k.fx.a.messageId },
          mode: "hard",
          eraseEvidence: true,
          reason: "B",
          turn,
        }),
      );
    },
  },
  "tools.memory_context": {
    access: "agent",
    probe: async (k) => {
      k.clean(await k.call({ queryText: `What is the ${MARK} launch code?`, turn: { sessionId: "shared-session" } }));
      k.clean(await k.call({ queryText: MARK, sessionId: "a-private-session" }));
    },
  },
  "tools.message_append": {
    access: "agent",
    probe: (k) =>
      k.refused(
        { sessionId: "shared-session", messages: [{ role: "user", content: "reply", parentId: k.fx.a.messageId }] },
        "BAD_REQUEST",
      ),
  },
  "tree.search": {
    access: "tenant",
    probe: async (k) => void k.clean(await k.call({ query: MARK, topicId: k.fx.a.topicId })),
  },
  "tree.hotTopics": { access: "tenant", probe: async (k) => void k.clean(await k.call({ includeArchived: true })) },
  "tree.topic": { access: "tenant", probe: (k) => k.refused({ topicId: k.fx.a.topicId }, "NOT_FOUND") },
  "tree.session": {
    access: "tenant",
    probe: async (k) => {
      k.clean(await k.call({ sessionId: "shared-session" }));
      k.clean(await k.call({ sessionId: "a-private-session" }));
    },
  },
  "tree.stats": { access: "tenant", probe: noLeak },
  "keys.list": {
    access: "tenant",
    probe: async (k) => {
      k.clean(await k.call());
      expect(await k.call({ ownerUserId: k.fx.a.memberId })).toEqual([]);
    },
  },
  "keys.create": {
    access: "tenant",
    probe: (k) =>
      k.refused(
        {
          name: "for A's member",
          ownerUserId: k.fx.a.memberId,
          permissions: ["memory:read"],
          scopes: [`user:${k.fx.a.memberId}`],
        },
        "BAD_REQUEST",
      ),
  },
  "keys.revoke": { access: "tenant", probe: (k) => k.refused({ keyId: k.fx.a.keyId }, "NOT_FOUND") },
  "grants.list": {
    access: "admin",
    probe: async (k) => {
      k.clean(await k.call());
      expect(await k.call({ principalType: "user", principalId: k.fx.a.memberId })).toEqual([]);
      expect(await k.call({ principalType: "api_key", principalId: k.fx.a.keyId })).toEqual([]);
    },
  },
  "grants.set": {
    access: "admin",
    probe: async (k) => {
      await k.refused(
        { principalType: "user", principalId: k.fx.a.memberId, scope: "global", canRead: true, canWrite: true },
        "NOT_FOUND",
      );
      await k.refused(
        {
          principalType: "api_key",
          principalId: k.fx.a.keyId,
          scope: `user:${k.fx.a.memberId}`,
          canRead: true,
          canWrite: true,
        },
        "NOT_FOUND",
      );
    },
  },
  "grants.remove": { access: "admin", probe: (k) => k.refused({ grantId: k.fx.a.grantId }, "NOT_FOUND") },
  // Takes no input and reports only the process's own database status; calling it here would open
  // the default (environment's) database instead of the test's, so it is classified, not called.
  "health.check": { access: "public", probe: async () => {} },
  "me.get": {
    access: "signed-in",
    probe: async (k) => {
      const me = k.clean(await k.call()) as { memberships: { tenantId: string }[] };
      expect(me.memberships.map((m) => m.tenantId)).toEqual([k.fx.b.tenantId]);
    },
  },
  "me.signOutEverywhere": { access: "signed-in", probe: noLeak },
  "me.invitations": { access: "signed-in", probe: noLeak },
  // No invitation of A's for B's admin: nothing to accept or decline.
  "me.acceptInvitation": { access: "signed-in", probe: (k) => k.refused({ tenantId: k.fx.a.tenantId }, "NOT_FOUND") },
  "me.declineInvitation": { access: "signed-in", probe: (k) => k.refused({ tenantId: k.fx.a.tenantId }, "NOT_FOUND") },
  "me.tenant": {
    access: "tenant",
    probe: async (k) => expect(await k.call()).toEqual({ id: k.fx.b.tenantId, role: "admin" }),
  },
  "me.agent": {
    access: "agent",
    probe: async (k) => expect(k.clean(await k.call())).toMatchObject({ tenantId: k.fx.b.tenantId }),
  },
  "organization.get": {
    access: "tenant",
    probe: async (k) => expect(k.clean(await k.call())).toMatchObject({ id: k.fx.b.tenantId }),
  },
  "organization.updatePolicy": {
    access: "admin",
    probe: async (k) => void (await k.call({ writePolicy: "explicit-only", sensitivePolicy: "redact" })),
  },
};

/**
 * Organisation A's rows in every tenant-owned table (volatile columns left out), for before/after
 * comparison: taken from the tenant-table registry, which a unit test holds to the schema, so a new
 * table is compared without being listed here.
 */
const TENANT_TABLES = [
  "tenants",
  ...[...Object.values(TENANT_MEMORY_TABLES), TENANT_AUDIT_TABLE, ...Object.values(TENANT_TABLES_WITHOUT_MEMORY)].map(
    (table) => getTableName(table),
  ),
];

async function snapshot(db: TestDatabase["db"], tenantId: string, userIds: string[]): Promise<Record<string, string>> {
  // Recall counts and the query log are written in batches: what is pending belongs in this picture.
  await flushBufferedWrites(db);
  const out: Record<string, string> = {};
  for (const table of TENANT_TABLES) {
    const where = table === "tenants" ? sql`id = ${tenantId}` : sql`tenant_id = ${tenantId}`;
    const rows = await queryRows<Record<string, unknown>>(db, sql`select * from ${sql.raw(table)} where ${where}`);
    const stable = rows.map((row) => {
      const { last_used_at: _used, search_vector: _vector, ...rest } = row;
      return JSON.stringify(rest, (_k, v: unknown) => (v instanceof Date ? v.toISOString() : v));
    });
    out[table] = stable.sort().join("\n");
  }
  const people = await queryRows<Record<string, unknown>>(
    db,
    sql`select id, email, name, password_hash, disabled_at from users where id in ${sql`(${sql.join(
      userIds.map((id) => sql`${id}`),
      sql`, `,
    )})`} order by id`,
  );
  out.users = JSON.stringify(people);
  return out;
}

describe(`tenant isolation, generated from the router (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  let fx: Fixture;
  let markers: string[];
  let before: Record<string, string>;
  let aUserIds: string[];

  const callers = () => ({
    anon: callerAs(handle.db),
    bAdmin: callerAs(handle.db, { userId: fx.b.adminId }),
    bKey: callerAs(handle.db, { bearer: fx.b.secret }),
    aAdmin: callerAs(handle.db, { userId: fx.a.adminId }),
    aKey: callerAs(handle.db, { bearer: fx.a.secret }),
  });

  beforeAll(async () => {
    handle = await openTestDatabase();
    const db = handle.db;
    const a = await createOrg(db);
    const b = await createOrg(db);
    const aKey = await createKey(db, { tenantId: a.tenantId, ownerUserId: a.memberId, rateLimitPerMinute: 100_000 });
    const bKey = await createKey(db, { tenantId: b.tenantId, ownerUserId: b.memberId, rateLimitPerMinute: 100_000 });
    const aTools = callerAs(db, { bearer: aKey.secret }).tools;
    const bTools = callerAs(db, { bearer: bKey.secret }).tools;

    // A: evidence in a session name B also uses, a private session, cards in user, session and workspace scopes.
    const shared = await aTools.message_append({
      sessionId: "shared-session",
      messages: [{ role: "user", content: `Remember the ${MARK} launch window is Friday.` }],
    });
    const priv = await aTools.message_append({
      sessionId: "a-private-session",
      messages: [{ role: "user", content: `${MARK} private note` }],
    });
    const written = await aTools.memory_write({
      operations: [
        {
          op: "create",
          kind: "custom_fact",
          itemKey: "launch_code",
          explicitUserIntent: true,
          node: {
            title: `${MARK} launch code`,
            content: `The ${MARK} launch code is 42.`,
            sourceMessageIds: shared.messageIds,
          },
        },
        {
          op: "create",
          kind: "active_task",
          itemKey: "launch_prep",
          scope: "session:shared-session",
          node: { title: `${MARK} launch prep`, content: `Prepare the ${MARK} launch.` },
        },
      ],
      turn: { sessionId: "shared-session" },
    });
    expect(written.done).toBe(true);
    const aAdmin = callerAs(db, { userId: a.adminId });
    // Made-up workspaces are refused (unknown_scope): the workspace exists before its card.
    await aAdmin.admin.workspaces.create({ name: "Workspace A", id: "wa" });
    const ws = await aAdmin.memory.write({
      operations: [
        {
          op: "create",
          kind: "project_context",
          itemKey: "launch",
          scope: "workspace:wa",
          node: { title: `${MARK} workspace`, content: `${MARK} workspace plan` },
        },
      ],
    });
    await aAdmin.admin.kinds.save({
      definition: {
        kind: "kestrel_kind",
        key: "kestrel.kind",
        domain: "kestrel",
        type: "fact",
        description: `${MARK} kind`,
      },
    });
    const [chunk] = await queryRows<{ id: string }>(
      db,
      sql`select id from memory_chunks where tenant_id = ${a.tenantId} limit 1`,
    );
    const topicId = newId("top");
    await db.insert(memoryTopics).values({
      tenantId: a.tenantId,
      id: topicId,
      name: MARK,
      normalizedName: MARK,
      hotness: 9,
      mentionCount: 3,
      summary: `${MARK} topic`,
      lastMentionedAt: new Date(),
    });
    if (chunk) await db.insert(memoryChunkTopics).values({ tenantId: a.tenantId, chunkId: chunk.id, topicId });
    const grants = await aAdmin.grants.list({ principalType: "user", principalId: a.memberId });
    const victimEmail = `victim-${newId("v").slice(2, 10)}@example.com`;
    const victim = await addUserToTenant(db, {
      email: victimEmail,
      password: "victim password",
      role: "member",
      tenantId: a.tenantId,
      actorUserId: a.adminId,
    });
    const [adminRow] = await queryRows<{ email: string }>(db, sql`select email from users where id = ${a.adminId}`);

    // B: its own data in the same session name.
    await bTools.message_append({
      sessionId: "shared-session",
      messages: [{ role: "user", content: "B's own words" }],
    });
    const bWritten = await bTools.memory_write({
      operations: [
        {
          op: "create",
          kind: "custom_fact",
          itemKey: "b_fact",
          explicitUserIntent: true,
          node: { title: "B fact", content: "Only B knows this." },
        },
      ],
    });

    fx = {
      a: {
        ...a,
        secret: aKey.secret,
        keyId: aKey.apiKey.id,
        nodeId: written.results[0]!.nodeId!,
        sessionNodeId: written.results[1]!.nodeId!,
        workspaceNodeId: ws.results[0]!.nodeId!,
        messageId: shared.messageIds[0]!,
        privateMessageId: priv.messageIds[0]!,
        topicId,
        grantId: grants.find((g) => g.scope === `user:${a.memberId}`)!.id,
        kind: "kestrel_kind",
        victimEmail,
        adminEmail: adminRow!.email,
      },
      b: { ...b, secret: bKey.secret, nodeId: bWritten.results[0]!.nodeId! },
    };
    const [member] = await queryRows<{ email: string }>(db, sql`select email from users where id = ${a.memberId}`);
    markers = [
      MARK,
      fx.a.nodeId,
      fx.a.sessionNodeId,
      fx.a.workspaceNodeId,
      fx.a.messageId,
      fx.a.privateMessageId,
      fx.a.topicId,
      fx.a.keyId,
      fx.a.grantId,
      fx.a.adminEmail,
      member!.email,
      ...(chunk ? [chunk.id] : []),
    ];
    aUserIds = [a.adminId, a.memberId, victim.user.id];
    before = await snapshot(db, a.tenantId, aUserIds);
  });
  afterAll(async () => handle?.destroy());

  it("classifies every procedure of the router (a new procedure must be added to PROCEDURES)", () => {
    const actual = routerProcedures();
    const unclassified = actual.filter((p) => !(p in PROCEDURES));
    const stale = Object.keys(PROCEDURES).filter((p) => !actual.includes(p));
    expect({ unclassified, stale }).toEqual({ unclassified: [], stale: [] });
    expect(actual.length).toBeGreaterThan(40);
  });

  it("enforces each procedure's class: who may call it at all", async () => {
    const c = callers();
    const bAsA = callerAs(handle.db, { userId: fx.b.adminId, tenantId: fx.a.tenantId });
    const aMember = callerAs(handle.db, { userId: fx.a.memberId });
    const failures: string[] = [];
    const expectCode = async (label: string, run: Promise<unknown>, code: string) => {
      const outcome = await run.then(
        () => "resolved",
        (e: { code?: string }) => e.code ?? String(e),
      );
      if (outcome !== code) failures.push(`${label}: expected ${code}, got ${outcome}`);
    };
    for (const procedure of routerProcedures()) {
      const access = PROCEDURES[procedure]?.access;
      if (!access || access === "public") continue;
      await expectCode(`${procedure} anonymous`, invokePath(c.anon, procedure, undefined), "UNAUTHORIZED");
      if (access === "agent") {
        await expectCode(
          `${procedure} with a dashboard session only`,
          invokePath(c.bAdmin, procedure, undefined),
          "UNAUTHORIZED",
        );
        continue;
      }
      await expectCode(`${procedure} with a bearer key only`, invokePath(c.bKey, procedure, undefined), "UNAUTHORIZED");
      if (access === "signed-in") continue;
      await expectCode(
        `${procedure} as B's admin asking for organisation A`,
        invokePath(bAsA, procedure, undefined),
        "FORBIDDEN",
      );
      if (access === "admin")
        await expectCode(`${procedure} as A's member`, invokePath(aMember, procedure, undefined), "FORBIDDEN");
    }
    expect(failures).toEqual([]);
  });

  describe("called as organisation B with organisation A's ids", () => {
    it.each(Object.keys(PROCEDURES))("%s", async (procedure) => {
      const { access, probe } = PROCEDURES[procedure]!;
      const c = callers();
      const who = access === "agent" ? c.bKey : access === "public" ? c.anon : c.bAdmin;
      const clean = (value: unknown) => {
        const text = JSON.stringify(value) ?? "";
        for (const marker of markers)
          expect(text, `${procedure} returned organisation A's ${marker}`).not.toContain(marker);
        return value;
      };
      const kit: Kit = {
        fx,
        call: (input) => invokePath(who, procedure, input),
        refused: async (input, ...codes) => {
          const outcome = await invokePath(who, procedure, input).then(
            (value) => ({ resolved: value }),
            (e: { code?: string }) => ({ code: e.code }),
          );
          expect(outcome, `${procedure} should be refused`).toHaveProperty("code");
          expect(codes).toContain((outcome as { code: string }).code);
        },
        clean,
        invoke: (p, input, as) => invokePath(c[as], p, input),
      };
      await probe(kit);
    });

    it("left every row of organisation A exactly as it was", async () => {
      const after = await snapshot(handle.db, fx.a.tenantId, aUserIds);
      for (const table of Object.keys(before)) expect(after[table], table).toBe(before[table]);
    });

    it("left A's key, member and password working (no takeover through admin.members.add)", async () => {
      expect(await verifyCredentials(handle.db, fx.a.victimEmail, "password chosen by B")).toBeNull();
      expect(await verifyCredentials(handle.db, fx.a.victimEmail, "victim password")).not.toBeNull();
      const mine = await callerAs(handle.db, { bearer: fx.a.secret }).tools.memory_get({ id: fx.a.nodeId });
      expect(mine).toMatchObject({ found: true, node: { revision: 1, status: "active" } });
    });
  });

  // ---- hostile strings in every text field of every tool ------------------------------------------

  const HOSTILE = [
    "'; drop table memory_nodes; --",
    "%' or '1'='1",
    "' OR 1=1 --",
    "%",
    "_\\",
    "a:* | !b & (c",
    "杭州'); delete from memory_nodes where ('1'='1",
    "$1; select pg_sleep(5)",
  ];

  /** JSON with object keys sorted (jsonb does not keep key order). */
  const canonical = (value: unknown): string =>
    JSON.stringify(value, (_k, v: unknown) =>
      v && typeof v === "object" && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)))
        : v,
    );

  const baseInput = (tool: string, field: string, n: number): Record<string, unknown> => {
    switch (tool) {
      case "memory_write":
        return field.includes("targetId") || field.includes("expectedRevision")
          ? { operations: [{ op: "update", targetId: "x", expectedRevision: 1, node: { content: "c" } }] }
          : {
              operations: [
                {
                  op: "create",
                  kind: "custom_fact",
                  itemKey: `hostile_${n}`,
                  explicitUserIntent: true,
                  node: { title: "Hostile probe", content: "probe" },
                },
              ],
            };
      case "memory_forget":
        return field === "id"
          ? { expectedRevision: 1, reason: "probe" }
          : field.startsWith("targets")
            ? { targets: [{ id: "x", expectedRevision: 1 }], reason: "probe" }
            : { id: "mem_nothing", expectedRevision: 1, reason: "probe" };
      case "message_append":
        return { sessionId: "hostile-session", messages: [{ role: "user", content: "hi" }] };
      default:
        return {};
    }
  };

  it("answers hostile strings in every text field of every tool without a server error, storing them verbatim, returning no extra rows", async () => {
    const listed = (await callerAs(handle.db, { bearer: fx.a.secret }).tools.list()).tools;
    expect(listed.map((t) => t.name).sort()).toEqual([
      "memory_context",
      "memory_forget",
      "memory_get",
      "memory_search",
      "memory_write",
      "message_append",
    ]);
    const turnFields = textFields(turnInputJsonSchema() as JsonSchema).map((f) => ({ ...f, path: `turn.${f.path}` }));
    const readable = new Set(
      (
        await queryRows<{ id: string }>(
          handle.db,
          sql`select id from memory_nodes where tenant_id = ${fx.a.tenantId} and ((scope_type = 'user' and scope_id = ${fx.a.memberId}) or scope_type = 'session')`,
        )
      ).map((r) => r.id),
    );
    const countsBefore = await queryRows<{ tenant_id: string; n: number }>(
      handle.db,
      sql`select tenant_id, count(*)::int as n from memory_nodes group by tenant_id`,
    );
    const bBefore = await snapshot(handle.db, fx.b.tenantId, [fx.b.adminId, fx.b.memberId]);
    const problems: string[] = [];
    let calls = 0;
    let n = 0;
    for (const tool of listed) {
      const fields = [...textFields(tool.inputSchema as JsonSchema), ...turnFields];
      expect(fields.length, `${tool.name} has text fields`).toBeGreaterThan(0);
      for (const field of fields) {
        for (const hostile of HOSTILE) {
          const input = baseInput(tool.name, field.path, n++);
          const value = field.json ? { [hostile]: hostile, list: [hostile] } : hostile;
          setPath(input, field.path, value);
          if (tool.name === "memory_forget") setPath(input, "turn.forgetIntent", true);
          const res = await trpcHttp(handle.db, `tools.${tool.name}`, { bearer: fx.a.secret, body: input });
          calls++;
          const where = `${tool.name} ${field.path} = ${JSON.stringify(hostile)}`;
          if (res.status >= 500) {
            problems.push(`${where}: HTTP ${res.status} ${res.text.slice(0, 200)}`);
            continue;
          }
          const data = res.json.result?.data as Record<string, unknown> | undefined;
          if (!data) continue;
          // No rows beyond what this key may read, and no filter matched by a wildcard.
          for (const list of ["exact", "relevant"] as const) {
            for (const hit of (data[list] as { id: string }[] | undefined) ?? [])
              if (!readable.has(hit.id)) problems.push(`${where}: returned unreadable ${hit.id}`);
          }
          const filter =
            tool.name === "memory_search" && !["queryText"].includes(field.path) && !field.path.startsWith("turn.");
          if (filter && ((data.exact as unknown[] | undefined)?.length ?? 0) > 0)
            problems.push(`${where}: filter matched ${(data.exact as unknown[]).length} card(s)`);
          // Written text is stored exactly as sent.
          if (tool.name === "memory_write" && data.done === true) {
            const cardId = (data.results as { nodeId: string }[])[0]!.nodeId;
            const [row] = await handle.db
              .select()
              .from(memoryNodes)
              .where(sql`${memoryNodes.tenantId} = ${fx.a.tenantId} and ${memoryNodes.id} = ${cardId}`);
            const stored: Record<string, unknown> = {
              "operations[].node.title": row?.title,
              "operations[].node.content": row?.content,
              "operations[].node.tags[]": row?.tags[0],
              "operations[].node.entities[]": row?.entities[0],
              "operations[].node.valueJson": row?.valueJson,
            };
            if (field.path in stored && canonical(stored[field.path]) !== canonical(value))
              problems.push(`${where}: stored ${JSON.stringify(stored[field.path])}`);
          }
          if (tool.name === "message_append" && field.path === "messages[].content") {
            const ids = data.messageIds as string[];
            const [row] = await queryRows<{ content: string }>(
              handle.db,
              sql`select content from memory_messages where tenant_id = ${fx.a.tenantId} and id = ${ids[0]!}`,
            );
            if (row?.content !== hostile) problems.push(`${where}: stored ${JSON.stringify(row?.content)}`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
    expect(calls).toBeGreaterThan(200);
    // The tables are all there, B is untouched, and no tenant lost a card.
    const countsAfter = await queryRows<{ tenant_id: string; n: number }>(
      handle.db,
      sql`select tenant_id, count(*)::int as n from memory_nodes group by tenant_id`,
    );
    for (const row of countsBefore)
      expect(countsAfter.find((r) => r.tenant_id === row.tenant_id)!.n).toBeGreaterThanOrEqual(row.n);
    expect(await snapshot(handle.db, fx.b.tenantId, [fx.b.adminId, fx.b.memberId])).toEqual(bBefore);
  });

  // ---- hostile strings in every text field of every dashboard procedure ---------------------------

  it("answers hostile strings in every text field of every dashboard procedure (generated from the router) without a server error, leaving organisation B as it was", async () => {
    const c = callers();
    const bBefore = await snapshot(handle.db, fx.b.tenantId, [fx.b.adminId, fx.b.memberId]);
    const countsBefore = await queryRows<{ tenant_id: string; n: number }>(
      handle.db,
      sql`select tenant_id, count(*)::int as n from memory_nodes group by tenant_id`,
    );
    const problems: string[] = [];
    let calls = 0;
    // SQL and full-text syntax, and a CJK one: the shapes that broke a query once, not every variant.
    const hostile = [HOSTILE[0]!, HOSTILE[1]!, HOSTILE[5]!, HOSTILE[6]!];
    for (const procedure of routerProcedures()) {
      const access = PROCEDURES[procedure]?.access;
      if (access !== "tenant" && access !== "admin" && access !== "signed-in") continue;
      const schema = procedureInputSchema(procedure);
      if (!schema) continue;
      for (const field of textFields(schema)) {
        for (const value of hostile) {
          const input = minimalInput(schema) as Record<string, unknown>;
          setPath(input, field.path, field.json ? { [value]: value, list: [value] } : value);
          calls++;
          const outcome = await invokePath(c.aAdmin, procedure, input).then(
            () => "ok",
            (e: { code?: string; message?: string }) =>
              e.code === "INTERNAL_SERVER_ERROR" || !e.code
                ? `${e.code ?? "thrown"}: ${e.message?.slice(0, 200)}`
                : "refused",
          );
          if (outcome !== "ok" && outcome !== "refused")
            problems.push(`${procedure} ${field.path} = ${JSON.stringify(value)}: ${outcome}`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(calls).toBeGreaterThan(100);
    const countsAfter = await queryRows<{ tenant_id: string; n: number }>(
      handle.db,
      sql`select tenant_id, count(*)::int as n from memory_nodes group by tenant_id`,
    );
    for (const row of countsBefore)
      expect(countsAfter.find((r) => r.tenant_id === row.tenant_id)!.n).toBeGreaterThanOrEqual(row.n);
    expect(await snapshot(handle.db, fx.b.tenantId, [fx.b.adminId, fx.b.memberId])).toEqual(bBefore);
  });

  // ---- secrets and logs -----------------------------------------------------------------------

  describe("API key secrets in logs", () => {
    afterEach(() => vi.restoreAllMocks());

    it("never writes a key's secret to any log line during a request flow", async () => {
      const lines: string[] = [];
      const capture =
        (stream: "stdout" | "stderr") =>
        (chunk: unknown): boolean => {
          lines.push(`${stream}: ${String(chunk)}`);
          return true;
        };
      for (const method of ["log", "info", "warn", "error", "debug"] as const)
        vi.spyOn(console, method).mockImplementation(
          (...args: unknown[]) => void lines.push(args.map(String).join(" ")),
        );
      vi.spyOn(process.stdout, "write").mockImplementation(capture("stdout") as typeof process.stdout.write);
      vi.spyOn(process.stderr, "write").mockImplementation(capture("stderr") as typeof process.stderr.write);

      const created = await callerAs(handle.db, { userId: fx.a.memberId }).keys.create({
        name: "log probe",
        permissions: ["memory:read", "memory:write", "memory:forget", "messages:write"],
      });
      const secret = created.secret;
      const body = secret.slice("mem_live_".length);
      const flow = [
        await trpcHttp(handle.db, "tools.list", { bearer: secret }),
        await trpcHttp(handle.db, "tools.message_append", {
          bearer: secret,
          body: { sessionId: "log-session", messages: [{ role: "user", content: `my key is ${secret}, remember it` }] },
        }),
        await trpcHttp(handle.db, "tools.memory_write", {
          bearer: secret,
          body: {
            operations: [
              {
                op: "create",
                kind: "custom_fact",
                itemKey: "log_probe",
                explicitUserIntent: true,
                node: { title: "Log probe", content: "nothing secret" },
              },
            ],
          },
        }),
        await trpcHttp(handle.db, "tools.memory_search", { bearer: secret, body: { queryText: secret } }),
        await trpcHttp(handle.db, "tools.memory_context", {
          bearer: secret,
          body: { queryText: `use ${secret}`, turn: { sessionId: "log-session" } },
        }),
        await trpcHttp(handle.db, "tools.memory_search", { bearer: `${secret}x`, body: { all: true } }),
        await trpcHttp(handle.db, "tools.memory_search", { bearer: secret.slice(0, -1), body: { all: true } }),
      ];
      expect(flow.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 401, 401]);
      // The same key over MCP.
      const mcp = await handleMcpRequest(
        new Request("http://localhost/api/mcp", {
          method: "POST",
          headers: {
            authorization: `Bearer ${secret}`,
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
        }),
        { db: handle.db },
      );
      expect(mcp.status).toBe(200);
      // Whatever the server logs about failures goes through the masking logger.
      log("error", `request failed for Authorization: Bearer ${secret}`, { header: `Bearer ${secret}`, key: secret });
      logServerError("tRPC tools.memory_search", new Error(`verify failed for ${secret}`));
      await callerAs(handle.db, { userId: fx.a.memberId }).keys.revoke({ keyId: created.apiKey.id });
      expect((await trpcHttp(handle.db, "tools.list", { bearer: secret })).status).toBe(401);

      vi.restoreAllMocks();
      expect(lines.length).toBeGreaterThan(0);
      const leaked = lines.filter((line) => line.includes(body));
      expect(leaked).toEqual([]);
      // Nor is it stored anywhere but as a hash.
      const [audit] = await queryRows<{ n: number }>(
        handle.db,
        sql`select count(*)::int as n from memory_audit_events where tenant_id = ${fx.a.tenantId} and (coalesce(before::text, '') || coalesce(after::text, '') || coalesce(metadata::text, '') || coalesce(reason, '')) like ${`%${body}%`}`,
      );
      expect(audit!.n).toBe(0);
      const [keyRow] = await queryRows<Record<string, unknown>>(
        handle.db,
        sql`select * from api_keys where tenant_id = ${fx.a.tenantId} and id = ${created.apiKey.id}`,
      );
      expect(JSON.stringify(keyRow)).not.toContain(body);
    });
  });

  it("relies on memory-forget.test.ts for the hard-delete no-trace check", () => {
    const file = fs.readFileSync(path.resolve(import.meta.dirname, "memory-forget.test.ts"), "utf8");
    expect(file).toContain("leaves no trace of the content in any table");
  });
});
