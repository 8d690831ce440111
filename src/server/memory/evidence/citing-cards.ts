import { and, arrayOverlaps, eq, inArray } from "drizzle-orm";
import { memoryNodes, type CardStatus } from "~/db/schema";
import type { DbOrTx } from "~/db/types";
import type { ScopePattern } from "../scope";
import { scopePatternsCondition } from "../store/scope-sql";

export type CitingCard = { id: string; title: string; kind: string; itemKey: string | null; status: CardStatus };

/** At most this many cards are read for one set of messages. */
const MAX_CITING = 500;

/**
 * For each of `messageIds`: the cards that cite it as evidence, oldest first — current ones unless
 * `statuses` says otherwise; in `readScopes` when given (a person's view), in any scope otherwise (the
 * system's). One statement for all the messages; the GIN index on the cards' sources serves `&&`.
 */
export async function cardsCitingMessages(
  db: DbOrTx,
  params: {
    tenantId: string;
    messageIds: readonly string[];
    readScopes?: readonly ScopePattern[];
    statuses?: readonly CardStatus[];
  },
): Promise<Map<string, CitingCard[]>> {
  const byMessage = new Map<string, CitingCard[]>();
  if (params.messageIds.length === 0) return byMessage;
  const cards = await db
    .select({
      id: memoryNodes.id,
      title: memoryNodes.title,
      kind: memoryNodes.kind,
      itemKey: memoryNodes.itemKey,
      status: memoryNodes.status,
      sources: memoryNodes.sourceMessageIds,
    })
    .from(memoryNodes)
    .where(
      and(
        eq(memoryNodes.tenantId, params.tenantId),
        params.statuses ? inArray(memoryNodes.status, [...params.statuses]) : eq(memoryNodes.status, "active"),
        params.readScopes ? scopePatternsCondition(params.readScopes) : undefined,
        arrayOverlaps(memoryNodes.sourceMessageIds, [...params.messageIds]),
      ),
    )
    .orderBy(memoryNodes.createdAt)
    .limit(MAX_CITING);
  const wanted = new Set(params.messageIds);
  for (const { sources, ...card } of cards) {
    for (const source of sources) {
      if (!wanted.has(source)) continue;
      const list = byMessage.get(source) ?? [];
      list.push(card);
      byMessage.set(source, list);
    }
  }
  return byMessage;
}
