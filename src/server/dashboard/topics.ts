import { and, desc, eq, inArray } from "drizzle-orm";
import type { DbOrTx } from "~/db/types";
import { memoryTopics } from "~/db/schema";

export type TopicView = {
  id: string;
  name: string;
  topicType: string;
  status: string;
  hotness: number;
  mentionCount: number;
  summary: string | null;
  lastMentionedAt: string | null;
};

/** Topics of the memory tree, hottest first (memory_topics_hotness_idx: tenant, status, hotness). */
export async function listTopics(
  db: DbOrTx,
  params: { tenantId: string; statuses?: ("active" | "warm" | "archived")[]; limit?: number },
): Promise<TopicView[]> {
  const statuses = params.statuses?.length ? params.statuses : (["active", "warm"] as const);
  const rows = await db
    .select()
    .from(memoryTopics)
    .where(and(eq(memoryTopics.tenantId, params.tenantId), inArray(memoryTopics.status, [...statuses])))
    .orderBy(desc(memoryTopics.hotness), desc(memoryTopics.mentionCount))
    .limit(Math.min(Math.max(params.limit ?? 100, 1), 500));
  return rows.map((t) => ({
    id: t.id,
    name: t.name,
    topicType: t.topicType,
    status: t.status,
    hotness: t.hotness,
    mentionCount: t.mentionCount,
    summary: t.summary,
    lastMentionedAt: t.lastMentionedAt?.toISOString() ?? null,
  }));
}
