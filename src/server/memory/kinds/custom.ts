import type { Tenant } from "~/db/schema";
import type { Database, DbOrTx } from "~/db/types";
import { badRequest, notFound, ServiceError } from "~/server/errors";
import { log } from "~/server/log";
import { unknownTenant } from "~/server/tenants/policy";
import { recordAudit } from "../store/audit";
import {
  countActiveCardsOfKind,
  deleteStoredKind,
  findStoredKind,
  findTenantWithStoredKinds,
  lockTenantKinds,
  storedKinds,
  upsertStoredKind,
  type StoredKind,
} from "../store/kinds";
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
  const row = await findTenantWithStoredKinds(db, tenantId);
  if (!row) throw unknownTenant(tenantId);
  return { tenant: row.tenant, registry: registryOf(rebuild(tenantId, row.kinds)) };
}

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
    await upsertStoredKind(tx, {
      tenantId: ctx.tenantId,
      kind: built.definition.kind,
      definition,
      createdById: ctx.actor.id,
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
    const row = await findStoredKind(tx, { tenantId: ctx.tenantId, kind: name });
    if (!row)
      throw notFound(
        "unknown_kind",
        `This organisation has no custom kind "${kind}"; list the kinds to see which exist.`,
      );
    const activeCards = await countActiveCardsOfKind(tx, { tenantId: ctx.tenantId, kind: name });
    if (activeCards > 0) {
      throw new ServiceError(
        "CONFLICT",
        "kind_in_use",
        `${activeCards} active memory card(s) use kind ${name}; expire or forget them before deleting the kind.`,
        { activeCards },
      );
    }
    await deleteStoredKind(tx, { tenantId: ctx.tenantId, kind: name });
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
