import { and, asc, eq } from "drizzle-orm";
import { body, visibleLength, SESSION_BATCH, continueLater } from "./cold-path";
import type { Database } from "~/db/types";
import { memoryChunks } from "~/db/schema";
import { enqueueJob } from "~/server/jobs/queue";
import { parseJsonObject, type LlmClient } from "~/server/providers/llm";

const KEEP_WORDS = /记住|偏好|喜欢|预算|必须|重要|\bremember\b|\bprefer|\bbudget\b|\bmust\b|\bimportant\b/i;

/**
 * Deep scoring without a model (docs/memory-tree.md, `deep_score`): keep what names memory-worthy
 * things, drop fragments, keep the rest by fast score.
 */
function deepScoreByRules(text: string, fastScoreValue: number): { admitted: boolean; score: number } {
  if (KEEP_WORDS.test(text)) return { admitted: true, score: Math.max(fastScoreValue, 0.5) };
  if (visibleLength(text) < 15) return { admitted: false, score: Math.min(fastScoreValue, 0.1) };
  return { admitted: fastScoreValue >= 0.15, score: fastScoreValue };
}

/** Deep-scores a session's pending chunks (LLM when configured, rules otherwise), then queues entity routing. */
export async function deepScoreSession(
  db: Database,
  params: { tenantId: string; sessionId: string; llm: LlmClient | null },
) {
  const pending = await db
    .select()
    .from(memoryChunks)
    .where(
      and(
        eq(memoryChunks.tenantId, params.tenantId),
        eq(memoryChunks.sessionId, params.sessionId),
        eq(memoryChunks.admission, "pending"),
      ),
    )
    .orderBy(asc(memoryChunks.seq))
    .limit(SESSION_BATCH.chunks);
  let admitted = 0;
  for (const chunk of pending) {
    let verdict = deepScoreByRules(body(chunk.content), chunk.fastScore);
    if (params.llm) {
      try {
        const answer = parseJsonObject(
          await params.llm.complete(
            [
              {
                role: "system",
                content:
                  'You decide whether a chat message is worth remembering long-term for an assistant. Answer JSON {"admitted": boolean, "score": number between 0 and 1}.',
              },
              { role: "user", content: body(chunk.content).slice(0, 4000) },
            ],
            { json: true, maxTokens: 60 },
          ),
        ) as { admitted?: unknown; score?: unknown };
        if (typeof answer.admitted === "boolean" && typeof answer.score === "number")
          verdict = { admitted: answer.admitted, score: Math.min(1, Math.max(0, answer.score)) };
      } catch {
        // The rules' verdict stands when the model fails; the job does not fail for it.
      }
    }
    if (verdict.admitted) admitted++;
    await db
      .update(memoryChunks)
      .set({ deepScore: verdict.score, admission: verdict.admitted ? "admitted" : "rejected" })
      .where(
        and(
          eq(memoryChunks.tenantId, params.tenantId),
          eq(memoryChunks.id, chunk.id),
          eq(memoryChunks.admission, "pending"),
        ),
      );
  }
  if (admitted > 0)
    await enqueueJob(db, {
      tenantId: params.tenantId,
      type: "entities",
      dedupeKey: `entities:${params.sessionId}`,
      payload: { sessionId: params.sessionId },
    });
  if (pending.length === SESSION_BATCH.chunks)
    await continueLater(db, { tenantId: params.tenantId, type: "deep_score", sessionId: params.sessionId });
  return { scored: pending.length, admitted };
}
