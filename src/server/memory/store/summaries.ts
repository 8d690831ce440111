import { and, between, count, eq, inArray, sql } from "drizzle-orm";
import { anyOf } from "~/db/any-of";
import { queryRows } from "~/db/raw";
import { memoryMessages, memorySummaries, type MemorySummary } from "~/db/schema";
import type { DbOrTx } from "~/db/types";

// The SQL of session summaries: chain tips, the chain walk, inserts, and the message ranges a summary
// covers. The rules (what a summary may say, when a chain moved) are in evidence/summaries.ts.

/** Serialises summary appends per session; the unique parent index already stops forks, this also stops two roots. */
export const lockSessionSummaries = (db: DbOrTx, tenantId: string, sessionId: string) =>
  db.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`memory_summaries:${tenantId}:${sessionId}`}, 0))`);

/** The session's chain tips, newest first: summaries no other summary names as parent (one in a sound chain). */
async function chainTips(db: DbOrTx, tenantId: string, sessionId: string): Promise<MemorySummary[]> {
  return db
    .select()
    .from(memorySummaries)
    .where(
      and(
        eq(memorySummaries.tenantId, tenantId),
        eq(memorySummaries.sessionId, sessionId),
        sql`not exists (select 1 from ${memorySummaries} as child where child.tenant_id = ${memorySummaries.tenantId} and child.parent_summary_id = ${memorySummaries.id})`,
      ),
    )
    .orderBy(sql`${memorySummaries.createdAt} desc`);
}

/** The newest summary of a session, or undefined before the first one. */
export async function getLatestSummary(
  db: DbOrTx,
  params: { tenantId: string; sessionId: string },
): Promise<MemorySummary | undefined> {
  const [tip] = await chainTips(db, params.tenantId, params.sessionId);
  return tip;
}

export async function insertSummary(db: DbOrTx, values: typeof memorySummaries.$inferInsert): Promise<MemorySummary> {
  const [row] = await db.insert(memorySummaries).values(values).returning();
  return row!;
}

/** The log positions of these messages, those of them that belong to the session. */
export function findSessionMessageSeqs(
  db: DbOrTx,
  params: { tenantId: string; sessionId: string; ids: readonly string[] },
): Promise<{ id: string; seq: number }[]> {
  return db
    .select({ id: memoryMessages.id, seq: memoryMessages.seq })
    .from(memoryMessages)
    .where(
      and(
        eq(memoryMessages.tenantId, params.tenantId),
        eq(memoryMessages.sessionId, params.sessionId),
        inArray(memoryMessages.id, [...params.ids]),
      ),
    );
}

/** Messages of the session from `fromSeq` to `toSeq`, both included. */
export async function countSessionMessagesBetween(
  db: DbOrTx,
  params: { tenantId: string; sessionId: string; fromSeq: number; toSeq: number },
): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(memoryMessages)
    .where(
      and(
        eq(memoryMessages.tenantId, params.tenantId),
        eq(memoryMessages.sessionId, params.sessionId),
        between(memoryMessages.seq, params.fromSeq, params.toSeq),
      ),
    );
  return row?.n ?? 0;
}

/** Ids from `tipId` back along the parent links, newest first, at most `limit`: one recursive query. */
export async function summaryChainIds(
  db: DbOrTx,
  params: { tenantId: string; sessionId: string; tipId: string; limit: number },
): Promise<string[]> {
  const links = await queryRows<{ id: string; depth: number }>(
    db,
    sql`with recursive chain(id, parent_summary_id, depth) as (
          select id, parent_summary_id, 1 from memory_summaries
           where tenant_id = ${params.tenantId} and id = ${params.tipId}
          union all
          select s.id, s.parent_summary_id, c.depth + 1 from memory_summaries s
            join chain c on s.tenant_id = ${params.tenantId} and s.id = c.parent_summary_id
           where s.session_id = ${params.sessionId} and c.depth < ${params.limit}
        )
        select id, depth from chain order by depth`,
  );
  return links.map((link) => link.id);
}

export function summariesByIds(db: DbOrTx, params: { tenantId: string; ids: readonly string[] }) {
  return db
    .select()
    .from(memorySummaries)
    .where(and(eq(memorySummaries.tenantId, params.tenantId), anyOf(memorySummaries.id, [...params.ids])));
}
