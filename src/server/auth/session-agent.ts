import { and, eq, gt, isNull, or } from "drizzle-orm";
import type { DbOrTx } from "~/db/types";
import { apiKeys, DEFAULT_API_KEY_PERMISSIONS, defaultApiKeyScopes } from "~/db/schema";
import { listRecentMessages, type MemoryCallContext } from "~/server/memory";
import { buildAgentCallContext, type KeyReach } from "./permissions";

/** Whose agent a session's recall is built for, and with which key. */
export type SessionAgent = {
  /** The person the session belongs to (its latest message's user scope, else whoever captured it). */
  ownerUserId: string;
  /** The live key that captured the session's latest message; null when a default key of the owner stands in. */
  key: { id: string; name: string; prefix: string } | null;
};

/**
 * The call context the session's own agent gets for a turn in it, built exactly as the tool endpoint
 * builds it (buildAgentCallContext: key scopes ∩ the owner's grants, the turn's user and workspace):
 * with the key that captured the session's latest message while it still works, else with a key as
 * the owner would get by default (defaultApiKeyScopes). Null when the session names no person.
 */
export async function sessionAgentContext(
  db: DbOrTx,
  params: { tenantId: string; sessionId: string },
): Promise<{ ctx: MemoryCallContext; agent: SessionAgent } | null> {
  const [latest] = await listRecentMessages(db, { tenantId: params.tenantId, sessionId: params.sessionId, limit: 1 });
  if (!latest) return null;
  const capturedByKey = latest.capturedByType === "api_key" && latest.capturedById ? latest.capturedById : null;
  const [key] = capturedByKey
    ? await db
        .select()
        .from(apiKeys)
        .where(
          and(
            eq(apiKeys.tenantId, params.tenantId),
            eq(apiKeys.id, capturedByKey),
            isNull(apiKeys.revokedAt),
            or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, new Date())),
          ),
        )
    : [];
  const ownerUserId =
    latest.userScopeId ?? key?.ownerUserId ?? (latest.capturedByType === "user" ? latest.capturedById : null);
  if (!ownerUserId) return null;
  const reach: KeyReach = key ?? {
    id: `default-key-of-${ownerUserId}`,
    tenantId: params.tenantId,
    ownerUserId,
    scopes: defaultApiKeyScopes(ownerUserId),
    permissions: [...DEFAULT_API_KEY_PERMISSIONS],
  };
  const ctx = await buildAgentCallContext(db, reach, {
    sessionId: params.sessionId,
    userId: ownerUserId,
    workspaceId: latest.workspaceId ?? undefined,
  });
  return { ctx, agent: { ownerUserId, key: key ? { id: key.id, name: key.name, prefix: key.prefix } : null } };
}
