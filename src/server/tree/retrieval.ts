import { and, asc, count, desc, eq, gte, sql, type SQL } from "drizzle-orm";
import type { DbOrTx } from "~/db/types";
import {
  memoryChunks,
  memoryChunkTopics,
  memoryJobs,
  memoryMessages,
  memoryNodes,
  memoryTopics,
  memoryTreeSummaries,
} from "~/db/schema";
import { queryRows } from "~/db/raw";
import { notFound } from "~/server/errors";
import { buildTsQueryText, segmentQuery } from "~/server/text/segment";

/** The memory tree's retrieval API (docs/memory-tree.md), tenant-scoped. Session filters narrow further. */
export type ChunkHit = {
  id: string;
  sessionId: string;
  role: string;
  content: string;
  score: number;
  fastScore: number;
  admission: string;
  occurredAt: Date;
  topics: string[];
  rank: number;
};

const body = (canonical: string) => canonical.replace(/^\[role:[^\n]*\n\n/, "");

/**
 * Full-text over segmented chunk text (Chinese works: the text was word-segmented before indexing —
 * no LIKE scan is needed), with a substring fallback for what segmentation split apart;
 * ranked by text rank, then score and topic hotness.
 */
export async function searchChunks(
  db: DbOrTx,
  params: {
    tenantId: string;
    query: string;
    limit?: number;
    minScore?: number;
    sessionIds?: readonly string[];
    days?: number;
    topicId?: string;
  },
): Promise<ChunkHit[]> {
  const limit = Math.min(params.limit ?? 10, 100);
  const tsq = buildTsQueryText(segmentQuery(params.query), { mode: "or" });
  const filters: SQL[] = [
    sql`c.tenant_id = ${params.tenantId}`,
    sql`c.admission in ('admitted', 'sealed', 'pending')`,
    sql`greatest(c.fast_score, coalesce(c.deep_score, 0)) >= ${params.minScore ?? 0}`,
  ];
  if (params.sessionIds)
    filters.push(
      params.sessionIds.length
        ? sql`c.session_id in (${sql.join(
            params.sessionIds.map((s) => sql`${s}`),
            sql`, `,
          )})`
        : sql`false`,
    );
  if (params.days) filters.push(sql`c.occurred_at >= now() - make_interval(days => ${params.days})`);
  if (params.topicId)
    filters.push(
      sql`exists (select 1 from memory_chunk_topics x where x.tenant_id = c.tenant_id and x.chunk_id = c.id and x.topic_id = ${params.topicId})`,
    );
  const pattern = `%${params.query.trim().replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
  const match = tsq
    ? sql`(c.search_vector @@ to_tsquery('simple', ${tsq}) or c.content ilike ${pattern})`
    : sql`c.content ilike ${pattern}`;
  const rank = tsq ? sql`ts_rank_cd(c.search_vector, to_tsquery('simple', ${tsq}))` : sql`0`;
  const rows = await queryRows<{
    id: string;
    session_id: string;
    role: string;
    content: string;
    fast_score: number;
    deep_score: number | null;
    admission: string;
    occurred_at: Date | string;
    topics: string[] | null;
    rank: number;
    hot: number | null;
  }>(
    db,
    sql`select c.id, c.session_id, c.role, c.content, c.fast_score, c.deep_score, c.admission, c.occurred_at, ${rank} as rank,
          (select array_agg(t.name) from memory_chunk_topics ct join memory_topics t on t.tenant_id = ct.tenant_id and t.id = ct.topic_id where ct.tenant_id = c.tenant_id and ct.chunk_id = c.id) as topics,
          (select max(t.hotness) from memory_chunk_topics ct join memory_topics t on t.tenant_id = ct.tenant_id and t.id = ct.topic_id where ct.tenant_id = c.tenant_id and ct.chunk_id = c.id) as hot
        from memory_chunks c
        where ${sql.join(filters, sql` and `)} and ${match}
        order by rank desc, greatest(c.fast_score, coalesce(c.deep_score, 0)) desc, hot desc nulls last, c.occurred_at desc
        limit ${limit}`,
  );
  return rows.map((r) => ({
    id: r.id,
    sessionId: r.session_id,
    role: r.role,
    content: body(r.content),
    score: Math.max(r.fast_score, r.deep_score ?? 0),
    fastScore: r.fast_score,
    admission: r.admission,
    occurredAt: new Date(r.occurred_at),
    topics: r.topics ?? [],
    rank: Number(r.rank),
  }));
}

export async function getTopicSummary(db: DbOrTx, params: { tenantId: string; topicId: string }) {
  const [topic] = await db
    .select()
    .from(memoryTopics)
    .where(and(eq(memoryTopics.tenantId, params.tenantId), eq(memoryTopics.id, params.topicId)));
  if (!topic) throw notFound("unknown_topic", `No topic ${params.topicId}.`);
  const [[chunks], summaries] = await Promise.all([
    db
      .select({ n: count() })
      .from(memoryChunkTopics)
      .where(and(eq(memoryChunkTopics.tenantId, params.tenantId), eq(memoryChunkTopics.topicId, params.topicId))),
    db
      .select()
      .from(memoryTreeSummaries)
      .where(and(eq(memoryTreeSummaries.tenantId, params.tenantId), eq(memoryTreeSummaries.topicId, params.topicId)))
      .orderBy(desc(memoryTreeSummaries.createdAt))
      .limit(5),
  ]);
  return { topic, chunkCount: chunks?.n ?? 0, summaries };
}

export async function getHotTopics(
  db: DbOrTx,
  params: { tenantId: string; limit?: number; includeArchived?: boolean },
) {
  const where = params.includeArchived
    ? eq(memoryTopics.tenantId, params.tenantId)
    : and(eq(memoryTopics.tenantId, params.tenantId), sql`${memoryTopics.status} <> 'archived'`);
  return db
    .select()
    .from(memoryTopics)
    .where(where)
    .orderBy(desc(memoryTopics.hotness), desc(memoryTopics.lastMentionedAt))
    .limit(Math.min(params.limit ?? 20, 200));
}

/** A session's chunks in order, with its sealed L1 summaries. */
export async function searchBySession(db: DbOrTx, params: { tenantId: string; sessionId: string; limit?: number }) {
  const [chunks, summaries] = await Promise.all([
    db
      .select()
      .from(memoryChunks)
      .where(and(eq(memoryChunks.tenantId, params.tenantId), eq(memoryChunks.sessionId, params.sessionId)))
      .orderBy(asc(memoryChunks.occurredAt), asc(memoryChunks.seq))
      .limit(Math.min(params.limit ?? 200, 1000)),
    db
      .select()
      .from(memoryTreeSummaries)
      .where(
        and(eq(memoryTreeSummaries.tenantId, params.tenantId), eq(memoryTreeSummaries.sessionId, params.sessionId)),
      )
      .orderBy(asc(memoryTreeSummaries.createdAt)),
  ]);
  return { chunks: chunks.map((c) => ({ ...c, content: body(c.content) })), summaries };
}

/** Totals for the tenant: active cards, messages, chunks, topics, summaries, recent jobs (`memory -- stats`). */
export async function getGlobalStats(db: DbOrTx, params: { tenantId: string }) {
  const t = params.tenantId;
  const [[nodes], [messages], chunkStates, [topics], [summaries], jobs] = await Promise.all([
    db
      .select({ n: count() })
      .from(memoryNodes)
      .where(and(eq(memoryNodes.tenantId, t), eq(memoryNodes.status, "active"))),
    db.select({ n: count() }).from(memoryMessages).where(eq(memoryMessages.tenantId, t)),
    db
      .select({ admission: memoryChunks.admission, n: count() })
      .from(memoryChunks)
      .where(eq(memoryChunks.tenantId, t))
      .groupBy(memoryChunks.admission),
    db
      .select({ n: count(), active: sql<number>`count(*) filter (where ${memoryTopics.status} = 'active')::int` })
      .from(memoryTopics)
      .where(eq(memoryTopics.tenantId, t)),
    db.select({ n: count() }).from(memoryTreeSummaries).where(eq(memoryTreeSummaries.tenantId, t)),
    db
      .select({ status: memoryJobs.status, n: count() })
      .from(memoryJobs)
      .where(and(eq(memoryJobs.tenantId, t), gte(memoryJobs.updatedAt, new Date(Date.now() - 7 * 86_400_000))))
      .groupBy(memoryJobs.status),
  ]);
  return {
    activeMemories: nodes?.n ?? 0,
    messages: messages?.n ?? 0,
    chunks: Object.fromEntries(chunkStates.map((c) => [c.admission, c.n])) as Record<string, number>,
    topics: topics?.n ?? 0,
    activeTopics: topics?.active ?? 0,
    treeSummaries: summaries?.n ?? 0,
    jobsLast7Days: Object.fromEntries(jobs.map((j) => [j.status, j.n])) as Record<string, number>,
  };
}
