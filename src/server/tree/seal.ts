import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { Database } from "~/db/types";
import { memoryChunks, memoryChunkTopics, memoryTreeSummaries } from "~/db/schema";
import { newId } from "~/server/ids";
import { segmentForSearch } from "~/server/text/segment";
import { countTokens } from "~/server/text/token-count";
import { type LlmClient } from "~/server/providers/llm";

import { body, SEAL_THRESHOLD, continueLater } from "./cold-path";
import { extractiveSummary, rebuildTopicSummary } from "./topics";

/**
 * The sealer (docs/memory-tree.md): the oldest SEAL_THRESHOLD admitted chunks of a session become one
 * L1 summary; they are marked sealed.
 */
export async function sealSession(
  db: Database,
  params: { tenantId: string; sessionId: string; llm: LlmClient | null },
) {
  const { tenantId, sessionId } = params;
  const chunks = await db
    .select()
    .from(memoryChunks)
    .where(
      and(
        eq(memoryChunks.tenantId, tenantId),
        eq(memoryChunks.sessionId, sessionId),
        eq(memoryChunks.admission, "admitted"),
      ),
    )
    .orderBy(asc(memoryChunks.occurredAt), asc(memoryChunks.seq))
    .limit(SEAL_THRESHOLD);
  if (chunks.length < SEAL_THRESHOLD) return { sealed: 0 };
  const texts = chunks.map((c) => ({ text: body(c.content), score: c.deepScore ?? c.fastScore }));
  let content = extractiveSummary(texts);
  let generator = "rules";
  if (params.llm) {
    try {
      content = (
        await params.llm.complete([
          {
            role: "system",
            content:
              "Summarize these chat excerpts in at most 120 words, keeping names, numbers, dates, decisions and preferences. Same language as the excerpts.",
          },
          {
            role: "user",
            content: texts
              .map((t) => t.text)
              .join("\n---\n")
              .slice(0, 12_000),
          },
        ])
      ).trim();
      generator = params.llm.model;
    } catch {
      // Keep the extractive summary.
    }
  }
  const id = newId("l1");
  const won = await db
    .transaction(async (tx) => {
      // The chunks still admitted, locked: a twin run of this job (a lease taken over while the model
      // answered) that sealed them first wins, and this run writes nothing (two L1s over one set before).
      const still = await tx
        .update(memoryChunks)
        .set({ admission: "sealed", sealedIntoId: id })
        .where(
          and(
            eq(memoryChunks.tenantId, tenantId),
            inArray(
              memoryChunks.id,
              chunks.map((c) => c.id),
            ),
            eq(memoryChunks.admission, "admitted"),
          ),
        )
        .returning({ id: memoryChunks.id });
      if (still.length < chunks.length) throw new SealRaceLost();
      await tx.insert(memoryTreeSummaries).values({
        tenantId,
        id,
        level: 1,
        sessionId,
        chunkIds: chunks.map((c) => c.id),
        content,
        tokenCount: countTokens(content),
        generator,
        periodStart: chunks[0]!.occurredAt,
        periodEnd: chunks.at(-1)!.occurredAt,
        searchText: segmentForSearch(content),
      });
      // Topics touched by these chunks get a fresh summary from their own chunks.
      const topicRows = await tx
        .selectDistinct({ topicId: memoryChunkTopics.topicId })
        .from(memoryChunkTopics)
        .where(
          and(
            eq(memoryChunkTopics.tenantId, tenantId),
            sql`${memoryChunkTopics.chunkId} in (${sql.join(
              chunks.map((c) => sql`${c.id}`),
              sql`, `,
            )})`,
          ),
        );
      for (const { topicId } of topicRows) await rebuildTopicSummary(tx, { tenantId, topicId });
      return true;
    })
    .catch((error: unknown) => {
      if (error instanceof SealRaceLost) return false;
      throw error;
    });
  if (!won) return { sealed: 0, raced: true };
  // More may be waiting.
  await continueLater(db, { tenantId, type: "seal", sessionId });
  return { sealed: chunks.length, summaryId: id };
}

/** Rolls a seal back whose chunks a twin run sealed first. */
class SealRaceLost extends Error {}
