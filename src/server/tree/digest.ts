import { and, asc, desc, eq, gt, lte } from "drizzle-orm";
import type { Database } from "~/db/types";
import { memoryTopics, memoryTreeSummaries } from "~/db/schema";
import { segmentForSearch } from "~/server/text/segment";
import { countTokens } from "~/server/text/token-count";

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
