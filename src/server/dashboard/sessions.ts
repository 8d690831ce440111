import { and, desc, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "~/db/types";
import { memoryMessages, memoryNodes, type MemorySummary } from "~/db/schema";
import { notFound } from "~/server/errors";
import {
  canEraseSession,
  cardsCitingMessages,
  getMessagesByIds,
  getSummaryChain,
  listRecentMessages,
  listSessions,
  scopeAllowed,
  type ScopePattern,
  sessionOwnersColumn,
} from "~/server/memory";
import { EXTRACTOR_ACTOR_ID } from "~/server/tree";
import { canReadAllSessions } from "./scope-access";

export type SessionListItem = {
  sessionId: string;
  userScopeId: string | null;
  workspaceId: string | null;
  messageCount: number;
  firstMessageAt: string;
  lastMessageAt: string;
};

/** A conversation is readable by its session scope: its messages are shown only then (session pages, a card's evidence, exports). */
export const sessionReadable = (readScopes: readonly ScopePattern[], sessionId: string) =>
  scopeAllowed({ type: "session", id: sessionId }, readScopes);

/** Sessions the viewer may read (any, with `session:*`; else the ones granted by id), most recent first. */
export async function listReadableSessions(
  db: DbOrTx,
  params: { tenantId: string; readScopes: readonly ScopePattern[]; cursor?: string | null; limit?: number },
): Promise<{ sessions: SessionListItem[]; nextCursor: string | null }> {
  const granted = params.readScopes.filter((p) => p.type === "session" && p.id !== "*").map((p) => p.id);
  if (!canReadAllSessions(params.readScopes) && granted.length === 0) return { sessions: [], nextCursor: null };
  const page = await listSessions(db, {
    tenantId: params.tenantId,
    sessionIds: canReadAllSessions(params.readScopes) ? undefined : granted,
    cursor: params.cursor,
    limit: params.limit ?? 50,
  });
  return {
    sessions: page.sessions.map((s) => ({
      sessionId: s.sessionId,
      userScopeId: s.userScopeId,
      workspaceId: s.workspaceId,
      messageCount: s.messageCount,
      firstMessageAt: s.firstMessageAt.toISOString(),
      lastMessageAt: s.lastMessageAt.toISOString(),
    })),
    nextCursor: page.nextCursor,
  };
}

export type SessionMessage = {
  id: string;
  seq: number;
  parentId: string | null;
  role: string;
  content: string;
  metadata: Record<string, unknown>;
  capturedBy: string;
  createdAt: string;
  /** Current cards, in scopes the viewer may read, that cite this message as evidence. */
  savedAs: { id: string; title: string; extracted: boolean }[];
};
export type SessionSummary = Omit<MemorySummary, "createdAt" | "tenantId"> & { createdAt: string };

export type SessionDetail = {
  sessionId: string;
  messageCount: number;
  /** A window of messages, oldest first, ending at `before` (exclusive) or the latest. */
  messages: SessionMessage[];
  /** Seq to pass as `before` for the previous (older) window; null at the start of the session. */
  olderBefore: number | null;
  /** Whether newer messages exist after this window. */
  hasNewer: boolean;
  /** Newest → oldest. */
  summaries: SessionSummary[];
  /** Cards stored in this session's scope (any status), newest first. */
  cards: {
    id: string;
    title: string;
    kind: string;
    status: string;
    revision: number;
    updatedAt: string;
    explicit: boolean;
    extracted: boolean;
    sourceMessageIds: string[];
  }[];
  /** Whether the viewer may erase the whole conversation (canEraseSession). */
  erasable: boolean;
};

const PAGE = 50;

/**
 * A session's messages (a window, pageable backwards), its summary chain and the cards in its scope.
 * `aroundMessageId` opens the window that ends at that message, so provenance links land on it.
 */
export async function getSessionDetail(
  db: DbOrTx,
  params: {
    tenantId: string;
    readScopes: readonly ScopePattern[];
    writeScopes: readonly ScopePattern[];
    sessionId: string;
    before?: number;
    aroundMessageId?: string;
  },
): Promise<SessionDetail> {
  const { tenantId, sessionId } = params;
  if (!sessionReadable(params.readScopes, sessionId))
    throw notFound("not_found", `No session ${sessionId} you can read.`);
  let before = params.before;
  if (params.aroundMessageId) {
    const [target] = await getMessagesByIds(db, { tenantId, ids: [params.aroundMessageId] });
    if (target && target.sessionId === sessionId) before = target.seq + 1;
  }
  const [messages, stats, summaries, cards] = await Promise.all([
    listRecentMessages(db, { tenantId, sessionId, limit: PAGE, before }),
    db
      .select({
        n: sql<number>`count(*)`.mapWith(Number),
        first: sql<number>`min(${memoryMessages.seq})`.mapWith(Number),
        last: sql<number>`max(${memoryMessages.seq})`.mapWith(Number),
        // Whose conversation it is, as eraseSession reads it: who may erase it.
        owners: sessionOwnersColumn(),
      })
      .from(memoryMessages)
      .where(and(eq(memoryMessages.tenantId, tenantId), eq(memoryMessages.sessionId, sessionId))),
    getSummaryChain(db, { tenantId, sessionId, limit: 100 }),
    db
      .select({
        id: memoryNodes.id,
        title: memoryNodes.title,
        kind: memoryNodes.kind,
        status: memoryNodes.status,
        revision: memoryNodes.revision,
        updatedAt: memoryNodes.updatedAt,
        explicit: memoryNodes.explicitUserIntent,
        // This revision was written by the background extractor (not confirmed by anyone since).
        extracted: sql<boolean>`(${memoryNodes.createdByType} = 'system' and ${memoryNodes.createdById} is not distinct from ${EXTRACTOR_ACTOR_ID})`,
        sourceMessageIds: memoryNodes.sourceMessageIds,
      })
      .from(memoryNodes)
      .where(
        and(
          eq(memoryNodes.tenantId, tenantId),
          eq(memoryNodes.scopeType, "session"),
          eq(memoryNodes.scopeId, sessionId),
        ),
      )
      .orderBy(desc(memoryNodes.updatedAt))
      .limit(100),
  ]);
  const citing = await cardsCitingMessages(db, {
    tenantId,
    readScopes: params.readScopes,
    messageIds: messages.map((m) => m.id),
  });
  const extractedIds = new Set(cards.filter((c) => c.extracted).map((c) => c.id));
  const total = stats[0];
  if (!total || total.n === 0) {
    if (summaries.length === 0 && cards.length === 0)
      throw notFound("not_found", `Session ${sessionId} has no messages.`);
  }
  const first = messages[0];
  const last = messages.at(-1);
  return {
    sessionId,
    messageCount: total?.n ?? 0,
    messages: messages.map((m) => ({
      id: m.id,
      seq: m.seq,
      parentId: m.parentId,
      role: m.role,
      content: m.content,
      metadata: m.metadata,
      capturedBy: `${m.capturedByType}${m.capturedById ? `:${m.capturedById}` : ""}`,
      createdAt: m.createdAt.toISOString(),
      savedAs: (citing.get(m.id) ?? []).map(({ id, title }) => ({ id, title, extracted: extractedIds.has(id) })),
    })),
    olderBefore: first && total && first.seq > total.first ? first.seq : null,
    hasNewer: Boolean(last && total && last.seq < total.last),
    summaries: summaries.map(({ tenantId: _t, createdAt, ...s }) => ({ ...s, createdAt: createdAt.toISOString() })),
    cards: cards.map((c) => ({ ...c, extracted: Boolean(c.extracted), updatedAt: c.updatedAt.toISOString() })),
    erasable: canEraseSession(params.writeScopes, sessionId, total?.owners ?? []),
  };
}
