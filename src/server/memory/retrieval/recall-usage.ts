import { and, eq, inArray, sql } from "drizzle-orm";
import { memoryNodes, memoryNodeUsage } from "~/db/schema";
import { queryRows } from "~/db/raw";
import type { DbOrTx, Transaction } from "~/db/types";
import { HOTNESS } from "./hotness";
import { bufferedWriter } from "~/db/buffered-writes";

/**
 * Recall counts: every card an agent is handed (search hits, a lookup, a context block) counts once
 * per call, and heats up by +0.05 (capped at 1); a daily job cools every card by ×0.95.
 * Search ranking boosts by hotness. People browsing the dashboard do not count.
 */
type Recall = { tenantId: string; nodeId: string; at: string };

/**
 * One upsert per batch, the cards aggregated and sorted (two instances flushing the same cards lock
 * them in the same order). A card deleted since it was recalled is skipped. The lock wait is short:
 * a hard delete holds its cards while it cascades to these rows, and it is the counts that give way.
 */
async function upsertRecalls(tx: Transaction, rows: readonly Recall[], ownTransaction: boolean) {
  const byCard = new Map<string, { tenantId: string; nodeId: string; hits: number; at: string }>();
  for (const row of rows) {
    const key = `${row.tenantId}\u0000${row.nodeId}`;
    const seen = byCard.get(key);
    if (seen) {
      seen.hits++;
      if (row.at > seen.at) seen.at = row.at;
    } else byCard.set(key, { ...row, hits: 1 });
  }
  const cards = [...byCard.values()].sort((a, b) =>
    a.tenantId === b.tenantId ? (a.nodeId < b.nodeId ? -1 : 1) : a.tenantId < b.tenantId ? -1 : 1,
  );
  const column = <T>(pick: (card: (typeof cards)[number]) => T) => sql.param(cards.map(pick));
  if (ownTransaction) await tx.execute(sql`set local lock_timeout = '200ms'`);
  await tx.execute(sql`
    insert into ${memoryNodeUsage} (tenant_id, node_id, recall_count, last_recalled_at, hotness)
    select v.tenant_id, v.node_id, v.hits, v.at::timestamptz, least(${HOTNESS.max}::real, ${HOTNESS.perMention}::real * v.hits)
    from unnest(${column((c) => c.tenantId)}::text[], ${column((c) => c.nodeId)}::text[], ${column((c) => c.hits)}::int[], ${column((c) => c.at)}::text[])
      with ordinality as v(tenant_id, node_id, hits, at, ord)
    where exists (select 1 from ${memoryNodes} n where n.tenant_id = v.tenant_id and n.id = v.node_id)
    order by v.ord
    on conflict (tenant_id, node_id) do update set
      recall_count = ${memoryNodeUsage.recallCount} + excluded.recall_count,
      last_recalled_at = greatest(${memoryNodeUsage.lastRecalledAt}, excluded.last_recalled_at),
      hotness = least(${HOTNESS.max}::real, ${memoryNodeUsage.hotness} + excluded.hotness)`);
}

const recalls = bufferedWriter<Recall>({ what: "recall counts", delayMs: 1000, batchSize: 2000, write: upsertRecalls });

/** Counts the cards handed to an agent in one call (each once). Best effort, written a moment later. */
export async function recordRecalls(
  db: DbOrTx,
  tenantId: string,
  cardIds: readonly string[],
  now = new Date(),
): Promise<void> {
  const at = now.toISOString();
  await recalls.add(
    db,
    [...new Set(cardIds)].map((cardId) => ({ tenantId, nodeId: cardId, at })),
  );
}

/** Writes the counts buffered for `db` now (tests, before reading them back). */
export const flushRecalls = (db: DbOrTx) => recalls.flush(db);

/** One day's cooling (×0.95) of a tenant's recalled cards; a card under 0.01 drops to 0 and stays out of the next run. */
export async function coolRecallHotness(db: DbOrTx, params: { tenantId: string }): Promise<{ cards: number }> {
  const [row] = await queryRows<{ n: number }>(
    db,
    sql`
    with cooled as (
      update ${memoryNodeUsage} set hotness = case when hotness * ${HOTNESS.dailyDecay}::real < 0.01 then 0 else hotness * ${HOTNESS.dailyDecay}::real end
      where tenant_id = ${params.tenantId} and hotness > 0
      returning 1)
    select count(*)::int as n from cooled`,
  );
  return { cards: Number(row?.n ?? 0) };
}

/** The recall rows of some cards (e.g. one card's revisions), by card id; cards never recalled are absent. */
export async function recallUsageOf(db: DbOrTx, params: { tenantId: string; cardIds: readonly string[] }) {
  if (params.cardIds.length === 0)
    return new Map<string, { recallCount: number; lastRecalledAt: Date; hotness: number }>();
  const rows = await db
    .select({
      nodeId: memoryNodeUsage.nodeId,
      recallCount: memoryNodeUsage.recallCount,
      lastRecalledAt: memoryNodeUsage.lastRecalledAt,
      hotness: memoryNodeUsage.hotness,
    })
    .from(memoryNodeUsage)
    .where(and(eq(memoryNodeUsage.tenantId, params.tenantId), inArray(memoryNodeUsage.nodeId, [...params.cardIds])));
  return new Map(rows.map(({ nodeId, ...usage }) => [nodeId, usage]));
}
