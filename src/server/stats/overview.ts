import { and, count, countDistinct, eq, gt, isNull, or, sql, type SQL } from "drizzle-orm";
import type { DbOrTx } from "~/db/types";
import { apiKeys, memoryMessages, memoryNodes, tenantMembers } from "~/db/schema";
import { anyOf } from "~/db/any-of";
import { type ScopePattern, scopePatternsCondition } from "~/server/memory";
import { readableSessions } from "~/server/tree";

export type TenantOverview = {
  activeMemories: number;
  messages: number;
  sessions: number;
  activeKeys: number;
  members: number;
};

/** Messages of the sessions the viewer may read, as the sessions pages show them (session:* or granted ids). */
function readableMessages(readScopes: readonly ScopePattern[]): SQL {
  const sessions = readableSessions({ readScopes: [...readScopes] });
  if (!sessions) return sql`true`;
  return sessions.length ? anyOf(memoryMessages.sessionId, sessions) : sql`false`;
}

/**
 * Headline numbers of one organisation's overview page, as far as the viewer sees: cards in the
 * scopes they may read, messages of the sessions they may read, keys they manage (an admin all of the
 * organisation's, a member their own) that still work. Members saw the whole organisation's totals,
 * expired keys included, while every page behind them showed less.
 */
export async function getTenantOverview(
  db: DbOrTx,
  params: { tenantId: string; readScopes: readonly ScopePattern[]; keysOf?: string },
): Promise<TenantOverview> {
  const { tenantId } = params;
  const now = new Date();
  const [[nodes], [messages], [keys], [members]] = await Promise.all([
    db
      .select({ n: count() })
      .from(memoryNodes)
      .where(
        and(
          eq(memoryNodes.tenantId, tenantId),
          scopePatternsCondition(params.readScopes),
          eq(memoryNodes.status, "active"),
        ),
      ),
    db
      .select({ n: count(), sessions: countDistinct(memoryMessages.sessionId) })
      .from(memoryMessages)
      .where(and(eq(memoryMessages.tenantId, tenantId), readableMessages(params.readScopes))),
    db
      .select({ n: count() })
      .from(apiKeys)
      .where(
        and(
          eq(apiKeys.tenantId, tenantId),
          isNull(apiKeys.revokedAt),
          or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, now)),
          params.keysOf ? eq(apiKeys.ownerUserId, params.keysOf) : undefined,
        ),
      ),
    db.select({ n: count() }).from(tenantMembers).where(eq(tenantMembers.tenantId, tenantId)),
  ]);
  return {
    activeMemories: nodes?.n ?? 0,
    messages: messages?.n ?? 0,
    sessions: messages?.sessions ?? 0,
    activeKeys: keys?.n ?? 0,
    members: members?.n ?? 0,
  };
}
