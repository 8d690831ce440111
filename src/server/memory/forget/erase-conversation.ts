import { eraseScopeCards } from "./erase";
import { and, arrayOverlaps, eq, sql } from "drizzle-orm";
import type { Transaction } from "~/db/types";
import { memoryJobs, memoryMessages, memoryNodes, memorySummaries } from "~/db/schema";
import { lockSessionSummaries } from "../store/summaries";
import type { ErasureReceipt } from "./schema";
import { eraseEvidence } from "./erase-evidence";

/**
 * The ids of a session's messages, oldest first, locked: a card the background extractor writes from
 * them meanwhile (memoryWrite share-locks what it cites) either commits first, and is then found and
 * erased with the session, or waits and finds its evidence gone.
 */
async function lockSessionMessageIds(tx: Transaction, tenantId: string, sessionId: string): Promise<string[]> {
  const rows = await tx
    .select({ id: memoryMessages.id })
    .from(memoryMessages)
    .where(and(eq(memoryMessages.tenantId, tenantId), eq(memoryMessages.sessionId, sessionId)))
    .orderBy(memoryMessages.seq)
    .for("update");
  return rows.map((m) => m.id);
}

/** Current cards (any scope) that cite one of these messages: they outlive an erased conversation. */
async function activeCardsCiting(tx: Transaction, tenantId: string, messageIds: string[]): Promise<number> {
  if (messageIds.length === 0) return 0;
  const [row] = await tx
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(memoryNodes)
    .where(
      and(
        eq(memoryNodes.tenantId, tenantId),
        eq(memoryNodes.status, "active"),
        arrayOverlaps(memoryNodes.sourceMessageIds, messageIds),
      ),
    );
  return row?.n ?? 0;
}

export type ConversationErasure = ErasureReceipt & {
  /** Current cards in other scopes (a profile, a workspace) that cited the conversation: they stay, their evidence shows as erased. */
  cardsCitingKept: number;
};

/**
 * A whole conversation, for good: every card of its session scope, then its messages and what was
 * built on them (eraseEvidence), any summary of it left, and its queued jobs. Null, with nothing
 * erased, when the session holds neither messages nor cards. Runs inside the caller's transaction.
 */
export async function eraseConversation(
  tx: Transaction,
  params: { tenantId: string; sessionId: string; now: Date },
): Promise<ConversationErasure | null> {
  const { tenantId, sessionId } = params;
  // Messages and the summary chain first: a summarizer or extractor that read them before must find them gone.
  await lockSessionSummaries(tx, tenantId, sessionId);
  const messageIds = await lockSessionMessageIds(tx, tenantId, sessionId);
  const cards = await eraseScopeCards(tx, { tenantId, scope: { type: "session", id: sessionId }, now: params.now });
  if (messageIds.length === 0 && cards.nodeIds.length === 0) return null;
  const receipt: ConversationErasure = { ...cards, cardsCitingKept: await activeCardsCiting(tx, tenantId, messageIds) };
  if (messageIds.length) await eraseEvidence(tx, tenantId, messageIds, receipt);
  // A summary whose messages were already gone is not reached through them.
  receipt.summariesRemoved += (
    await tx
      .delete(memorySummaries)
      .where(and(eq(memorySummaries.tenantId, tenantId), eq(memorySummaries.sessionId, sessionId)))
      .returning({ id: memorySummaries.id })
  ).length;
  receipt.jobsRemoved += (
    await tx
      .delete(memoryJobs)
      .where(and(eq(memoryJobs.tenantId, tenantId), sql`${memoryJobs.payload}->>'sessionId' = ${sessionId}`))
      .returning({ id: memoryJobs.id })
  ).length;
  return receipt;
}
