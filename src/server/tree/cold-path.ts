import { and, asc, desc, eq, gt, sql } from "drizzle-orm";
import type { Database, DbOrTx } from "~/db/types";
import { memoryJobs, memoryMessages } from "~/db/schema";
import { enqueueJob } from "~/server/jobs/queue";

/** A chunk's text without its `[role: …]` header line. */
export const body = (canonical: string) => canonical.replace(/^\[role:[^\n]*\n\n/, "");
/** Characters a reader sees: whitespace does not count. */
export const visibleLength = (text: string) => [...text.replace(/\s+/g, "")].length;

export const SEAL_THRESHOLD = 10;
/** What one run of a session's cold-path job takes on; a full batch queues the next run (continueLater). */
export const SESSION_BATCH = { chunks: 200, topicChunks: 500, messages: 200 } as const;

/**
 * Queues the next run of a session's job when this one took a full batch: the dedupe key merges every
 * enqueue while one is queued, so without it a backfill of 1,000 messages stopped after the first 200
 * until new traffic came. A second later, so this run has finished (its result is the next one's
 * watermark) before the next is leased.
 */
export async function continueLater(
  db: DbOrTx,
  params: { tenantId: string; type: "deep_score" | "entities" | "seal" | "extract" | "summarize"; sessionId: string },
) {
  await enqueueJob(db, {
    tenantId: params.tenantId,
    type: params.type,
    dedupeKey: `${params.type}:${params.sessionId}`,
    payload: { sessionId: params.sessionId },
    runAt: new Date(Date.now() + 1000),
  });
}

/** Messages of a session after `afterSeq`, oldest first (for extraction and summaries). */
export async function messagesAfter(
  db: Database,
  params: { tenantId: string; sessionId: string; afterSeq: number; limit?: number },
) {
  return db
    .select()
    .from(memoryMessages)
    .where(
      and(
        eq(memoryMessages.tenantId, params.tenantId),
        eq(memoryMessages.sessionId, params.sessionId),
        gt(memoryMessages.seq, params.afterSeq),
      ),
    )
    .orderBy(asc(memoryMessages.seq))
    .limit(params.limit ?? 500);
}

/** Where the last successful job of this type stopped in a session (its result's `lastSeq`). */
export async function lastProcessedSeq(
  db: Database,
  params: { tenantId: string; sessionId: string; type: "extract" | "summarize" },
): Promise<number> {
  const [row] = await db
    .select({ result: memoryJobs.result })
    .from(memoryJobs)
    .where(
      and(
        eq(memoryJobs.tenantId, params.tenantId),
        eq(memoryJobs.type, params.type),
        eq(memoryJobs.status, "succeeded"),
        sql`${memoryJobs.payload}->>'sessionId' = ${params.sessionId}`,
        sql`(${memoryJobs.result} ->> 'lastSeq') is not null`,
      ),
    )
    .orderBy(desc(memoryJobs.finishedAt))
    .limit(1);
  const seq = (row?.result as { lastSeq?: unknown } | null)?.lastSeq;
  return typeof seq === "number" ? seq : 0;
}
