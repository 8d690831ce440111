import type { DbOrTx } from "~/db/types";
import { NODE_STATUSES } from "~/db/schema";
import { normalizeItemKey } from "~/server/memory/canonical-key";
import { cardsCitingMessages } from "~/server/memory/citing-cards";
import type { KindRegistry } from "~/server/memory/custom-kinds";

/**
 * What the extractor must not propose again for a message: the cards that already cite it (the agent
 * turned it into memory during its turn, or an earlier pass did). A candidate is covered when such a
 * card has its kind or names the same item — "对花生过敏" saved by the agent as `food_avoidance:花生`
 * must not come back as a second card `avoid_ingredient:花生`. Cards in every status count: one the
 * user has since forgotten or corrected still means the message was handled, and proposing it again
 * would bring back what they deleted. One read for all the messages of an extraction run.
 */
export async function capturedFromMessages(db: DbOrTx, params: { tenantId: string; messageIds: readonly string[]; registry: KindRegistry }) {
  const citing = await cardsCitingMessages(db, { tenantId: params.tenantId, messageIds: params.messageIds, statuses: NODE_STATUSES });
  return (messageId: string, candidate: { kind: string; itemKey?: string }): boolean => {
    const cards = citing.get(messageId) ?? [];
    const kind = params.registry.resolve(candidate.kind)?.kind ?? candidate.kind;
    if (cards.some((card) => card.kind === kind)) return true;
    const item = candidate.itemKey ? normalizeItemKey(candidate.itemKey) : null;
    return item?.ok === true && cards.some((card) => card.itemKey === item.itemKey);
  };
}
