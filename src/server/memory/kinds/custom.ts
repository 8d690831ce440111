import { and, asc, count, eq, sql } from "drizzle-orm";
import { jsonValue } from "~/db/raw";
import { memoryKinds, memoryNodes, tenants, type Tenant } from "~/db/schema";
import type { Database, DbOrTx } from "~/db/types";
import { badRequest, notFound, ServiceError } from "~/server/errors";
import { log } from "~/server/log";
import { unknownTenant } from "~/server/tenants/policy";
import { recordAudit } from "../store/audit";
import type { MemoryCallContext } from "../call-context";
import { buildCustomKind, customKindDefinitionSchema } from "./custom-schema";
import type { KindDefinition } from "./definition";
import { listKinds, resolveKind } from "./registry";

/**
 * Per-tenant kinds added by admins (`memory_kinds`). The stored JSON is the validated admin input;
 * every read rebuilds the definition through buildCustomKind, so a stored kind that a later
 * built-in now shadows is skipped instead of silently overriding the built-in.
 */

export type KindRegistry = {
  /** The definition for a kind name, synonym or slot key: built-ins first, then the tenant's kinds. */
  resolve(kind: string): KindDefinition | undefined;
  /** Built-ins, then the tenant's custom kinds. */
  all: readonly KindDefinition[];
  custom: readonly KindDefinition[];
};

type AuditCtx = Pick<MemoryCallContext, "tenantId" | "actor" | "toolCallId">;

const storedKinds = (db: DbOrTx, tenantId: string) =>
  db.select().from(memoryKinds).where(eq(memoryKinds.tenantId, tenantId)).orderBy(asc(memoryKinds.kind));

type StoredKind = { kind: string; definition: Record<string, unknown> };

/** Rebuilds stored rows into definitions, skipping (and logging) any that no longer validate. */
function rebuild(tenantId: string, rows: readonly StoredKind[]): KindDefinition[] {
  const out: KindDefinition[] = [];
  for (const row of rows) {
    const built = buildCustomKind(row.definition, out);
    if (built.ok) out.push(built.definition);
    else
      log("warn", "skipping invalid custom kind", {
        tenantId,
        kind: row.kind,
        reason: built.reason,
        message: built.message,
      });
  }
  return out;
}

export async function listCustomKinds(db: DbOrTx, tenantId: string): Promise<KindDefinition[]> {
  return rebuild(tenantId, await storedKinds(db, tenantId));
}

const registryOf = (custom: KindDefinition[]): KindRegistry => ({
  resolve: (kind) => resolveKind(kind, custom),
  all: listKinds(custom),
  custom,
});

/** The built-in kinds alone: for calls that name no kind, which then need no read of the tenant's. */
export const BUILT_IN_KIND_REGISTRY: KindRegistry = registryOf([]);

export async function loadKindRegistry(db: DbOrTx, tenantId: string): Promise<KindRegistry> {
  return registryOf(await listCustomKinds(db, tenantId));
}

/**
 * The organisation's row (its write and sensitive-data policies) and its kind registry in one
 * statement: a write needs both before anything else, and two statements cost two round trips.
 */
export async function loadTenantWithKinds(
  db: DbOrTx,
  tenantId: string,
): Promise<{ tenant: Tenant; registry: KindRegistry }> {
  const kindRows = sql<
    string | StoredKind[]
  >`(select coalesce(json_agg(json_build_object('kind', k.kind, 'definition', k.definition) order by k.kind), '[]'::json)
      from ${memoryKinds} k where k.tenant_id = ${tenants.id})`;
  const [row] = await db
    .select({ tenant: tenants, kinds: kindRows })
    .from(tenants)
    .where(eq(tenants.id, tenantId))
    .limit(1);
  if (!row) throw unknownTenant(tenantId);
  const kinds = jsonValue(row.kinds);
  return { tenant: row.tenant, registry: registryOf(rebuild(tenantId, kinds)) };
}

/** Serialises kind changes per tenant, so two admins cannot both claim one slot key. */
const lockTenantKinds = (db: DbOrTx, tenantId: string) =>
  db.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`memory_kinds:${tenantId}`}, 0))`);

/**
 * Creates or replaces a custom kind from an admin's JSON (customKindDefinitionSchema). Rejects,
 * with the builder's reason, definitions that are invalid or reuse a built-in or another custom key.
 * The change and its `kind` audit event commit together.
 */
export async function saveCustomKind(db: Database, ctx: AuditCtx, json: unknown): Promise<KindDefinition> {
  return db.transaction(async (tx) => {
    await lockTenantKinds(tx, ctx.tenantId);
    const rows = await storedKinds(tx, ctx.tenantId);
    const built = buildCustomKind(json, rebuild(ctx.tenantId, rows));
    if (!built.ok) throw badRequest(built.reason, `${built.message}. Fix the definition and save it again.`);
    // Store the parsed input (defaults filled in), which rebuilds to the same definition on every read.
    const definition = customKindDefinitionSchema.parse(json) as Record<string, unknown>;
    const before = rows.find((row) => row.kind === built.definition.kind)?.definition ?? null;
    await tx
      .insert(memoryKinds)
      .values({ tenantId: ctx.tenantId, kind: built.definition.kind, definition, createdById: ctx.actor.id })
      .onConflictDoUpdate({
        target: [memoryKinds.tenantId, memoryKinds.kind],
        set: { definition, updatedAt: sql`now()` },
      });
    await recordAudit(tx, ctx, {
      eventType: "kind",
      reason: before ? "custom kind updated" : "custom kind created",
      before,
      after: definition,
      metadata: { kind: built.definition.kind },
    });
    return built.definition;
  });
}

/**
 * Removes a custom kind. Refused while active cards still use it (they would lose their slot
 * rules): expire or forget them first.
 */
export async function deleteCustomKind(
  db: Database,
  ctx: AuditCtx,
  kind: string,
): Promise<{ kind: string; definition: Record<string, unknown> }> {
  const name = typeof kind === "string" ? kind.trim().toLowerCase() : "";
  return db.transaction(async (tx) => {
    await lockTenantKinds(tx, ctx.tenantId);
    const [row] = await tx
      .select()
      .from(memoryKinds)
      .where(and(eq(memoryKinds.tenantId, ctx.tenantId), eq(memoryKinds.kind, name)))
      .limit(1);
    if (!row)
      throw notFound(
        "unknown_kind",
        `This organisation has no custom kind "${kind}"; list the kinds to see which exist.`,
      );
    const [inUse] = await tx
      .select({ n: count() })
      .from(memoryNodes)
      .where(and(eq(memoryNodes.tenantId, ctx.tenantId), eq(memoryNodes.status, "active"), eq(memoryNodes.kind, name)));
    if (inUse && inUse.n > 0) {
      throw new ServiceError(
        "CONFLICT",
        "kind_in_use",
        `${inUse.n} active memory card(s) use kind ${name}; expire or forget them before deleting the kind.`,
        {
          activeCards: inUse.n,
        },
      );
    }
    await tx.delete(memoryKinds).where(and(eq(memoryKinds.tenantId, ctx.tenantId), eq(memoryKinds.kind, name)));
    await recordAudit(tx, ctx, {
      eventType: "kind",
      reason: "custom kind deleted",
      before: row.definition,
      after: null,
      metadata: { kind: name },
    });
    return { kind: name, definition: row.definition };
  });
}
