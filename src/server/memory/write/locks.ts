import { and, eq, inArray } from "drizzle-orm";
import { startNow } from "~/db/start-now";
import type { Transaction } from "~/db/types";
import { memoryMessages } from "~/db/schema";
import { formatScope } from "../scope";
import { OperationFailure } from "./draft";
import type { Prepared } from "./prepare";
import type { WriteOperation } from "./schema";
import { scopedSlotLock, shadowSlotLock, takeSlotLocks } from "./shadow-lock";

const citedMessages = (op: WriteOperation): readonly string[] => ("node" in op && op.node?.sourceMessageIds) || [];

/**
 * The messages the batch cites, share-locked until it commits: a conversation erased meanwhile (the
 * background extractor read it a moment before) must not come back as a card citing it. Returns the
 * first operation citing a message that is gone, with its failure; an erasure that starts later
 * waits for this commit and then finds the cards.
 */
export async function lockEvidence(
  tx: Transaction,
  tenantId: string,
  prepared: readonly Prepared[],
): Promise<{ index: number; failure: OperationFailure } | null> {
  const cited = [...new Set(prepared.flatMap((item) => citedMessages(item.op)))];
  if (cited.length === 0) return null;
  const present = await tx
    .select({ id: memoryMessages.id })
    .from(memoryMessages)
    .where(and(eq(memoryMessages.tenantId, tenantId), inArray(memoryMessages.id, cited)))
    .for("key share");
  const found = new Set(present.map((row) => row.id));
  const index = prepared.findIndex((item) => citedMessages(item.op).some((id) => !found.has(id)));
  if (index < 0) return null;
  const missing = citedMessages(prepared[index]!.op).filter((id) => !found.has(id));
  return {
    index,
    failure: new OperationFailure(
      "rejected",
      "source_erased",
      `sourceMessageIds ${missing.join(", ")} no longer exist (the conversation was erased); nothing was written. Leave them out, or do not save what was erased.`,
    ),
  };
}

/**
 * Serialises writers of the same slot (transaction-scoped advisory locks, taken in sorted order so
 * two batches never wait on each other in a cycle): racing creates of a new slot queue up instead of
 * colliding on the unique index.
 */
export async function lockSlots(tx: Transaction, tenantId: string, prepared: Prepared[]) {
  const drafts = prepared.flatMap((p) => (p.draft ? [p.draft] : []));
  // Each slot in its scope, and across scopes: the shadow-mark trigger (0013) takes the latter as it
  // inserts, in the batch's order, so a user-scope batch writing k1, k2 and a session-scope batch
  // writing k2, k1 each waited for the other (a second per deadlock; under load past the retries).
  // Taken here first, all in one order, the trigger finds it held.
  const statement = takeSlotLocks(
    drafts.flatMap((d) => [
      scopedSlotLock(tenantId, formatScope(d.scope), d.def.domain, d.key),
      shadowSlotLock(tenantId, d.def.domain, d.key),
    ]),
  );
  // Sent at once (startNow), before the slot reads issued after this call: Postgres runs them in order.
  if (statement) await startNow(tx.execute(statement));
}
