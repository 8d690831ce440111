import { createHash } from "node:crypto";
import { and, eq, inArray } from "drizzle-orm";
import type { DbOrTx } from "~/db/types";
import type { CapturedMessage } from "~/server/memory";
import { memoryChunks, memoryTopics } from "~/db/schema";
import { enqueueJob } from "~/server/jobs/queue";
import { segmentForSearch } from "~/server/text/segment";
import { countTokens } from "~/server/text/token-count";
import { canonicalizeMessage, chunkId, splitIntoChunks } from "./chunk";
import { extractEntities, topicForEntity } from "./entities";
import { fastScore } from "./fast-score";

export type { CapturedMessage };

export const normalizeTopicName = (name: string) => name.normalize("NFKC").trim().toLowerCase();

/**
 * Extraction waits this long after a turn's messages arrive, so that the agent's own writes for the
 * turn (which cite them) land first and the extractor does not propose the same facts again.
 */
export const EXTRACT_DELAY_MS = 30_000;

/**
 * The hot path (docs/memory-tree.md), no LLM: canonicalize → chunk (deterministic ids, duplicates ignored) → fast score
 * (reasons stored) → persist with search text, then queue the cold path for the session. Runs in the
 * caller's transaction (the one that stored the messages), so evidence and chunks appear together.
 */
export async function ingestCapturedMessages(
  tx: DbOrTx,
  params: { tenantId: string; sessionId: string; userScopeId?: string | null; messages: CapturedMessage[] },
): Promise<{ chunks: number; inserted: number }> {
  const { tenantId, sessionId } = params;
  if (params.messages.length === 0) return { chunks: 0, inserted: 0 };

  const pieces = params.messages.flatMap((message) =>
    splitIntoChunks(message.content).map((text, index) => ({ message, text, index, entities: extractEntities(text) })),
  );
  // "First mention": an entity whose topic this tenant has never seen.
  const topicNames = [
    ...new Set(
      pieces.flatMap((p) =>
        p.entities
          .map(topicForEntity)
          .filter((t) => t !== null)
          .map((t) => normalizeTopicName(t.name)),
      ),
    ),
  ];
  const known = topicNames.length
    ? new Set(
        (
          await tx
            .select({ name: memoryTopics.normalizedName })
            .from(memoryTopics)
            .where(and(eq(memoryTopics.tenantId, tenantId), inArray(memoryTopics.normalizedName, topicNames)))
        ).map((r) => r.name),
      )
    : new Set<string>();

  const rows = pieces.map(({ message, text, index, entities }) => {
    const firstMention = entities.some((e) => {
      const topic = topicForEntity(e);
      return topic !== null && !known.has(normalizeTopicName(topic.name));
    });
    const { score, reasons } = fastScore(text, { firstMention });
    const source = message.source ?? "chat";
    return {
      tenantId,
      id: chunkId({ sessionId, role: message.role, index, messageId: message.id, content: text }),
      sessionId,
      userScopeId: params.userScopeId ?? null,
      messageId: message.id,
      source,
      role: message.role,
      seq: message.seq ?? 0,
      content: canonicalizeMessage({
        role: message.role,
        source,
        createdAt: message.createdAt,
        sessionId,
        content: text,
      }),
      contentHash: createHash("sha256").update(text).digest("hex"),
      tokenCount: countTokens(text),
      fastScore: score,
      scoreReasons: reasons,
      entities: entities.map((e) => `${e.type}:${e.value}`),
      searchText: segmentForSearch(text),
      occurredAt: message.createdAt,
    };
  });
  const inserted = await tx.insert(memoryChunks).values(rows).onConflictDoNothing().returning({ id: memoryChunks.id });
  if (inserted.length > 0) {
    // One cold-path job per session at a time (dedupe key); it picks up every pending chunk.
    await enqueueJob(tx, {
      tenantId,
      type: "deep_score",
      dedupeKey: `deep_score:${sessionId}`,
      payload: { sessionId },
    });
    await enqueueJob(tx, {
      tenantId,
      type: "extract",
      dedupeKey: `extract:${sessionId}`,
      payload: { sessionId },
      runAt: new Date(Date.now() + EXTRACT_DELAY_MS),
    });
    await enqueueJob(tx, { tenantId, type: "summarize", dedupeKey: `summarize:${sessionId}`, payload: { sessionId } });
  }
  return { chunks: rows.length, inserted: inserted.length };
}
