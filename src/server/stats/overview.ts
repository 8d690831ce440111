import { and, count, countDistinct, eq, isNull } from "drizzle-orm";
import type { DbOrTx } from "~/db/types";
import { apiKeys, memoryMessages, memoryNodes, tenantMembers } from "~/db/schema";

export type TenantOverview = { activeMemories: number; messages: number; sessions: number; activeKeys: number; members: number };

/** Headline numbers for one organisation's overview page. */
export async function getTenantOverview(db: DbOrTx, tenantId: string): Promise<TenantOverview> {
  const [[nodes], [messages], [keys], [members]] = await Promise.all([
    db.select({ n: count() }).from(memoryNodes).where(and(eq(memoryNodes.tenantId, tenantId), eq(memoryNodes.status, "active"))),
    db
      .select({ n: count(), sessions: countDistinct(memoryMessages.sessionId) })
      .from(memoryMessages)
      .where(eq(memoryMessages.tenantId, tenantId)),
    db.select({ n: count() }).from(apiKeys).where(and(eq(apiKeys.tenantId, tenantId), isNull(apiKeys.revokedAt))),
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
