import { createHash, randomBytes } from "node:crypto";
import { and, asc, eq, isNull, lt, or, sql } from "drizzle-orm";
import { z } from "zod";
import type { Database, DbOrTx } from "~/db/types";
import {
  API_KEY_PERMISSIONS,
  apiKeys,
  defaultApiKeyScopes,
  memoryAuditEvents,
  tenantMembers,
  users,
  type ApiKey,
  type ApiKeyPermission,
  type TenantRole,
} from "~/db/schema";
import { badRequest, forbidden, notFound, ServiceError } from "~/server/errors";
import { newId } from "~/server/ids";
import { formatScope, parseKeyScopePattern, recordAudit } from "~/server/memory";
import { parseInput } from "~/server/validation";
import { keyScopesWithoutReach } from "./permissions";

/** Secrets look like `mem_live_<40 base62 chars>`; the prefix makes leaked keys easy to grep for. */
export const API_KEY_SECRET_PREFIX = "mem_live_";
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** last_used_at is refreshed at most this often, so a busy key doesn't cost a write per request. */
const LAST_USED_RESOLUTION_SECONDS = 60;

export const hashApiKeySecret = (secret: string) => createHash("sha256").update(secret).digest("hex");

function generateSecret(): string {
  let body = "";
  // Rejection sampling keeps every character equally likely.
  while (body.length < 40) {
    for (const byte of randomBytes(48)) {
      if (byte < 248 && body.length < 40) body += BASE62[byte % 62];
    }
  }
  return `${API_KEY_SECRET_PREFIX}${body}`;
}

export type CreateApiKeyInput = {
  tenantId: string;
  ownerUserId: string;
  createdByUserId: string | null;
  name: string;
  scopes: string[];
  permissions: ApiKeyPermission[];
  expiresAt?: Date | null;
  /** Calls per minute for this key; null/undefined uses RATE_LIMIT_PER_MINUTE. */
  rateLimitPerMinute?: number | null;
};

/** Creates a key and returns its secret — the only time the secret exists outside the caller's hands. */
export async function createApiKey(
  db: Database,
  input: CreateApiKeyInput,
): Promise<{ apiKey: ApiKey; secret: string }> {
  const secret = generateSecret();
  return db.transaction(async (tx) => {
    const [apiKey] = await tx
      .insert(apiKeys)
      .values({
        tenantId: input.tenantId,
        id: newId("key"),
        keyHash: hashApiKeySecret(secret),
        prefix: secret.slice(0, API_KEY_SECRET_PREFIX.length + 6),
        name: input.name,
        ownerUserId: input.ownerUserId,
        createdByUserId: input.createdByUserId,
        scopes: input.scopes,
        permissions: input.permissions,
        expiresAt: input.expiresAt ?? null,
        rateLimitPerMinute: input.rateLimitPerMinute ?? null,
      })
      .returning();
    await tx.insert(memoryAuditEvents).values({
      tenantId: input.tenantId,
      eventType: "key",
      actorType: input.createdByUserId ? "user" : "system",
      actorId: input.createdByUserId,
      reason: "api key created",
      after: {
        keyId: apiKey!.id,
        name: input.name,
        ownerUserId: input.ownerUserId,
        scopes: input.scopes,
        permissions: input.permissions,
      },
    });
    return { apiKey: apiKey!, secret };
  });
}

/** The statement's side of a presented secret: its hash, after the shape check every agent call gets. */
export function presentedKeyHash(secret: string): string {
  if (!secret.startsWith(API_KEY_SECRET_PREFIX)) {
    throw new ServiceError(
      "UNAUTHORIZED",
      "malformed_api_key",
      `API keys start with "${API_KEY_SECRET_PREFIX}". Send "Authorization: Bearer <key>".`,
    );
  }
  return hashApiKeySecret(secret);
}

/**
 * Refuses unknown, revoked and expired keys with a reason the caller can act on, and notes the use
 * (at most once a minute per key). Revocation takes effect on the next request: nothing is cached.
 */
export async function admitApiKey(db: DbOrTx, apiKey: ApiKey | undefined): Promise<ApiKey> {
  if (!apiKey)
    throw new ServiceError(
      "UNAUTHORIZED",
      "unknown_api_key",
      "This API key is not known. Create one in the dashboard under Admin → API keys.",
    );
  if (apiKey.revokedAt)
    throw new ServiceError(
      "UNAUTHORIZED",
      "revoked_api_key",
      `API key ${apiKey.prefix}… was revoked. Ask an admin for a new key.`,
    );
  if (apiKey.expiresAt && apiKey.expiresAt.getTime() <= Date.now()) {
    throw new ServiceError(
      "UNAUTHORIZED",
      "expired_api_key",
      `API key ${apiKey.prefix}… expired at ${apiKey.expiresAt.toISOString()}. Create a new key.`,
    );
  }
  // Most calls come within the resolution of the last one: skip the statement, not just the write.
  if (apiKey.lastUsedAt && Date.now() - apiKey.lastUsedAt.getTime() < LAST_USED_RESOLUTION_SECONDS * 1000)
    return apiKey;
  await db
    .update(apiKeys)
    .set({ lastUsedAt: new Date() })
    .where(
      and(
        eq(apiKeys.tenantId, apiKey.tenantId),
        eq(apiKeys.id, apiKey.id),
        or(
          isNull(apiKeys.lastUsedAt),
          lt(apiKeys.lastUsedAt, sql`now() - make_interval(secs => ${LAST_USED_RESOLUTION_SECONDS})`),
        ),
      ),
    );
  return apiKey;
}

/** Resolves a presented secret to its key (see `admitApiKey` for what is refused). */
export async function verifyApiKey(db: DbOrTx, secret: string): Promise<ApiKey> {
  const [apiKey] = await db
    .select()
    .from(apiKeys)
    .where(eq(apiKeys.keyHash, presentedKeyHash(secret)))
    .limit(1);
  return admitApiKey(db, apiKey);
}

// ---- managing keys (dashboard, CLI) ---------------------------------------------------------------

/** A key as people see it in lists: never the hash, never the secret. */
export type ApiKeyView = {
  id: string;
  prefix: string;
  name: string;
  ownerUserId: string;
  ownerEmail: string | null;
  createdByUserId: string | null;
  scopes: string[];
  permissions: ApiKeyPermission[];
  rateLimitPerMinute: number | null;
  status: "active" | "revoked" | "expired";
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
  createdAt: string;
};

export function toApiKeyView(key: ApiKey, ownerEmail: string | null = null, now = new Date()): ApiKeyView {
  return {
    id: key.id,
    prefix: key.prefix,
    name: key.name,
    ownerUserId: key.ownerUserId,
    ownerEmail,
    createdByUserId: key.createdByUserId,
    scopes: key.scopes,
    permissions: key.permissions,
    rateLimitPerMinute: key.rateLimitPerMinute,
    status: key.revokedAt
      ? "revoked"
      : key.expiresAt && key.expiresAt.getTime() <= now.getTime()
        ? "expired"
        : "active",
    expiresAt: key.expiresAt?.toISOString() ?? null,
    revokedAt: key.revokedAt?.toISOString() ?? null,
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
    createdAt: key.createdAt.toISOString(),
  };
}

/** Keys of an organisation (or of one owner), newest first. Hashes never leave this function. */
export async function listApiKeys(
  db: DbOrTx,
  params: { tenantId: string; ownerUserId?: string },
): Promise<ApiKeyView[]> {
  const rows = await db
    .select({ key: apiKeys, ownerEmail: users.email })
    .from(apiKeys)
    .leftJoin(users, eq(users.id, apiKeys.ownerUserId))
    .where(
      and(
        eq(apiKeys.tenantId, params.tenantId),
        params.ownerUserId ? eq(apiKeys.ownerUserId, params.ownerUserId) : undefined,
      ),
    )
    .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id));
  const now = new Date();
  return rows.reverse().map((row) => toApiKeyView(row.key, row.ownerEmail, now));
}

/** What a person may send to create a key (keys.create, CLI). */
export const apiKeyCreateSchema = z.object({
  name: z.string().trim().min(1).max(100),
  /** Whose key it is (whose grants bound it); default: the caller. Only admins may name someone else. */
  ownerUserId: z.string().min(1).max(100).optional(),
  /** Default: the owner's own user scope and any session. */
  scopes: z.array(z.string().trim().min(1).max(220)).max(20).optional(),
  permissions: z.array(z.enum(API_KEY_PERMISSIONS)).min(1).max(API_KEY_PERMISSIONS.length),
  expiresAt: z.iso.datetime({ offset: true }).nullable().optional(),
  rateLimitPerMinute: z.number().int().min(1).max(100_000).nullable().optional(),
});
export type ApiKeyCreateInput = z.input<typeof apiKeyCreateSchema>;

/** A key's scopes as given (checked and written canonically, once each), or the owner's defaults. */
export const keyScopesFrom = (texts: readonly string[] | undefined, ownerUserId: string): string[] => [
  ...new Set((texts ?? defaultApiKeyScopes(ownerUserId)).map((text) => formatScope(parseKeyScopePattern(text)))),
];

export async function memberRole(db: DbOrTx, tenantId: string, userId: string): Promise<TenantRole | undefined> {
  const [row] = await db
    .select({ role: tenantMembers.role })
    .from(tenantMembers)
    .where(and(eq(tenantMembers.tenantId, tenantId), eq(tenantMembers.userId, userId)));
  return row?.role;
}

/**
 * Creates a key on a person's behalf, enforcing who may: anyone for themselves, admins for any
 * member (a service agent's key is owned by a member). Returns the secret once. Scopes beyond the
 * owner's grants are accepted but unusable: every call intersects them with the owner's grants.
 */
export async function issueApiKey(
  db: Database,
  params: { tenantId: string; actorUserId: string; input: ApiKeyCreateInput },
): Promise<{
  apiKey: ApiKeyView;
  secret: string;
  /** Scopes its owner has no grant for yet: they reach nothing now. */ scopesWithoutReach: string[];
}> {
  const input = parseInput(apiKeyCreateSchema, params.input, "The key");
  const ownerUserId = input.ownerUserId ?? params.actorUserId;
  const actorRole = await memberRole(db, params.tenantId, params.actorUserId);
  if (!actorRole) throw forbidden("not_a_member", "You are not a member of this organisation.");
  if (ownerUserId !== params.actorUserId && actorRole !== "admin") {
    throw forbidden(
      "admin_required",
      "Only admins create keys for other people; create the key for yourself (omit ownerUserId).",
    );
  }
  if (ownerUserId !== params.actorUserId && !(await memberRole(db, params.tenantId, ownerUserId))) {
    throw badRequest(
      "unknown_owner",
      `User ${ownerUserId} is not a member of this organisation; add them first, or own the key yourself.`,
    );
  }
  // The limit protects the organisation from a runaway agent: a member may not lift their own.
  if (input.rateLimitPerMinute != null && actorRole !== "admin") {
    throw forbidden(
      "admin_required",
      "Only admins set a key's own rate limit; omit rateLimitPerMinute (the organisation's default applies) or ask an admin.",
    );
  }
  const scopes = keyScopesFrom(input.scopes, ownerUserId);
  const expiresAt = input.expiresAt ? new Date(input.expiresAt) : null;
  if (expiresAt && expiresAt.getTime() <= Date.now())
    throw badRequest(
      "expires_in_past",
      `expiresAt ${expiresAt.toISOString()} is already past; send a future time or omit it.`,
    );
  const { apiKey, secret } = await createApiKey(db, {
    tenantId: params.tenantId,
    ownerUserId,
    createdByUserId: params.actorUserId,
    name: input.name,
    scopes,
    permissions: [...new Set(input.permissions)],
    expiresAt,
    rateLimitPerMinute: input.rateLimitPerMinute ?? null,
  });
  return { apiKey: toApiKeyView(apiKey), secret, scopesWithoutReach: await keyScopesWithoutReach(db, apiKey) };
}

/**
 * Revokes a key: effective on its next request (authentication reads the row every time). Members
 * revoke their own keys, admins any key of the organisation, the operator at the CLI
 * (`actorUserId: null`, audited as the system) any key; revoking twice changes nothing.
 */
export async function revokeApiKey(
  db: Database,
  params: { tenantId: string; keyId: string; actorUserId: string | null },
): Promise<ApiKeyView> {
  return db.transaction(async (tx) => {
    const [key] = await tx
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.tenantId, params.tenantId), eq(apiKeys.id, params.keyId)))
      .for("update");
    if (!key)
      throw notFound("key_not_found", `No API key ${params.keyId} in this organisation; list keys with keys.list.`);
    if (params.actorUserId !== null) {
      const role = await memberRole(tx, params.tenantId, params.actorUserId);
      if (!role || (role !== "admin" && key.ownerUserId !== params.actorUserId)) {
        throw forbidden("not_your_key", "Members may revoke only their own keys; ask an admin to revoke this one.");
      }
    }
    if (key.revokedAt) return toApiKeyView(key);
    const [revoked] = await tx
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(and(eq(apiKeys.tenantId, params.tenantId), eq(apiKeys.id, key.id)))
      .returning();
    const actor =
      params.actorUserId === null
        ? { type: "system" as const, id: null }
        : { type: "user" as const, id: params.actorUserId };
    await recordAudit(
      tx,
      { tenantId: params.tenantId, actor },
      {
        eventType: "key",
        reason: "api key revoked",
        before: { keyId: key.id, name: key.name, ownerUserId: key.ownerUserId, revokedAt: null },
        after: {
          keyId: key.id,
          name: key.name,
          ownerUserId: key.ownerUserId,
          revokedAt: revoked!.revokedAt?.toISOString(),
        },
      },
    );
    return toApiKeyView(revoked!);
  });
}
