import { sql, type SQL } from "drizzle-orm";
import { jsonValue, queryRows } from "~/db/raw";
import { memoryCardRecordColumns, memoryNodes, type MemoryCardRecord } from "~/db/schema";
import type { DbOrTx } from "~/db/types";

/** The record's properties with their columns, in select order. */
const RECORD_FIELDS = Object.entries(memoryCardRecordColumns);
const RECORD_COLUMN_LIST = RECORD_FIELDS.map(([, column]) => `"memory_nodes"."${column.name}"`).join(", ");

/**
 * The record as one JSON array, in RECORD_FIELDS order. Cards are read this way, not as columns: a
 * row then costs the driver one text value and the server one JSON.parse, where ~40 columns cost a
 * parse each, a Drizzle decoder each and a Date per timestamp — reading a turn's 200 standing cards
 * as columns was a quarter of memory_context's server CPU (docs/history/performance-rounds.md, round 9).
 */
export const CARD_RECORD_JSON = `json_build_array(${RECORD_COLUMN_LIST})`;

/**
 * CARD_RECORD_JSON with the card's hotness appended (memory_node_usage; 0 when never recalled), for the
 * ranked search paths that boost by it. One primary-key probe per record, so only where ranking needs it.
 */
const HOTNESS_OF_ROW = `coalesce((select u.hotness from memory_node_usage u where u.tenant_id = "memory_nodes"."tenant_id" and u.node_id = "memory_nodes"."id"), 0)`;
export const RANKED_CARD_RECORD_JSON = `json_build_array(${RECORD_COLUMN_LIST}, ${HOTNESS_OF_ROW})`;

/**
 * A record from CARD_RECORD_JSON's array: JSON already holds the values as Drizzle's column decoders
 * would return them (arrays, numbers, booleans, parsed jsonb), except timestamps, which come as text.
 * A row read on its own comes as text; one inside a json_agg result, already parsed.
 */
export function recordFromJson(json: string | readonly unknown[]): MemoryCardRecord {
  const values = jsonValue<readonly unknown[]>(json);
  const record: Record<string, unknown> = {};
  for (let i = 0; i < RECORD_FIELDS.length; i++) {
    const [property, column] = RECORD_FIELDS[i]!;
    const value = values[i];
    record[property] =
      value === null || value === undefined
        ? null
        : column.columnType === "PgTimestamp"
          ? new Date(value as string)
          : value;
  }
  // RANKED_CARD_RECORD_JSON's extra element.
  if (values.length > RECORD_FIELDS.length) record.hotness = values[RECORD_FIELDS.length];
  return record as MemoryCardRecord;
}

/** The record's columns, for an inner select; the outer one builds RECORD_OF_ROW over the rows it keeps. */
export const RECORD_COLUMNS = sql.raw(RECORD_COLUMN_LIST);
export const RECORD_OF_ROW = sql.raw(`${CARD_RECORD_JSON} as record`);
const RANKED_RECORD_OF_ROW = sql.raw(`${RANKED_CARD_RECORD_JSON} as record`);

/**
 * `select <record> from memory_nodes <rest>`: `rest` holds the where (tenant first), order and limit.
 * The JSON is built over the limited rows: Postgres computes a select list before sorting, so built
 * in the same select it would be made for every row that matched (a turn's ~1,200 standing
 * candidates for its 200). An outer query that only projects keeps the subquery's order (a test
 * checks order and limit against Drizzle's own select).
 */
export async function selectCardRecords(
  db: DbOrTx,
  rest: SQL,
  options: { withHotness?: boolean } = {},
): Promise<MemoryCardRecord[]> {
  const record = options.withHotness ? RANKED_RECORD_OF_ROW : RECORD_OF_ROW;
  const rows = await queryRows<{ record: string | unknown[] }>(
    db,
    sql`select ${record} from (select ${RECORD_COLUMNS} from ${memoryNodes} ${rest}) as memory_nodes`,
  );
  return rows.map((row) => recordFromJson(row.record));
}
