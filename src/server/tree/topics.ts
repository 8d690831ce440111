import { and, desc, eq, notExists, sql } from "drizzle-orm";
import type { Database, DbOrTx } from "~/db/types";
import { memoryChunks, memoryChunkTopics, memoryTopics } from "~/db/schema";
import { newId } from "~/server/ids";
import { enqueueJob } from "~/server/jobs/queue";
import { countTokens } from "~/server/text/token-count";
import { extractEntities, topicForEntity } from "./entities";
import { HOTNESS } from "./hotness";
import { normalizeTopicName } from "./ingest";

import { body, visibleLength, SEAL_THRESHOLD, SESSION_BATCH, continueLater } from "./cold-path";

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
