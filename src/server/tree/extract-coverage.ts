import { and, eq, gte, inArray, or, sql } from "drizzle-orm";
import type { DbOrTx } from "~/db/types";
import { memoryNodes, CARD_STATUSES } from "~/db/schema";
import {
  cardsCitingMessages,
  ERASED_KINDS_FIELD,
  type KindRegistry,
  type MemoryScope,
  normalizeItemKey,
  scopePatternsCondition,
  storedKindNames,
} from "~/server/memory";

/** The extractor's actor id: its own cards are no one else's decision about a slot. */
export const EXTRACTOR_ACTOR_ID = "extractor";

export { ERASED_KINDS_FIELD };

type Candidate = { kind: string; itemKey?: string };
type ExtractedMessage = { id: string; metadata: Record<string, unknown> };

/** The candidate's kind as stored (a synonym resolved). */
const kindOf = (registry: KindRegistry, candidate: Candidate) =>
  registry.resolve(candidate.kind)?.kind ?? candidate.kind;

const itemOf = (candidate: Candidate) => {
  const item = candidate.itemKey ? normalizeItemKey(candidate.itemKey) : null;
  return item?.ok ? item.itemKey : null;
};

/**
 * What the extractor must not propose again for a message: the cards that already cite it (the agent
 * turned it into memory during its turn, or an earlier pass did). A candidate is covered when such a
 * card has its kind or names the same item — "对花生过敏" saved by the agent as `food_avoidance:花生`
 * must not come back as a second card `avoid_ingredient:花生`. Cards in every status count: one the
 * user has since forgotten or corrected still means the message was handled, and proposing it again
 * would bring back what they deleted; so do the kinds of cards erased since (the message keeps their
 * names, `ERASED_KINDS_FIELD`). One read for all the messages of an extraction run.
 */
export async function capturedFromMessages(
  db: DbOrTx,
  params: { tenantId: string; messages: readonly ExtractedMessage[]; registry: KindRegistry },
) {
  const citing = await cardsCitingMessages(db, {
    tenantId: params.tenantId,
    messageIds: params.messages.map((m) => m.id),
    statuses: CARD_STATUSES,
  });
  return (message: ExtractedMessage, candidate: Candidate, siblings: readonly Candidate[] = [candidate]): boolean => {
    const cards = citing.get(message.id) ?? [];
    const kind = kindOf(params.registry, candidate);
    const erased = message.metadata[ERASED_KINDS_FIELD];
    if (
      Array.isArray(erased) &&
      erased.some((name) => typeof name === "string" && kindOf(params.registry, { kind: name }) === kind)
    )
      return true;
    const item = itemOf(candidate);
    if (item !== null && cards.some((card) => card.itemKey === item)) return true;
    // A card of the kind covers the candidate, unless it is another item the same message names
    // ("对花生过敏，别放香菜": the agent's 花生 card does not mean 香菜 was handled).
    const otherItems = new Set(siblings.map(itemOf).filter((other) => other !== null && other !== item));
    return cards.some(
      (card) =>
        kindOf(params.registry, { kind: card.kind }) === kind &&
        !(card.itemKey !== null && otherItems.has(card.itemKey)),
    );
  };
}

/**
 * Whether someone other than the extractor decided about this slot (kind, and item when known) since
 * `since`, in the scopes given: wrote a card of it, or forgot / expired one. The extractor runs a while
 * after a message arrives; by then the agent may have saved the fact in its own words without citing
 * the message (a second card, or a rewording over the agent's, would follow), or the user may have
 * asked to forget it (extracting it would bring it back).
 */
export async function slotDecidedSince(
  db: DbOrTx,
  params: {
    tenantId: string;
    scopes: readonly MemoryScope[];
    registry: KindRegistry;
    candidate: Candidate;
    since: Date;
  },
): Promise<boolean> {
  if (params.scopes.length === 0) return false;
  const kind = kindOf(params.registry, params.candidate);
  const item = itemOf(params.candidate);
  const since = params.since;
  const [row] = await db
    .select({ id: memoryNodes.id })
    .from(memoryNodes)
    .where(
      and(
        eq(memoryNodes.tenantId, params.tenantId),
        scopePatternsCondition(params.scopes),
        inArray(memoryNodes.kind, storedKindNames(kind)),
        item === null ? undefined : eq(memoryNodes.itemKey, item),
        or(
          and(
            eq(memoryNodes.status, "active"),
            gte(memoryNodes.updatedAt, since),
            sql`not (${memoryNodes.updatedByType} = 'system' and ${memoryNodes.updatedById} is not distinct from ${EXTRACTOR_ACTOR_ID})`,
          ),
          and(inArray(memoryNodes.status, ["deleted", "expired"]), gte(memoryNodes.endedAt, since)),
        ),
      ),
    )
    .limit(1);
  return row !== undefined;
}
