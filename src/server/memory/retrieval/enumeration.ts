import { and, inArray, notInArray, sql, type SQL } from "drizzle-orm";
import { memoryNodes, type MemoryCardRecord } from "~/db/schema";
import type { DbOrTx } from "~/db/types";
import { badRequest } from "~/server/errors";
import { selectCardRecords } from "../store/card-records";
import { fetchFilteredCards } from "./card-search";

/** Where an enumeration page ended: the last card's importance and id (the page order). */
type PagePosition = { importance: number; id: string };

export function encodeEnumerationCursor(position: PagePosition): string {
  return Buffer.from(JSON.stringify([position.importance, position.id])).toString("base64url");
}

function decodeEnumerationCursor(cursor: string): PagePosition {
  try {
    const [importance, id] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown[];
    if (
      typeof importance === "number" &&
      importance >= 0 &&
      importance <= 1 &&
      typeof id === "string" &&
      /^[^\u0000-\u001f\uD800-\uDFFF]{1,100}$/.test(id)
    )
      return { importance, id };
  } catch {
    // reported below
  }
  throw badRequest(
    "invalid_cursor",
    "cursor is not one this service gave out. Send the nextCursor of the previous memory_search answer unchanged, or leave it out to start from the first page.",
  );
}

export type EnumerationPage = {
  /** The page's cards, most important first. */
  rows: MemoryCardRecord[];
  /** Cards of other pages holding the same slots in other scopes: the conflict resolution needs them. */
  rivals: MemoryCardRecord[];
  nextCursor: string | null;
};

/**
 * One page of an enumeration ("list all my memories"), in a stable order (importance, then id) that a
 * cursor continues exactly, however many cards there are. Each page is conflict-resolved against the
 * cards that share its slots wherever they are listed, so a card shadowed by a more specific scope is
 * left out on every page, as it would be in one long list.
 */
export async function fetchEnumerationPage(
  db: DbOrTx,
  params: { where: SQL; cursor?: string; limit: number; now: Date },
): Promise<EnumerationPage> {
  const after = params.cursor ? decodeEnumerationCursor(params.cursor) : null;
  const position = after
    ? // importance is a real: compared as one, the value read back as JSON is exactly the stored one.
      sql`and (${memoryNodes.importance} < ${after.importance}::real or (${memoryNodes.importance} = ${after.importance}::real and ${memoryNodes.id} > ${after.id}))`
    : sql``;
  const fetched = await selectCardRecords(
    db,
    sql`where ${params.where} ${position} order by ${memoryNodes.importance} desc, ${memoryNodes.id} asc limit ${params.limit + 1}`,
  );
  const rows = fetched.slice(0, params.limit);
  const last = rows.at(-1);
  const keys = [...new Set(rows.map((r) => r.key))];
  const rivals = keys.length
    ? await fetchFilteredCards(db, {
        where: and(
          params.where,
          inArray(memoryNodes.key, keys),
          notInArray(
            memoryNodes.id,
            rows.map((r) => r.id),
          ),
        )!,
        now: params.now,
        limit: keys.length * 8,
      })
    : [];
  return {
    rows,
    rivals,
    nextCursor:
      fetched.length > params.limit && last
        ? encodeEnumerationCursor({ importance: last.importance, id: last.id })
        : null,
  };
}
