import { and, asc, eq } from "drizzle-orm";
import { z } from "zod";
import type { Database, DbOrTx } from "~/db/types";
import { apiKeys, scopeGrants, tenantMembers, users, type ScopeGrant } from "~/db/schema";
import { badRequest, notFound } from "~/server/errors";
import { newId } from "~/server/ids";
import { formatScope, parseScopePattern, recordAudit } from "~/server/memory";
import { parseInput } from "~/server/validation";

/**
 * Admin-managed scope grants: which person (or API key) may read / write which scope. Every change
 * writes a `grant` audit row in its own transaction. Grants are read at every agent call
 * (permissions.ts), so a removed grant takes effect on the next request of every key its holder owns.
 */

export const PRINCIPAL_TYPES = ["user", "api_key"] as const;
export type PrincipalType = (typeof PRINCIPAL_TYPES)[number];

export type GrantView = {
  id: string;
  principalType: PrincipalType;
  principalId: string;
  /** The person's email, or the key's name, for display. */
  principalLabel: string | null;
  scope: string;
  canRead: boolean;
  canWrite: boolean;
  grantedByUserId: string | null;
  createdAt: string;
};

const toView = (row: ScopeGrant, label: string | null): GrantView => ({
  id: row.id,
  principalType: row.principalType,
  principalId: row.principalId,
  principalLabel: label,
  scope: row.scope,
  canRead: row.canRead,
  canWrite: row.canWrite,
  grantedByUserId: row.grantedByUserId,
  createdAt: row.createdAt.toISOString(),
});

const snapshot = (row: ScopeGrant) => ({
  grantId: row.id,
  principalType: row.principalType,
  principalId: row.principalId,
  scope: row.scope,
  canRead: row.canRead,
  canWrite: row.canWrite,
});

export const grantSetSchema = z.object({
  principalType: z.enum(PRINCIPAL_TYPES),
  principalId: z.string().min(1).max(100),
  /** `user:<id>`, `workspace:<id>`, `session:*`, `session:<id>`, `context:<ns>/<id>` or `global`. */
  scope: z.string().trim().min(1).max(220),
  canRead: z.boolean(),
  canWrite: z.boolean(),
});
export type GrantSetInput = z.input<typeof grantSetSchema>;

export const grantListSchema = z.object({
  principalType: z.enum(PRINCIPAL_TYPES).optional(),
  principalId: z.string().min(1).max(100).optional(),
});

async function principalLabel(
  db: DbOrTx,
  tenantId: string,
  type: PrincipalType,
  id: string,
): Promise<string | null | undefined> {
  if (type === "user") {
    const [row] = await db
      .select({ email: users.email })
      .from(tenantMembers)
      .innerJoin(users, eq(users.id, tenantMembers.userId))
      .where(and(eq(tenantMembers.tenantId, tenantId), eq(tenantMembers.userId, id)));
    return row ? row.email : undefined;
  }
  const [row] = await db
    .select({ name: apiKeys.name })
    .from(apiKeys)
    .where(and(eq(apiKeys.tenantId, tenantId), eq(apiKeys.id, id)));
  return row ? row.name : undefined;
}

/** Grants of an organisation, optionally of one principal, grouped by principal then scope. */
export async function listGrants(
  db: DbOrTx,
  params: { tenantId: string; principalType?: PrincipalType; principalId?: string },
): Promise<GrantView[]> {
  const rows = await db
    .select({ grant: scopeGrants, email: users.email, keyName: apiKeys.name })
    .from(scopeGrants)
    .leftJoin(users, and(eq(scopeGrants.principalType, "user"), eq(users.id, scopeGrants.principalId)))
    .leftJoin(
      apiKeys,
      and(
        eq(scopeGrants.principalType, "api_key"),
        eq(apiKeys.tenantId, scopeGrants.tenantId),
        eq(apiKeys.id, scopeGrants.principalId),
      ),
    )
    .where(
      and(
        eq(scopeGrants.tenantId, params.tenantId),
        params.principalType ? eq(scopeGrants.principalType, params.principalType) : undefined,
        params.principalId ? eq(scopeGrants.principalId, params.principalId) : undefined,
      ),
    )
    .orderBy(asc(scopeGrants.principalType), asc(scopeGrants.principalId), asc(scopeGrants.scope));
  return rows.map((row) => toView(row.grant, row.email ?? row.keyName ?? null));
}

/**
 * Creates or changes the grant of one principal on one scope (the scope is normalised, so
 * `session:*` and ` session:* ` are one grant). Refuses principals outside the organisation.
 */
export async function setGrant(
  db: Database,
  params: { tenantId: string; actorUserId: string; input: GrantSetInput },
): Promise<GrantView> {
  const input = parseInput(grantSetSchema, params.input, "The grant");
  const scope = formatScope(parseScopePattern(input.scope));
  if (!input.canRead && !input.canWrite) {
    throw badRequest(
      "empty_grant",
      "A grant needs canRead or canWrite; to take access away, remove the grant with grants.remove.",
    );
  }
  return db.transaction(async (tx) => {
    const label = await principalLabel(tx, params.tenantId, input.principalType, input.principalId);
    if (label === undefined) {
      throw notFound(
        "unknown_principal",
        input.principalType === "user"
          ? `User ${input.principalId} is not a member of this organisation; add them first.`
          : `No API key ${input.principalId} in this organisation; list keys with keys.list.`,
      );
    }
    const [before] = await tx
      .select()
      .from(scopeGrants)
      .where(
        and(
          eq(scopeGrants.tenantId, params.tenantId),
          eq(scopeGrants.principalType, input.principalType),
          eq(scopeGrants.principalId, input.principalId),
          eq(scopeGrants.scope, scope),
        ),
      )
      .for("update");
    const [row] = await tx
      .insert(scopeGrants)
      .values({
        tenantId: params.tenantId,
        id: newId("grt"),
        principalType: input.principalType,
        principalId: input.principalId,
        scope,
        canRead: input.canRead,
        canWrite: input.canWrite,
        grantedByUserId: params.actorUserId,
      })
      .onConflictDoUpdate({
        target: [scopeGrants.tenantId, scopeGrants.principalType, scopeGrants.principalId, scopeGrants.scope],
        set: { canRead: input.canRead, canWrite: input.canWrite, grantedByUserId: params.actorUserId },
      })
      .returning();
    await recordAudit(
      tx,
      { tenantId: params.tenantId, actor: { type: "user", id: params.actorUserId } },
      {
        eventType: "grant",
        reason: before ? "grant changed" : "grant added",
        before: before ? snapshot(before) : null,
        after: snapshot(row!),
      },
    );
    return toView(row!, label);
  });
}

/** Removes one grant by id; access it gave ends with the next request. */
export async function removeGrant(
  db: Database,
  params: { tenantId: string; actorUserId: string; grantId: string },
): Promise<{ removed: GrantView }> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .delete(scopeGrants)
      .where(and(eq(scopeGrants.tenantId, params.tenantId), eq(scopeGrants.id, params.grantId)))
      .returning();
    if (!row)
      throw notFound(
        "grant_not_found",
        `No grant ${params.grantId} in this organisation; list grants with grants.list.`,
      );
    await recordAudit(
      tx,
      { tenantId: params.tenantId, actor: { type: "user", id: params.actorUserId } },
      {
        eventType: "grant",
        reason: "grant removed",
        before: snapshot(row),
        after: null,
      },
    );
    const label = await principalLabel(tx, params.tenantId, row.principalType, row.principalId);
    return { removed: toView(row, label ?? null) };
  });
}
