import { and, arrayOverlaps, eq, inArray, sql } from "drizzle-orm";
import type { Transaction } from "~/db/types";
import { memoryChunks, memoryChunkTopics, memoryMessages, memorySummaries, memoryTreeSummaries } from "~/db/schema";
import { queryRows } from "~/db/raw";
import { enqueueJob } from "~/server/jobs/queue";
import { memorySubscriber } from "../events";
import { lockSessionSummaries } from "../store/summaries";
import type { ErasureReceipt } from "./schema";
import { deleteJobsNaming } from "./erase-jobs";

/** Erases messages and what was built on them (summaries, memory tree); counts go into `receipt`. */
export async function eraseEvidence(tx: Transaction, tenantId: string, messageIds: string[], receipt: ErasureReceipt) {
  // Each affected chain is held (in a fixed order) while its summaries go, so a summary being written
  // from these messages either lands first and is deleted here, or is refused (appendSummary counts them).
  const sessions = await tx
    .selectDistinct({ id: memoryMessages.sessionId })
    .from(memoryMessages)
    .where(and(eq(memoryMessages.tenantId, tenantId), inArray(memoryMessages.id, messageIds)));
  for (const id of sessions.map((row) => row.id).sort()) await lockSessionSummaries(tx, tenantId, id);
  // Summaries whose message range covers an erased message, and every later summary of that session
  // (each one was built from its parent, so they all carry the erased text forward).
  const affected = await queryRows<{ session_id: string; from_seq: number }>(
    tx,
    sql`select s.session_id, min(fm.seq) as from_seq
        from ${memorySummaries} s
        join ${memoryMessages} fm on fm.tenant_id = s.tenant_id and fm.id = s.from_message_id
        join ${memoryMessages} tm on tm.tenant_id = s.tenant_id and tm.id = s.to_message_id
        join ${memoryMessages} m on m.tenant_id = s.tenant_id and m.session_id = s.session_id and m.seq between fm.seq and tm.seq
        where s.tenant_id = ${tenantId} and m.id in (${sql.join(
          messageIds.map((id) => sql`${id}`),
          sql`, `,
        )})
        group by s.session_id`,
  );
  for (const { session_id, from_seq } of affected) {
    const removed = await queryRows<{ id: string }>(
      tx,
      sql`delete from ${memorySummaries} s using ${memoryMessages} fm
          where s.tenant_id = ${tenantId} and s.session_id = ${session_id}
            and fm.tenant_id = s.tenant_id and fm.id = s.from_message_id and fm.seq >= ${from_seq}
          returning s.id`,
    );
    receipt.summariesRemoved += removed.length;
  }
  await eraseMemoryTree(tx, tenantId, messageIds, receipt);
  const removedMessages = await tx
    .delete(memoryMessages)
    .where(and(eq(memoryMessages.tenantId, tenantId), inArray(memoryMessages.id, messageIds)))
    .returning({ id: memoryMessages.id });
  receipt.messagesRemoved = removedMessages.length;
  receipt.messageIds = removedMessages.map((m) => m.id);
  receipt.jobsRemoved += await deleteJobsNaming(tx, tenantId, "message", messageIds);
}

/**
 * The memory tree built on erased messages: their chunks, the L1 summaries sealing one of them, the
 * daily digests quoting such a summary, and the topic summaries drawn from them (rebuilt from the
 * topic's remaining chunks; a topic left with none is removed, its name came from the erased text).
 * The other chunks of a removed L1 summary are unsealed, and their session queued to seal again.
 */
async function eraseMemoryTree(tx: Transaction, tenantId: string, messageIds: string[], receipt: ErasureReceipt) {
  const inTenant = eq(memoryChunks.tenantId, tenantId);
  const topicRows = await tx
    .selectDistinct({ topicId: memoryChunkTopics.topicId })
    .from(memoryChunkTopics)
    .innerJoin(
      memoryChunks,
      and(eq(memoryChunks.tenantId, memoryChunkTopics.tenantId), eq(memoryChunks.id, memoryChunkTopics.chunkId)),
    )
    .where(and(inTenant, inArray(memoryChunks.messageId, messageIds)));
  const chunkRows = await tx
    .delete(memoryChunks)
    .where(and(inTenant, inArray(memoryChunks.messageId, messageIds)))
    .returning({ id: memoryChunks.id });
  receipt.chunksRemoved = chunkRows.length;
  if (chunkRows.length === 0) return;
  receipt.jobsRemoved += await deleteJobsNaming(
    tx,
    tenantId,
    "chunk",
    chunkRows.map((c) => c.id),
  );

  const sealing = await tx
    .delete(memoryTreeSummaries)
    .where(
      and(
        eq(memoryTreeSummaries.tenantId, tenantId),
        arrayOverlaps(
          memoryTreeSummaries.chunkIds,
          chunkRows.map((c) => c.id),
        ),
      ),
    )
    .returning({ id: memoryTreeSummaries.id, sessionId: memoryTreeSummaries.sessionId });
  if (sealing.length) {
    const sealingIds = sealing.map((s) => s.id);
    const digests = await tx
      .delete(memoryTreeSummaries)
      .where(
        and(eq(memoryTreeSummaries.tenantId, tenantId), arrayOverlaps(memoryTreeSummaries.childSummaryIds, sealingIds)),
      )
      .returning({ id: memoryTreeSummaries.id });
    receipt.treeSummariesRemoved = sealing.length + digests.length;
    await tx
      .update(memoryChunks)
      .set({ admission: "admitted", sealedIntoId: null })
      .where(and(inTenant, inArray(memoryChunks.sealedIntoId, sealingIds)));
    for (const sessionId of new Set(sealing.flatMap((s) => (s.sessionId ? [s.sessionId] : [])))) {
      await enqueueJob(tx, { tenantId, type: "seal", dedupeKey: `seal:${sessionId}`, payload: { sessionId } });
    }
  }
  for (const { topicId } of topicRows) {
    const outcome = await memorySubscriber("topicLostChunks")(tx, { tenantId, topicId });
    if (outcome === "removed") receipt.topicsRemoved++;
    else receipt.topicsRebuilt++;
  }
}
