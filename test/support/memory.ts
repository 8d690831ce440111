import { memoryChunks, tenants } from "~/db/schema";
import type { Database } from "~/db/types";
import { newId } from "~/server/ids";
import type { MemoryCallContext } from "~/server/memory/call-context";
import { rankingFeaturesWithout, type RankingFeature } from "~/server/memory/retrieval/ranking-features";
import { appendMessages } from "~/server/memory/evidence/messages";
import { memorySearch } from "~/server/memory/retrieval/search";
import { parseScopePattern } from "~/server/memory/scope";
import { memoryWrite } from "~/server/memory/write/write";
import { segmentForSearch } from "~/server/text/segment";

export async function createTenant(db: Database, overrides: Partial<typeof tenants.$inferInsert> = {}) {
  const id = newId("ten");
  await db.insert(tenants).values({ id, name: `Tenant ${id}`, slug: id, ...overrides });
  return id;
}

/** A memory-tree chunk as an import writes it (no message behind it), in user u1's scope. */
export function importedChunk(
  tenantId: string,
  id: string,
  content: string,
  extra: Partial<typeof memoryChunks.$inferInsert> = {},
): typeof memoryChunks.$inferInsert {
  return {
    tenantId,
    id,
    sessionId: "s-import",
    userScopeId: "u1",
    messageId: null,
    source: "import",
    role: "user",
    content,
    contentHash: `h-${id}`,
    searchText: segmentForSearch(content),
    ...extra,
  };
}

/**
 * An agent acting for user `u1` in session `s1`: reads and writes its own user scope and any session,
 * reads global. Override anything per test.
 */
export function agentContext(tenantId: string, overrides: Partial<MemoryCallContext> = {}): MemoryCallContext {
  return {
    tenantId,
    actor: { type: "api_key", id: "key_test" },
    readScopes: ["user:u1", "session:*", "workspace:w1", "global"].map(parseScopePattern),
    writeScopes: ["user:u1", "session:*", "workspace:w1"].map(parseScopePattern),
    defaults: {
      user: { type: "user", id: "u1" },
      session: { type: "session", id: "s1" },
      workspace: { type: "workspace", id: "w1" },
    },
    trustedMessageIds: [],
    ...overrides,
  };
}

/** A person editing in the dashboard: explicit by nature, may forget. */
export function personContext(tenantId: string, overrides: Partial<MemoryCallContext> = {}): MemoryCallContext {
  return agentContext(tenantId, { actor: { type: "user", id: "usr_test" }, forgetIntent: true, ...overrides });
}

/** One memory_write operation as an agent sends it. */
export type Op = Record<string, unknown>;

/** A `create` operation with explicit user intent (`extra`: itemKey, scope, …). */
export const createOp = (kind: string, card: Record<string, unknown>, extra: Op = {}): Op => ({
  op: "create",
  kind,
  explicitUserIntent: true,
  node: card,
  ...extra,
});

/** Search / context options that never touch an embedding provider. */
export const noVectors = { embeddings: null } as const;

/**
 * One speaker's log: `lines` appended as the user's messages of session "log" in user scope u1, in
 * batches as a client appends (at most 100 messages a call). Returns the messages' ids, in order.
 */
export async function appendLog(db: Database, ctx: MemoryCallContext, lines: readonly string[]): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < lines.length; i += 100) {
    const { messages } = await appendMessages(db, ctx, {
      sessionId: "log",
      userScopeId: "u1",
      messages: lines.slice(i, i + 100).map((content) => ({ role: "user" as const, content })),
    });
    ids.push(...messages.map((m) => m.id));
  }
  return ids;
}

/** The evidence a search finds (a page of `limit`, no vectors) with the ranking features `off` switched off. */
export async function evidenceWithout(
  db: Database,
  ctx: MemoryCallContext,
  queryText: string,
  off: readonly RankingFeature[],
  limit = 10,
) {
  const result = await memorySearch(
    db,
    ctx,
    { queryText, includeEvidence: true, limit },
    { ...noVectors, ranking: rankingFeaturesWithout(off) },
  );
  return result.evidence ?? [];
}

/** Writes one batch that must succeed (the test fails with the service's message otherwise); returns the node ids in order. */
export async function writeCards(db: Database, ctx: MemoryCallContext, ...operations: Op[]): Promise<string[]> {
  return writeCardsAt(db, ctx, undefined, ...operations);
}

/** writeCards at a given moment (a test's clock), so cards are ordered without sleeping. */
export async function writeCardsAt(
  db: Database,
  ctx: MemoryCallContext,
  now: Date | undefined,
  ...operations: Op[]
): Promise<string[]> {
  const result = await memoryWrite(db, ctx, { operations }, { now });
  if (!result.done) throw new Error(`memory_write did not commit: ${result.message}`);
  return result.results.map((r) => r.nodeId!);
}
