import { and, arrayContains, eq } from "drizzle-orm";
import { memoryNodes } from "~/db/schema";
import type { DbOrTx } from "~/db/types";
import { normalizeItemKey } from "~/server/memory/canonical-key";
import type { KindRegistry } from "~/server/memory/custom-kinds";

/**
 * What the extractor must not propose again for one message: the current cards that already cite it
 * (the agent turned it into memory during its turn, or an earlier pass did). A candidate is covered
 * when such a card has its kind or names the same item — "对花生过敏" saved by the agent as
 * `food_avoidance:花生` must not come back as a second card `avoid_ingredient:花生`.
 */
export async function capturedFromMessage(db: DbOrTx, params: { tenantId: string; messageId: string; registry: KindRegistry }) {
  const rows = await db
    .select({ kind: memoryNodes.kind, itemKey: memoryNodes.itemKey })
    .from(memoryNodes)
    .where(and(eq(memoryNodes.tenantId, params.tenantId), eq(memoryNodes.status, "active"), arrayContains(memoryNodes.sourceMessageIds, [params.messageId])));
  const kinds = new Set(rows.map((r) => r.kind));
  const items = new Set(rows.flatMap((r) => (r.itemKey ? [r.itemKey] : [])));
  return (candidate: { kind: string; itemKey?: string }): boolean => {
    const kind = params.registry.resolve(candidate.kind)?.kind ?? candidate.kind;
    if (kinds.has(kind)) return true;
    const item = candidate.itemKey ? normalizeItemKey(candidate.itemKey) : null;
    return item?.ok === true && items.has(item.itemKey);
  };
}
