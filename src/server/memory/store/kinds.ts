import { and, asc, count, eq, sql } from "drizzle-orm";
import { jsonValue } from "~/db/raw";
import { memoryKinds, memoryNodes, tenants, type Tenant } from "~/db/schema";
import type { DbOrTx } from "~/db/types";

// The SQL of an organisation's custom kinds (`memory_kinds`). What a stored definition means, and
// which may be saved, is decided in kinds/custom.ts.

export type StoredKind = { kind: string; definition: Record<string, unknown> };

export const storedKinds = (db: DbOrTx, tenantId: string) =>
  db.select().from(memoryKinds).where(eq(memoryKinds.tenantId, tenantId)).orderBy(asc(memoryKinds.kind));

/** The organisation's row and its stored kinds in one statement (one round trip); undefined for an unknown id. */
export async function findTenantWithStoredKinds(
  db: DbOrTx,
  tenantId: string,
): Promise<{ tenant: Tenant; kinds: StoredKind[] } | undefined> {
  const kindRows = sql<
    string | StoredKind[]
  >`(select coalesce(json_agg(json_build_object('kind', k.kind, 'definition', k.definition) order by k.kind), '[]'::json)
      from ${memoryKinds} k where k.tenant_id = ${tenants.id})`;
  const [row] = await db
    .select({ tenant: tenants, kinds: kindRows })
    .from(tenants)
    .where(eq(tenants.id, tenantId))
    .limit(1);
  return row ? { tenant: row.tenant, kinds: jsonValue(row.kinds) } : undefined;
}

/** Serialises kind changes per tenant, so two admins cannot both claim one slot key. */
export const lockTenantKinds = (db: DbOrTx, tenantId: string) =>
  db.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`memory_kinds:${tenantId}`}, 0))`);

export async function upsertStoredKind(
  db: DbOrTx,
  params: { tenantId: string; kind: string; definition: Record<string, unknown>; createdById: string | null },
): Promise<void> {
  await db
    .insert(memoryKinds)
    .values(params)
    .onConflictDoUpdate({
      target: [memoryKinds.tenantId, memoryKinds.kind],
      set: { definition: params.definition, updatedAt: sql`now()` },
    });
}

export async function findStoredKind(db: DbOrTx, params: { tenantId: string; kind: string }) {
  const [row] = await db
    .select()
    .from(memoryKinds)
    .where(and(eq(memoryKinds.tenantId, params.tenantId), eq(memoryKinds.kind, params.kind)))
    .limit(1);
  return row;
}

/** Active cards of one kind (what deleting the kind would strand). */
export async function countActiveCardsOfKind(db: DbOrTx, params: { tenantId: string; kind: string }): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(memoryNodes)
    .where(
      and(
        eq(memoryNodes.tenantId, params.tenantId),
        eq(memoryNodes.status, "active"),
        eq(memoryNodes.kind, params.kind),
      ),
    );
  return row?.n ?? 0;
}

export async function deleteStoredKind(db: DbOrTx, params: { tenantId: string; kind: string }): Promise<void> {
  await db.delete(memoryKinds).where(and(eq(memoryKinds.tenantId, params.tenantId), eq(memoryKinds.kind, params.kind)));
}
