import { and, eq, sql } from "drizzle-orm";
import { startNow } from "~/db/start-now";
import type { DbOrTx } from "~/db/types";
import { memoryNodes, type MemoryCardRow, type CardStatus } from "~/db/schema";
import type { Actor } from "../call-context";
import type { MemoryScope } from "../scope";

/** Who made a new revision and when: it is created and last updated by the same actor at the same moment. */
export const newRevisionStamp = (actor: Actor, at: Date) => ({
  createdByType: actor.type,
  createdById: actor.id,
  updatedByType: actor.type,
  updatedById: actor.id,
  createdAt: at,
  updatedAt: at,
});

/** One card by id within the tenant; `forUpdate` locks it for the rest of the transaction. */
export async function getCardRow(
  db: DbOrTx,
  params: { tenantId: string; id: string; forUpdate?: boolean },
): Promise<MemoryCardRow | undefined> {
  const query = db
    .select()
    .from(memoryNodes)
    .where(and(eq(memoryNodes.tenantId, params.tenantId), eq(memoryNodes.id, params.id)))
    .limit(1);
  const [row] = params.forUpdate ? await query.for("update") : await query;
  return row;
}

/** The active card in a slot (scope + canonical key), locked when asked. */
export async function findActiveInSlot(
  db: DbOrTx,
  params: { tenantId: string; scope: MemoryScope; key: string; forUpdate?: boolean },
): Promise<MemoryCardRow | undefined> {
  const query = db
    .select()
    .from(memoryNodes)
    .where(
      and(
        eq(memoryNodes.tenantId, params.tenantId),
        eq(memoryNodes.scopeType, params.scope.type),
        eq(memoryNodes.scopeId, params.scope.id),
        eq(memoryNodes.status, "active"),
        eq(memoryNodes.key, params.key),
      ),
    )
    .limit(1);
  // Started at the call (startNow): a caller may send the slot's insert right behind this read.
  const [row] = await startNow(params.forUpdate ? query.for("update") : query);
  return row;
}

/**
 * Ends the current revision (superseded / expired / deleted) only if it is still the active one at
 * `expectedRevision`. Returns the updated row, or undefined when someone else changed it first.
 */
export async function endActiveRevision(
  db: DbOrTx,
  params: {
    tenantId: string;
    id: string;
    expectedRevision: number;
    status: Exclude<CardStatus, "active">;
    actor: Actor;
    supersededById?: string;
    at: Date;
  },
): Promise<MemoryCardRow | undefined> {
  const [row] = await db
    .update(memoryNodes)
    .set({
      status: params.status,
      supersededById: params.supersededById ?? null,
      endedAt: params.at,
      updatedAt: params.at,
      updatedByType: params.actor.type,
      updatedById: params.actor.id,
    })
    .where(
      and(
        eq(memoryNodes.tenantId, params.tenantId),
        eq(memoryNodes.id, params.id),
        eq(memoryNodes.revision, params.expectedRevision),
        eq(memoryNodes.status, "active"),
      ),
    )
    .returning();
  return row;
}

export async function insertCardRow(db: DbOrTx, values: typeof memoryNodes.$inferInsert): Promise<MemoryCardRow> {
  const [row] = await db.insert(memoryNodes).values(values).returning();
  return row!;
}

/**
 * Inserts `values` as the active card of its slot unless the slot already has one (then nothing is
 * inserted and undefined is returned), so that a create can be sent together with the read of its
 * slot instead of after it.
 */
export async function insertCardIfSlotFree(
  db: DbOrTx,
  values: typeof memoryNodes.$inferInsert,
): Promise<MemoryCardRow | undefined> {
  const [row] = await startNow(
    db
      .insert(memoryNodes)
      .values(values)
      .onConflictDoNothing({
        target: [memoryNodes.tenantId, memoryNodes.scopeType, memoryNodes.scopeId, memoryNodes.key],
        where: sql`status = 'active'`,
      })
      .returning(),
  );
  return row;
}

/** Stable JSON text (sorted keys) for comparing values regardless of key order. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return "null";
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}
