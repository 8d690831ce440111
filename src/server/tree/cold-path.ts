import { and, asc, desc, eq, gt, inArray, lte, notExists, sql } from "drizzle-orm";
import type { Database, DbOrTx } from "~/db/types";
import {
  memoryChunks,
  memoryChunkTopics,
  memoryJobs,
  memoryMessages,
  memoryTopics,
  memoryTreeSummaries,
} from "~/db/schema";
import { newId } from "~/server/ids";
import { enqueueJob } from "~/server/jobs/queue";
import { segmentForSearch } from "~/server/text/segment";
import { countTokens } from "~/server/text/token-count";
import { parseJsonObject, type LlmClient } from "~/server/providers/llm";
import { extractEntities, topicForEntity } from "./entities";
import { HOTNESS } from "./hotness";
import { normalizeTopicName } from "./ingest";

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
const KEEP_WORDS = /记住|偏好|喜欢|预算|必须|重要|\bremember\b|\bprefer|\bbudget\b|\bmust\b|\bimportant\b/i;
const body = (canonical: string) => canonical.replace(/^\[role:[^\n]*\n\n/, "");
const visibleLength = (text: string) => [...text.replace(/\s+/g, "")].length;

/**
 * Deep scoring without a model (docs/memory-tree.md, `deep_score`): keep what names memory-worthy
 * things, drop fragments, keep the rest by fast score.
 */
export function deepScoreByRules(text: string, fastScoreValue: number): { admitted: boolean; score: number } {
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

/** Routes admitted chunks' entities to topics (auto-created), +0.05 hotness per mention; queues sealing when enough piled up. */
export async function routeTopicsForSession(db: Database, params: { tenantId: string; sessionId: string }) {
  const { tenantId, sessionId } = params;
  const chunks = await db
    .select({ id: memoryChunks.id, content: memoryChunks.content })
    .from(memoryChunks)
    .where(
      and(
        eq(memoryChunks.tenantId, tenantId),
        eq(memoryChunks.sessionId, sessionId),
        eq(memoryChunks.admission, "admitted"),
        // NOT EXISTS, not NOT IN: one NULL in the list would make NOT IN match nothing.
        notExists(
          db
            .select({ one: sql`1` })
            .from(memoryChunkTopics)
            .where(and(eq(memoryChunkTopics.tenantId, tenantId), eq(memoryChunkTopics.chunkId, memoryChunks.id))),
        ),
      ),
    )
    .limit(SESSION_BATCH.topicChunks);
  let links = 0;
  for (const chunk of chunks) {
    const topics = new Map<string, { name: string; type: "project" | "person" | "place" | "tool" | "entity" }>();
    for (const entity of extractEntities(body(chunk.content))) {
      const topic = topicForEntity(entity);
      if (topic) topics.set(normalizeTopicName(topic.name), topic);
    }
    for (const [normalized, topic] of topics) {
      // A mention counts once per chunk: only a link this run made heats the topic (a twin run of the
      // job, or a retry after a crash, found the link made and counted the mention again).
      const linked = await db.transaction(async (tx) => {
        const [created] = await tx
          .insert(memoryTopics)
          .values({
            tenantId,
            id: newId("top"),
            name: topic.name,
            normalizedName: normalized,
            topicType: topic.type,
            hotness: HOTNESS.perMention,
            mentionCount: 1,
            status: "warm",
            lastMentionedAt: new Date(),
          })
          .onConflictDoNothing({ target: [memoryTopics.tenantId, memoryTopics.normalizedName] })
          .returning({ id: memoryTopics.id });
        const named = and(eq(memoryTopics.tenantId, tenantId), eq(memoryTopics.normalizedName, normalized));
        const topicId =
          created?.id ?? (await tx.select({ id: memoryTopics.id }).from(memoryTopics).where(named))[0]!.id;
        const [link] = await tx
          .insert(memoryChunkTopics)
          .values({ tenantId, chunkId: chunk.id, topicId })
          .onConflictDoNothing()
          .returning({ topicId: memoryChunkTopics.topicId });
        if (link && !created) {
          await tx
            .update(memoryTopics)
            .set({
              hotness: sql`least(${HOTNESS.max}, ${memoryTopics.hotness} + ${HOTNESS.perMention})`,
              mentionCount: sql`${memoryTopics.mentionCount} + 1`,
              status: sql`case when least(${HOTNESS.max}, ${memoryTopics.hotness} + ${HOTNESS.perMention}) >= ${HOTNESS.active} then 'active' else 'warm' end`,
              lastMentionedAt: new Date(),
              updatedAt: new Date(),
            })
            .where(named);
        }
        return link !== undefined;
      });
      if (linked) links++;
    }
  }
  const [{ n } = { n: 0 }] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(memoryChunks)
    .where(
      and(
        eq(memoryChunks.tenantId, tenantId),
        eq(memoryChunks.sessionId, sessionId),
        eq(memoryChunks.admission, "admitted"),
      ),
    );
  if (n >= SEAL_THRESHOLD)
    await enqueueJob(db, { tenantId, type: "seal", dedupeKey: `seal:${sessionId}`, payload: { sessionId } });
  if (chunks.length === SESSION_BATCH.topicChunks) await continueLater(db, { tenantId, type: "entities", sessionId });
  return { chunks: chunks.length, links };
}

/** Extractive summary: the highest-scored sentences, in their original order, within a token budget. */
export function extractiveSummary(texts: { text: string; score: number }[], maxTokens = 300): string {
  const sentences = texts.flatMap(({ text, score }, i) =>
    text
      .split(/(?<=[。！？!?.])\s*|\n+/)
      .map((s) => s.trim())
      .filter((s) => visibleLength(s) >= 4)
      .map((s, j) => ({ s, score, order: i * 1000 + j })),
  );
  const chosen: typeof sentences = [];
  let tokens = 0;
  for (const item of [...sentences].sort((a, b) => b.score - a.score)) {
    const cost = countTokens(item.s);
    if (tokens + cost > maxTokens) continue;
    tokens += cost;
    chosen.push(item);
  }
  return chosen
    .sort((a, b) => a.order - b.order)
    .map((c) => c.s)
    .join(" ");
}

/**
 * A topic's rolling summary, rebuilt from its latest chunks. With no chunk left (all erased) the topic
 * itself goes: its name came from their text. Returns what happened.
 */
export async function rebuildTopicSummary(
  tx: DbOrTx,
  params: { tenantId: string; topicId: string },
): Promise<"rebuilt" | "removed"> {
  const { tenantId, topicId } = params;
  const topicChunks = await tx
    .select({ content: memoryChunks.content, score: memoryChunks.fastScore })
    .from(memoryChunkTopics)
    .innerJoin(
      memoryChunks,
      and(eq(memoryChunks.tenantId, memoryChunkTopics.tenantId), eq(memoryChunks.id, memoryChunkTopics.chunkId)),
    )
    .where(and(eq(memoryChunkTopics.tenantId, tenantId), eq(memoryChunkTopics.topicId, topicId)))
    .orderBy(desc(memoryChunks.occurredAt))
    .limit(20);
  const topic = and(eq(memoryTopics.tenantId, tenantId), eq(memoryTopics.id, topicId));
  if (topicChunks.length === 0) {
    await tx.delete(memoryTopics).where(topic);
    return "removed";
  }
  const summary = extractiveSummary(
    topicChunks.map((c) => ({ text: body(c.content), score: c.score })),
    150,
  );
  await tx.update(memoryTopics).set({ summary, updatedAt: new Date() }).where(topic);
  return "rebuilt";
}

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

/** The daily global digest (L2): the day's L1 summaries and the hottest topics, for one tenant. */
export async function writeDailyDigest(db: Database, params: { tenantId: string; day: string }) {
  const start = new Date(`${params.day}T00:00:00Z`);
  const end = new Date(start.getTime() + 86_400_000);
  const l1 = await db
    .select()
    .from(memoryTreeSummaries)
    .where(
      and(
        eq(memoryTreeSummaries.tenantId, params.tenantId),
        eq(memoryTreeSummaries.level, 1),
        gt(memoryTreeSummaries.createdAt, start),
        lte(memoryTreeSummaries.createdAt, end),
      ),
    )
    .orderBy(asc(memoryTreeSummaries.createdAt));
  const hot = await db
    .select()
    .from(memoryTopics)
    .where(eq(memoryTopics.tenantId, params.tenantId))
    .orderBy(desc(memoryTopics.hotness))
    .limit(5);
  if (l1.length === 0 && hot.length === 0) return { written: false };
  const content = [
    `Digest ${params.day}: ${l1.length} sealed summar${l1.length === 1 ? "y" : "ies"}.`,
    ...l1.map((s) => `- ${s.content.slice(0, 300)}`),
    hot.length ? `Hot topics: ${hot.map((t) => `${t.name} (${t.hotness.toFixed(2)})`).join(", ")}` : "",
  ]
    .filter(Boolean)
    .join("\n");
  await db
    .insert(memoryTreeSummaries)
    .values({
      tenantId: params.tenantId,
      id: `l2_${params.day}`,
      level: 2,
      childSummaryIds: l1.map((s) => s.id),
      content,
      tokenCount: countTokens(content),
      periodStart: start,
      periodEnd: end,
      searchText: segmentForSearch(content),
    })
    .onConflictDoUpdate({
      target: [memoryTreeSummaries.tenantId, memoryTreeSummaries.id],
      set: { content, childSummaryIds: l1.map((s) => s.id), tokenCount: countTokens(content) },
    });
  return { written: true, summaries: l1.length };
}

/** One day's decay (×0.95) for every topic of a tenant, with the active / warm / archived status it implies. */
export async function decayTopicHotness(db: Database, params: { tenantId: string }) {
  const rows = await db
    .update(memoryTopics)
    .set({
      hotness: sql`${memoryTopics.hotness} * ${HOTNESS.dailyDecay}`,
      status: sql`case when ${memoryTopics.hotness} * ${HOTNESS.dailyDecay} >= ${HOTNESS.active} then 'active' when ${memoryTopics.hotness} * ${HOTNESS.dailyDecay} <= ${HOTNESS.archive} then 'archived' else 'warm' end`,
      updatedAt: new Date(),
    })
    .where(eq(memoryTopics.tenantId, params.tenantId))
    .returning({ id: memoryTopics.id });
  return { topics: rows.length };
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
