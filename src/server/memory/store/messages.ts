import { and, asc, count, desc, eq, lt, sql, type SQL } from "drizzle-orm";
import { anyOf } from "~/db/any-of";
import { memoryMessages } from "~/db/schema";
import type { DbOrTx } from "~/db/types";
import { badRequest } from "~/server/errors";
import type { MemoryCallContext } from "../call-context";

/** The message log's reads (evidence/messages.ts appends): tenant first, as every query. */

export const MESSAGE_ROLES = ["system", "user", "assistant", "tool"] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];

export const MAX_ID_CHARS = 200;
const MAX_IDS_PER_LOOKUP = 500;

/** Columns a reader gets: everything but the search columns, which only the index needs. */
const messageColumns = {
  tenantId: memoryMessages.tenantId,
  id: memoryMessages.id,
  seq: memoryMessages.seq,
  sessionId: memoryMessages.sessionId,
  userScopeId: memoryMessages.userScopeId,
  workspaceId: memoryMessages.workspaceId,
  parentId: memoryMessages.parentId,
  role: memoryMessages.role,
  content: memoryMessages.content,
  contentHash: memoryMessages.contentHash,
  metadata: memoryMessages.metadata,
  capturedByType: memoryMessages.capturedByType,
  capturedById: memoryMessages.capturedById,
  createdAt: memoryMessages.createdAt,
};
export type StoredMessage = {
  tenantId: string;
  id: string;
  seq: number;
  sessionId: string;
  userScopeId: string | null;
  workspaceId: string | null;
  parentId: string | null;
  role: MessageRole;
  content: string;
  contentHash: string;
  metadata: Record<string, unknown>;
  capturedByType: MemoryCallContext["actor"]["type"];
  capturedById: string | null;
  createdAt: Date;
};

/** The latest `limit` messages of a session (before `before`, a seq, when paging back), oldest first. */
export async function listRecentMessages(
  db: DbOrTx,
  params: { tenantId: string; sessionId: string; limit?: number; before?: number },
): Promise<StoredMessage[]> {
  const limit = Math.min(Math.max(Math.trunc(params.limit ?? 20), 1), 200);
  const rows = await db
    .select(messageColumns)
    .from(memoryMessages)
    .where(
      and(
        eq(memoryMessages.tenantId, params.tenantId),
        eq(memoryMessages.sessionId, params.sessionId),
        params.before !== undefined ? lt(memoryMessages.seq, params.before) : undefined,
      ),
    )
    .orderBy(desc(memoryMessages.seq))
    .limit(limit);
  return rows.reverse();
}

/** Messages by id within the tenant, in log order; unknown ids are simply absent. */
export async function getMessagesByIds(
  db: DbOrTx,
  params: { tenantId: string; ids: readonly string[] },
): Promise<StoredMessage[]> {
  const ids = [...new Set(params.ids)];
  if (ids.length === 0) return [];
  if (ids.length > MAX_IDS_PER_LOOKUP)
    throw badRequest("too_many_ids", `Ask for at most ${MAX_IDS_PER_LOOKUP} message ids at once.`);
  return db
    .select(messageColumns)
    .from(memoryMessages)
    .where(and(eq(memoryMessages.tenantId, params.tenantId), anyOf(memoryMessages.id, ids)))
    .orderBy(asc(memoryMessages.seq));
}

/**
 * Every message of `ids`, however many, read MAX_IDS_PER_LOOKUP at a time: for a card's evidence across
 * its revisions, or an export page's (a cap there left the rest out, or called it erased).
 */
export async function getAllMessagesByIds(
  db: DbOrTx,
  params: { tenantId: string; ids: readonly string[] },
): Promise<StoredMessage[]> {
  const ids = [...new Set(params.ids)];
  const found: StoredMessage[] = [];
  for (let i = 0; i < ids.length; i += MAX_IDS_PER_LOOKUP)
    found.push(
      ...(await getMessagesByIds(db, { tenantId: params.tenantId, ids: ids.slice(i, i + MAX_IDS_PER_LOOKUP) })),
    );
  return found;
}

/**
 * The subset of `ids` that are messages of this tenant's session, in the order given: what the tool
 * endpoint may accept as `sourceMessageIds` for a turn (ctx.trustedMessageIds).
 */
export async function resolveTrustedMessageIds(
  db: DbOrTx,
  params: { tenantId: string; sessionId: string; ids: readonly string[] },
): Promise<string[]> {
  const ids = [
    ...new Set(params.ids.filter((id) => typeof id === "string" && id.length > 0 && id.length <= MAX_ID_CHARS)),
  ];
  if (ids.length === 0) return [];
  if (ids.length > MAX_IDS_PER_LOOKUP)
    throw badRequest("too_many_ids", `Send at most ${MAX_IDS_PER_LOOKUP} message ids at once.`);
  const rows = await db
    .select({ id: memoryMessages.id })
    .from(memoryMessages)
    .where(
      and(
        eq(memoryMessages.tenantId, params.tenantId),
        eq(memoryMessages.sessionId, params.sessionId),
        anyOf(memoryMessages.id, ids),
      ),
    );
  const found = new Set(rows.map((row) => row.id));
  return ids.filter((id) => found.has(id));
}

export type SessionOverview = {
  sessionId: string;
  /** The user the session belongs to (the highest one, if a session somehow has several). */
  userScopeId: string | null;
  workspaceId: string | null;
  messageCount: number;
  firstMessageAt: Date;
  lastMessageAt: Date;
  lastSeq: number;
};

/**
 * Sessions with message counts and first/last timestamps, most recently active first. `cursor` is
 * the `nextCursor` of the previous page (the last session's latest seq).
 */
export async function listSessions(
  db: DbOrTx,
  params: {
    tenantId: string;
    userScopeId?: string;
    sessionIds?: readonly string[];
    limit?: number;
    cursor?: string | null;
  },
): Promise<{ sessions: SessionOverview[]; nextCursor: string | null }> {
  const limit = Math.min(Math.max(Math.trunc(params.limit ?? 50), 1), 200);
  let having: SQL | undefined;
  if (params.cursor) {
    const before = Number(params.cursor);
    if (!Number.isSafeInteger(before) || before < 0)
      throw badRequest("invalid_cursor", "cursor must be the nextCursor of a previous listSessions page.");
    having = sql`max(${memoryMessages.seq}) < ${before}`;
  }
  const lastSeq = sql`max(${memoryMessages.seq})`.mapWith(Number);
  const rows = await db
    .select({
      sessionId: memoryMessages.sessionId,
      userScopeId: sql<string | null>`max(${memoryMessages.userScopeId})`,
      workspaceId: sql<string | null>`max(${memoryMessages.workspaceId})`,
      messageCount: count(),
      firstMessageAt: sql`min(${memoryMessages.createdAt})`.mapWith(memoryMessages.createdAt),
      lastMessageAt: sql`max(${memoryMessages.createdAt})`.mapWith(memoryMessages.createdAt),
      lastSeq,
    })
    .from(memoryMessages)
    .where(
      and(
        eq(memoryMessages.tenantId, params.tenantId),
        params.userScopeId !== undefined ? eq(memoryMessages.userScopeId, params.userScopeId) : undefined,
        params.sessionIds !== undefined ? anyOf(memoryMessages.sessionId, params.sessionIds) : undefined,
      ),
    )
    .groupBy(memoryMessages.sessionId)
    .having(having)
    .orderBy(desc(lastSeq))
    .limit(limit + 1);
  const sessions = rows.slice(0, limit);
  const nextCursor = rows.length > limit ? String(sessions.at(-1)!.lastSeq) : null;
  return { sessions, nextCursor };
}
