import { createHash, randomBytes } from "node:crypto";
import { and, eq, isNull, lt, or, sql } from "drizzle-orm";
import type { Database, DbOrTx } from "~/db/types";
import { apiKeys, memoryAuditEvents, type ApiKey, type ApiKeyPermission } from "~/db/schema";
import { ServiceError } from "~/server/errors";
import { newId } from "~/server/ids";

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
};

/** Creates a key and returns its secret — the only time the secret exists outside the caller's hands. */
export async function createApiKey(db: Database, input: CreateApiKeyInput): Promise<{ apiKey: ApiKey; secret: string }> {
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
      })
      .returning();
    await tx.insert(memoryAuditEvents).values({
      tenantId: input.tenantId,
      eventType: "key",
      actorType: input.createdByUserId ? "user" : "system",
      actorId: input.createdByUserId,
      reason: "api key created",
      after: { keyId: apiKey!.id, name: input.name, ownerUserId: input.ownerUserId, scopes: input.scopes, permissions: input.permissions },
    });
    return { apiKey: apiKey!, secret };
  });
}

/**
 * Resolves a presented secret to its key, refusing unknown, revoked and expired keys with a reason
 * the caller can act on. Revocation takes effect on the next request: nothing is cached.
 */
export async function verifyApiKey(db: DbOrTx, secret: string): Promise<ApiKey> {
  if (!secret.startsWith(API_KEY_SECRET_PREFIX)) {
    throw new ServiceError("UNAUTHORIZED", "malformed_api_key", `API keys start with "${API_KEY_SECRET_PREFIX}". Send "Authorization: Bearer <key>".`);
  }
  const [apiKey] = await db.select().from(apiKeys).where(eq(apiKeys.keyHash, hashApiKeySecret(secret))).limit(1);
  if (!apiKey) throw new ServiceError("UNAUTHORIZED", "unknown_api_key", "This API key is not known. Create one in the dashboard under Admin → API keys.");
  if (apiKey.revokedAt) throw new ServiceError("UNAUTHORIZED", "revoked_api_key", `API key ${apiKey.prefix}… was revoked. Ask an admin for a new key.`);
  if (apiKey.expiresAt && apiKey.expiresAt.getTime() <= Date.now()) {
    throw new ServiceError("UNAUTHORIZED", "expired_api_key", `API key ${apiKey.prefix}… expired at ${apiKey.expiresAt.toISOString()}. Create a new key.`);
  }
  await db
    .update(apiKeys)
    .set({ lastUsedAt: new Date() })
    .where(
      and(
        eq(apiKeys.tenantId, apiKey.tenantId),
        eq(apiKeys.id, apiKey.id),
        or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, sql`now() - make_interval(secs => ${LAST_USED_RESOLUTION_SECONDS})`)),
      ),
    );
  return apiKey;
}

export function hasPermission(apiKey: Pick<ApiKey, "permissions">, permission: ApiKeyPermission): boolean {
  return apiKey.permissions.includes(permission);
}
