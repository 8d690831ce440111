import { and, eq, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { queryRows } from "~/db/raw";
import type { DbOrTx } from "~/db/types";
import { scopeGrants, tenantMembers, type ApiKey, type ApiKeyPermission, type TenantRole } from "~/db/schema";
import {
  intersectScopes,
  type MemoryCallContext,
  type MemoryScope,
  parseKeyScopePattern,
  parseScopePattern,
  scopeAllowed,
  type ScopePattern,
} from "~/server/memory";
import { SCOPE_TYPES } from "~/db/schema";

export type EffectiveScopes = { read: ScopePattern[]; write: ScopePattern[] };

/** What the scope and call-context checks read of a key (a stored key, or a stand-in: see sessionAgentContext). */
export type KeyReach = Pick<ApiKey, "id" | "tenantId" | "ownerUserId" | "scopes" | "permissions">;

export function hasPermission(apiKey: Pick<ApiKey, "permissions">, permission: ApiKeyPermission): boolean {
  return apiKey.permissions.includes(permission);
}

/** Admins (and the operator's CLI) manage the whole organisation's memory: every scope, read and write. */
export const EVERYTHING: ScopePattern[] = SCOPE_TYPES.map((type) => ({ type, id: "*" }));

/** The grants a new member starts with (stored as rows, so an admin can take them away). */
export const defaultMemberGrants = (userId: string) => [
  { scope: `user:${userId}`, canRead: true, canWrite: true },
  { scope: "session:*", canRead: true, canWrite: true },
  { scope: "global", canRead: true, canWrite: false },
];

/** A stored scope, or null for one that no longer parses (it grants nothing). Keys may hold `workspace:*`. */
function safePattern(text: string, parse: (text: string) => ScopePattern = parseScopePattern): ScopePattern | null {
  try {
    return parse(text);
  } catch {
    return null;
  }
}

type GrantRow = { scope: string; canRead: boolean; canWrite: boolean };

async function grantsOf(
  db: DbOrTx,
  tenantId: string,
  principalType: "user" | "api_key",
  principalId: string,
): Promise<EffectiveScopes> {
  const rows = await db
    .select({ scope: scopeGrants.scope, canRead: scopeGrants.canRead, canWrite: scopeGrants.canWrite })
    .from(scopeGrants)
    .where(
      and(
        eq(scopeGrants.tenantId, tenantId),
        eq(scopeGrants.principalType, principalType),
        eq(scopeGrants.principalId, principalId),
      ),
    );
  return scopesOf(rows);
}

function scopesOf(rows: readonly GrantRow[]): EffectiveScopes {
  const read: ScopePattern[] = [];
  const write: ScopePattern[] = [];
  for (const row of rows) {
    const pattern = safePattern(row.scope);
    if (!pattern) continue;
    if (row.canRead || row.canWrite) read.push(pattern);
    if (row.canWrite) write.push(pattern);
  }
  return { read, write };
}

/** What a person may read and write in an organisation: everything for admins, their grants otherwise. */
export async function effectiveUserScopes(
  db: DbOrTx,
  params: { tenantId: string; userId: string; role?: TenantRole },
): Promise<EffectiveScopes> {
  let role = params.role;
  if (!role) {
    const [member] = await db
      .select({ role: tenantMembers.role })
      .from(tenantMembers)
      .where(and(eq(tenantMembers.tenantId, params.tenantId), eq(tenantMembers.userId, params.userId)));
    if (!member) return { read: [], write: [] };
    role = member.role;
  }
  if (role === "admin") return { read: EVERYTHING, write: EVERYTHING };
  return grantsOf(db, params.tenantId, "user", params.userId);
}

type KeyRef = { tenantId: SQLWrapper | string; ownerUserId: SQLWrapper | string; id: SQLWrapper | string };
export type KeyGrantRow = [principal: string, scope: string, canRead: boolean, canWrite: boolean];

/**
 * The owner's membership, the owner's grants and the key's grants, as one JSON array of
 * `KeyGrantRow`s (text). A subquery, so the agent's key lookup can carry it (one round trip per call).
 */
export function keyGrantRowsSql(key: KeyRef): SQL {
  return sql`(select coalesce(json_agg(json_build_array(g.principal, g.scope, g.can_read, g.can_write)), '[]')::text from (
        select 'member' as principal, ${tenantMembers.role} as scope, false as can_read, false as can_write
          from ${tenantMembers} where ${tenantMembers.tenantId} = ${key.tenantId} and ${tenantMembers.userId} = ${key.ownerUserId}
        union all
        select ${scopeGrants.principalType}, ${scopeGrants.scope}, ${scopeGrants.canRead}, ${scopeGrants.canWrite}
          from ${scopeGrants}
         where ${scopeGrants.tenantId} = ${key.tenantId}
           and ((${scopeGrants.principalType} = 'user' and ${scopeGrants.principalId} = ${key.ownerUserId})
             or (${scopeGrants.principalType} = 'api_key' and ${scopeGrants.principalId} = ${key.id}))) g)`;
}

/**
 * The scopes an API key reaches before its permissions are applied: the key's own scopes (and
 * grants made to the key) intersected with its owner's current grants. `write` never holds `global`
 * (agents never write it). Read fresh on every call, so a narrowed grant narrows every key at once.
 */
export function keyScopeLimitsFrom(apiKey: Pick<KeyReach, "scopes">, grantRowsJson: string): EffectiveScopes {
  const rows = JSON.parse(grantRowsJson) as KeyGrantRow[];
  const grants = (principal: string) =>
    rows.filter((r) => r[0] === principal).map(([, scope, canRead, canWrite]) => ({ scope, canRead, canWrite }));
  const role = rows.find((r) => r[0] === "member")?.[1] as TenantRole | undefined;
  const owner: EffectiveScopes = !role
    ? { read: [], write: [] }
    : role === "admin"
      ? { read: EVERYTHING, write: EVERYTHING }
      : scopesOf(grants("user"));
  const keyGrants = scopesOf(grants("api_key"));
  const own = apiKey.scopes
    .map((text) => safePattern(text, parseKeyScopePattern))
    .filter((p): p is ScopePattern => p !== null);
  return {
    read: intersectScopes([...own, ...keyGrants.read], owner.read),
    write: intersectScopes([...own, ...keyGrants.write], owner.write).filter((p) => p.type !== "global"),
  };
}

export async function keyScopeLimits(db: DbOrTx, apiKey: KeyReach): Promise<EffectiveScopes> {
  const [row] = await queryRows<{ grants: string }>(db, sql`select ${keyGrantRowsSql(apiKey)} as grants`);
  return keyScopeLimitsFrom(apiKey, row?.grants ?? "[]");
}

/**
 * A key's named scopes that reach nothing now, because its owner has no grant there. They are kept (a
 * later grant makes them work); whoever creates the key is told. A wildcard (`workspace:*`) means
 * "whatever the owner is granted" and is never reported.
 */
export async function keyScopesWithoutReach(db: DbOrTx, apiKey: ApiKey): Promise<string[]> {
  const reach = await keyScopeLimits(db, apiKey);
  return apiKey.scopes.filter((text) => {
    const scope = safePattern(text, parseKeyScopePattern);
    if (scope?.id === "*") return false;
    return !scope || !reach.read.some((p) => p.type === scope.type && (p.id === "*" || p.id === scope.id));
  });
}

/**
 * What an API key may do, checked at use: the key's own scopes (and grants made to the key),
 * intersected with its owner's current grants — shrinking a person's grants shrinks their keys at
 * once. Writing needs the key's `memory:write` permission; agents never write `global`.
 */
export async function effectiveKeyScopes(
  db: DbOrTx,
  apiKey: KeyReach,
  knownLimits?: EffectiveScopes,
): Promise<EffectiveScopes> {
  const limits = knownLimits ?? (await keyScopeLimits(db, apiKey));
  const read = hasPermission(apiKey, "memory:read") || hasPermission(apiKey, "memory:write") ? limits.read : [];
  const write = hasPermission(apiKey, "memory:write") ? limits.write : [];
  return { read, write };
}

/** A person acting in the dashboard: explicit by nature (they typed it), may forget, never forget-all by accident. */
export async function buildUserCallContext(
  db: DbOrTx,
  params: { tenantId: string; userId: string; role: TenantRole },
): Promise<MemoryCallContext> {
  const scopes = await effectiveUserScopes(db, params);
  return {
    tenantId: params.tenantId,
    actor: { type: "user", id: params.userId },
    readScopes: scopes.read,
    writeScopes: scopes.write,
    defaults: { user: { type: "user", id: params.userId } },
    trustedMessageIds: [],
    forgetIntent: true,
    forgetAllIntent: false,
  };
}

export type AgentTurn = {
  sessionId?: string;
  workspaceId?: string;
  /** Whose profile this turn is about; defaults to the key's owner. */
  userId?: string;
  trustedMessageIds?: string[];
  forgetIntent?: boolean;
  forgetAllIntent?: boolean;
  toolCallId?: string;
};

/** An agent's call: key scopes ∩ owner grants, and the turn's defaults only where the key may read them. */
export async function buildAgentCallContext(
  db: DbOrTx,
  apiKey: KeyReach,
  turn: AgentTurn = {},
  knownLimits?: EffectiveScopes,
): Promise<MemoryCallContext> {
  const scopes = await effectiveKeyScopes(db, apiKey, knownLimits);
  const readable = (scope: MemoryScope | undefined) => (scope && scopeAllowed(scope, scopes.read) ? scope : undefined);
  // The scopes the turn names; the user defaults to the key's owner.
  const named: Record<"user" | "session" | "workspace", MemoryScope | undefined> = {
    user: turn.userId ? { type: "user", id: turn.userId } : undefined,
    session: turn.sessionId ? { type: "session", id: turn.sessionId } : undefined,
    workspace: turn.workspaceId ? { type: "workspace", id: turn.workspaceId } : undefined,
  };
  const unreadableDefaults = Object.values(named).filter(
    (scope): scope is MemoryScope => scope !== undefined && !readable(scope),
  );
  return {
    tenantId: apiKey.tenantId,
    actor: { type: "api_key", id: apiKey.id },
    readScopes: scopes.read,
    writeScopes: scopes.write,
    defaults: {
      user: readable(named.user ?? { type: "user", id: apiKey.ownerUserId }),
      session: readable(named.session),
      workspace: readable(named.workspace),
    },
    ...(unreadableDefaults.length ? { unreadableDefaults } : {}),
    trustedMessageIds: turn.trustedMessageIds ?? [],
    forgetIntent: turn.forgetIntent ?? false,
    forgetAllIntent: turn.forgetAllIntent ?? false,
    toolCallId: turn.toolCallId ?? null,
  };
}
