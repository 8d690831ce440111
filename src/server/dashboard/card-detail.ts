import type { DbOrTx } from "~/db/types";
import {
  getAllMessagesByIds,
  getMemoryCard,
  getCardHistory,
  type MemoryCallContext,
  type MemoryCard,
  memorySearch,
  type OmitReason,
  parseScope,
  recallUsageOf,
  scopeAllowed,
  type ScoreComponents,
} from "~/server/memory";
import { sessionReadable } from "./sessions";
import { labelActors } from "./actors";
import { toAuditEntries, type AuditEntry } from "./audit-entries";

export type { AuditEntry } from "./audit-entries";

type ReadCtx = Pick<MemoryCallContext, "tenantId" | "readScopes"> & Partial<Pick<MemoryCallContext, "writeScopes">>;

export type EvidenceMessage = {
  id: string;
  sessionId: string;
  seq: number;
  role: string;
  content: string;
  createdAt: string;
};

export type CardDetail = {
  card: MemoryCard;
  /** The whole revision chain, oldest first; `node` is one of them. */
  revisions: (MemoryCard & { createdByLabel: string; updatedByLabel: string })[];
  /** The chain's current revision, when it still has one (else the chain ended: expired or deleted). */
  currentId: string | null;
  events: AuditEntry[];
  /** Messages the card (and its earlier revisions) cite, with their sessions, in log order. */
  evidence: EvidenceMessage[];
  /** Cited ids no longer in the log (erased evidence). */
  missingEvidenceIds: string[];
  /** Cited messages of conversations the viewer may not read (not shown). */
  hiddenEvidenceCount: number;
  /** Whether the viewer may change this card's scope (edit, expire, forget). */
  writable: boolean;
  /** How often agents were handed this revision, and the whole chain; its hotness (search boosts by it). */
  usage: { recallCount: number; chainRecallCount: number; lastRecalledAt: string | null; hotness: number };
};

/** Everything the card page shows, if the viewer may read the card's scope (else NOT_FOUND). */
export async function getCardDetail(db: DbOrTx, ctx: ReadCtx, id: string): Promise<CardDetail> {
  const history = await getCardHistory(db, ctx, id);
  const card = history.revisions.find((r) => r.id === id)!;
  const cited = [...new Set(history.revisions.flatMap((r) => r.sourceMessageIds))];
  const [events, messages, label, usage] = await Promise.all([
    toAuditEntries(db, ctx.tenantId, history.events),
    getAllMessagesByIds(db, { tenantId: ctx.tenantId, ids: cited }),
    labelActors(
      db,
      ctx.tenantId,
      history.revisions.flatMap((r) => [r.createdBy, r.updatedBy]),
    ),
    recallUsageOf(db, { tenantId: ctx.tenantId, cardIds: history.revisions.map((r) => r.id) }),
  ]);
  const own = usage.get(id);
  const lastRecalls = [...usage.values()].map((u) => u.lastRecalledAt.getTime());
  const found = new Set(messages.map((m) => m.id));
  // A profile card readable by a member whose grants leave out the conversation it was said in:
  // the card is theirs to read, the chat is not.
  const readable = messages.filter((m) => sessionReadable(ctx.readScopes, m.sessionId));
  return {
    card: card,
    revisions: history.revisions.map((r) => ({
      ...r,
      createdByLabel: label(r.createdBy).label,
      updatedByLabel: label(r.updatedBy).label,
    })),
    currentId: history.revisions.find((r) => r.status === "active")?.id ?? null,
    events: events.reverse(),
    evidence: readable.map((m) => ({
      id: m.id,
      sessionId: m.sessionId,
      seq: m.seq,
      role: m.role,
      content: m.content,
      createdAt: m.createdAt.toISOString(),
    })),
    missingEvidenceIds: cited.filter((c) => !found.has(c)),
    hiddenEvidenceCount: messages.length - readable.length,
    writable: scopeAllowed(parseScope(card.scope), ctx.writeScopes ?? []),
    usage: {
      recallCount: own?.recallCount ?? 0,
      chainRecallCount: [...usage.values()].reduce((sum, u) => sum + u.recallCount, 0),
      lastRecalledAt: lastRecalls.length ? new Date(Math.max(...lastRecalls)).toISOString() : null,
      hotness: own?.hotness ?? 0,
    },
  };
}

export type WhyRecalled = {
  query: string;
  /** 1-based place among the search's answers; null when the search did not return the card. */
  rank: number | null;
  total: number;
  matchedBy: string[];
  score: ScoreComponents | null;
  omittedBecause: OmitReason | null;
};

/**
 * "Why recalled": runs the same hybrid search an agent would, with the card's title as the question,
 * and reports where the card ranked and which signals put it there.
 */
export async function explainRecall(
  db: DbOrTx,
  ctx: MemoryCallContext,
  id: string,
  query?: string,
): Promise<WhyRecalled> {
  const card = await getMemoryCard(db, ctx, id);
  const queryText = (query?.trim() || card.title).slice(0, 1000);
  // Shown on every card page: a view, not a search anyone made, so it stays out of the query log.
  const result = await memorySearch(
    db,
    ctx,
    { queryText, limit: 50, includeExpired: card.status === "expired" },
    { logQuery: false },
  );
  const hits = [...result.exact, ...result.relevant];
  const index = hits.findIndex((h) => h.id === card.id);
  const hit = index >= 0 ? hits[index]! : null;
  return {
    query: queryText,
    rank: hit ? index + 1 : null,
    total: hits.length,
    matchedBy: hit?.matchedBy ?? [],
    score: hit?.score ?? null,
    omittedBecause: result.omitted.find((o) => o.nodeId === card.id)?.reason ?? null,
  };
}
