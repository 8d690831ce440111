import { and, eq, sql } from "drizzle-orm";
import type { Database, DbOrTx } from "~/db/types";
import { memoryMessages, memoryNodes } from "~/db/schema";
import { recordAudit } from "../store/audit";
import type { MemoryCallContext } from "../call-context";
import { eraseConversation, type ConversationErasure } from "./erase-conversation";
import { receiptCounts } from "./receipts";
import { lockSessionMessages } from "../evidence/messages";
import { retryOnContention } from "~/db/pg-errors";
import { scopeAllowed, type ScopePattern } from "../scope";

export type SessionErasureReceipt = ConversationErasure & { sessionId: string };

export type SessionErasureResult = { done: boolean; reason?: string; message: string; receipt?: SessionErasureReceipt };

/** Aggregate over a session's messages: every person they were captured for (null when none is known). */
export const sessionOwnersColumn = () =>
  sql<
    string[] | null
  >`array_agg(distinct ${memoryMessages.userScopeId}) filter (where ${memoryMessages.userScopeId} is not null)`;

/** Whose conversation it is (every person its messages were captured for), and how many messages it holds. */
async function sessionOwners(
  db: DbOrTx,
  params: { tenantId: string; sessionId: string },
): Promise<{ owners: string[]; messages: number }> {
  const [row] = await db
    .select({ owners: sessionOwnersColumn(), messages: sql<number>`count(*)`.mapWith(Number) })
    .from(memoryMessages)
    .where(and(eq(memoryMessages.tenantId, params.tenantId), eq(memoryMessages.sessionId, params.sessionId)));
  return { owners: row?.owners ?? [], messages: row?.messages ?? 0 };
}

/**
 * Erasing a conversation takes write access to it and to the profile of everyone it was captured for:
 * a member may erase their own conversations, an admin anyone's (a member's default `session:*` grant
 * alone would let them erase colleagues' conversations; with one owner picked by `max`, a message of
 * their own added to a colleague's conversation let them erase it). No known owner: every profile.
 */
export const canEraseSession = (writeScopes: readonly ScopePattern[], sessionId: string, owners: readonly string[]) =>
  scopeAllowed({ type: "session", id: sessionId }, writeScopes) &&
  (owners.length ? owners : ["*"]).every((owner) => scopeAllowed({ type: "user", id: owner }, writeScopes));

/**
 * Erases a whole conversation for good, in one transaction: its messages, its summary chain, the memory
 * tree built on them (chunks, L1 summaries, digests; topic summaries rebuilt), its queued jobs, and every
 * card of its session scope with their revisions and embeddings (their audit rows scrubbed of content).
 * Cards in other scopes that cited it stay (counted in the receipt). Audited as a hard delete.
 */
export async function eraseSession(
  db: Database,
  ctx: MemoryCallContext,
  input: { sessionId: string; reason: string },
): Promise<SessionErasureResult> {
  const { tenantId } = ctx;
  const { sessionId } = input;
  const missing: SessionErasureResult = {
    done: false,
    reason: "not_found",
    message: `No session ${sessionId} you can read. Nothing was erased.`,
  };
  if (!scopeAllowed({ type: "session", id: sessionId }, ctx.readScopes)) return missing;
  return retryOnContention(() =>
    db.transaction(async (tx): Promise<SessionErasureResult> => {
      // Appends to the session wait until this commits, so the owners checked here are the owners of
      // every message erased (checked before the transaction, a colleague's message appended in
      // between was erased unchecked).
      await lockSessionMessages(tx, tenantId, sessionId);
      const [{ owners, messages }, [card]] = await Promise.all([
        sessionOwners(tx, { tenantId, sessionId }),
        tx
          .select({ id: memoryNodes.id })
          .from(memoryNodes)
          .where(
            and(
              eq(memoryNodes.tenantId, tenantId),
              eq(memoryNodes.scopeType, "session"),
              eq(memoryNodes.scopeId, sessionId),
            ),
          )
          .limit(1),
      ]);
      if (messages === 0 && !card) return missing;
      if (!canEraseSession(ctx.writeScopes, sessionId, owners)) {
        return {
          done: false,
          reason: "not_allowed",
          message: `Erasing session ${sessionId} needs write access to it and to its owners' profiles (${owners.length ? owners.map((o) => `user:${o}`).join(", ") : "every profile"}): your own conversations, or an admin. Nothing was erased.`,
        };
      }
      const erased = await eraseConversation(tx, { tenantId, sessionId, now: new Date() });
      if (!erased) return missing;
      const receipt: SessionErasureReceipt = { ...erased, sessionId };
      await recordAudit(tx, ctx, {
        eventType: "hard_delete",
        scope: { type: "session", id: sessionId },
        reason: input.reason,
        metadata: { erased: "session", receipt: receiptCounts(receipt) },
      });
      return {
        done: true,
        receipt,
        message: `Erased session ${sessionId}: ${receipt.messagesRemoved} messages, ${receipt.revisionsRemoved} card revisions, ${receipt.summariesRemoved} summaries. This is done.`,
      };
    }),
  );
}
