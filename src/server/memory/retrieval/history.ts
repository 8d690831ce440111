import { and, asc, desc, eq, gt, inArray, isNull, lte, or, sql, type SQL } from "drizzle-orm";
import type { DbOrTx } from "~/db/types";
import { memoryAuditEvents, memoryCardRecordColumns, memoryNodes, type MemoryAuditEvent } from "~/db/schema";
import { notFound } from "~/server/errors";
import type { MemoryCallContext } from "../call-context";
import { getCardRow } from "../store/card-revisions";
import { toMemoryCard, type MemoryCard } from "../store/card-view";
import { scopeAllowed, type ScopePattern } from "../scope";
import { scopePatternsCondition } from "../store/scope-sql";

/** One card by id, if the caller may read its scope (otherwise it does not exist for them). */
export async function getMemoryCard(
  db: DbOrTx,
  ctx: Pick<MemoryCallContext, "tenantId" | "readScopes">,
  id: string,
): Promise<MemoryCard> {
  const row = await getCardRow(db, { tenantId: ctx.tenantId, id });
  if (!row || !scopeAllowed({ type: row.scopeType, id: row.scopeId }, ctx.readScopes)) {
    throw notFound("not_found", `No memory ${id} in scopes you can read.`);
  }
  return toMemoryCard(row);
}

/** The current (active) revision of a card's chain, when there is one: where a stale id should lead. */
export async function currentRevisionOf(
  db: DbOrTx,
  params: { tenantId: string; lineageId: string },
): Promise<{ id: string; revision: number } | undefined> {
  const [row] = await db
    .select({ id: memoryNodes.id, revision: memoryNodes.revision })
    .from(memoryNodes)
    .where(
      and(
        eq(memoryNodes.tenantId, params.tenantId),
        eq(memoryNodes.lineageId, params.lineageId),
        eq(memoryNodes.status, "active"),
      ),
    )
    .limit(1);
  return row;
}

export type CardHistory = { lineageId: string; revisions: MemoryCard[]; events: MemoryAuditEvent[] };

/** The whole revision chain a card belongs to (oldest first) and its audit timeline. */
export async function getCardHistory(
  db: DbOrTx,
  ctx: Pick<MemoryCallContext, "tenantId" | "readScopes">,
  id: string,
): Promise<CardHistory> {
  const card = await getMemoryCard(db, ctx, id);
  const [rows, events] = await Promise.all([
    db
      .select(memoryCardRecordColumns)
      .from(memoryNodes)
      .where(and(eq(memoryNodes.tenantId, ctx.tenantId), eq(memoryNodes.lineageId, card.lineageId)))
      .orderBy(asc(memoryNodes.revision)),
    db
      .select()
      .from(memoryAuditEvents)
      .where(and(eq(memoryAuditEvents.tenantId, ctx.tenantId), eq(memoryAuditEvents.lineageId, card.lineageId)))
      .orderBy(asc(memoryAuditEvents.createdAt), asc(memoryAuditEvents.id)),
  ]);
  return { lineageId: card.lineageId, revisions: rows.map(toMemoryCard), events };
}

/**
 * What memory said at `asOf`: the revisions that were current then — created before it, not yet
 * superseded/expired/deleted, and not past their own expiry. Hard-deleted chains are gone for good;
 * chains forgotten since (soft) are left out.
 */
export async function readMemoryAsOf(
  db: DbOrTx,
  params: { tenantId: string; scopes: readonly ScopePattern[]; asOf: Date; kinds?: string[]; limit?: number },
): Promise<MemoryCard[]> {
  const conditions: SQL[] = [
    eq(memoryNodes.tenantId, params.tenantId),
    scopePatternsCondition(params.scopes),
    lte(memoryNodes.createdAt, params.asOf),
    or(isNull(memoryNodes.endedAt), gt(memoryNodes.endedAt, params.asOf))!,
    or(isNull(memoryNodes.expiresAt), gt(memoryNodes.expiresAt, params.asOf))!,
    // A chain the user has since forgotten is not recalled from the past either: its head is deleted
    // (a restored chain's deleted revision has a successor, so it reads as before).
    sql`not exists (select 1 from ${memoryNodes} as forgotten where forgotten.tenant_id = ${memoryNodes.tenantId} and forgotten.lineage_id = ${memoryNodes.lineageId} and forgotten.status = 'deleted' and forgotten.superseded_by_id is null)`,
  ];
  if (params.kinds?.length) conditions.push(inArray(memoryNodes.kind, params.kinds));
  const rows = await db
    .select(memoryCardRecordColumns)
    .from(memoryNodes)
    .where(and(...conditions))
    .orderBy(desc(memoryNodes.importance), desc(memoryNodes.updatedAt))
    .limit(Math.min(params.limit ?? 200, 1000));
  return rows.map(toMemoryCard);
}
