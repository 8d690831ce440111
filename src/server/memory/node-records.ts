import { sql, type SQL } from "drizzle-orm";
import { queryRows } from "~/db/raw";
import { memoryNodeRecordColumns, memoryNodes, type MemoryNodeRecord } from "~/db/schema";
import type { DbOrTx } from "~/db/types";

/** The record's properties with their columns, in select order. */
const RECORD_FIELDS = Object.entries(memoryNodeRecordColumns);
const RECORD_SELECT = sql.raw(RECORD_FIELDS.map(([, column]) => `"memory_nodes"."${column.name}"`).join(", "));

/**
 * Each column decoded by its own Drizzle column type, as Drizzle does, but without its generic row
 * mapper (an entity check and a path iterator per field): searches and context turns read tens to
 * hundreds of cards per call, and that mapping was ~7 % of a search's server CPU under load.
 */
function toRecord(row: Record<string, unknown>): MemoryNodeRecord {
  const record: Record<string, unknown> = {};
  for (const [property, column] of RECORD_FIELDS) {
    const value = row[column.name];
    record[property] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return record as MemoryNodeRecord;
}

/**
 * The record as one JSON array, in RECORD_FIELDS order, for statements that return cards inside a
 * JSON result (the full-text candidates carry their rows this way; see recordFromJson).
 */
export const NODE_RECORD_JSON = `json_build_array(${RECORD_FIELDS.map(([, column]) => `"memory_nodes"."${column.name}"`).join(", ")})`;

/**
 * A record from NODE_RECORD_JSON's array: JSON already holds the values as toRecord's decoders would
 * return them (arrays, numbers, booleans, parsed jsonb), except timestamps, which come as text.
 */
export function recordFromJson(values: readonly unknown[]): MemoryNodeRecord {
  const record: Record<string, unknown> = {};
  for (let i = 0; i < RECORD_FIELDS.length; i++) {
    const [property, column] = RECORD_FIELDS[i]!;
    const value = values[i];
    record[property] = value === null || value === undefined ? null : column.columnType === "PgTimestamp" ? new Date(value as string) : value;
  }
  return record as MemoryNodeRecord;
}

/** `select <record columns> from memory_nodes <rest>`: `rest` holds the where (tenant first), order and limit. */
export async function selectNodeRecords(db: DbOrTx, rest: SQL): Promise<MemoryNodeRecord[]> {
  const rows = await queryRows<Record<string, unknown>>(db, sql`select ${RECORD_SELECT} from ${memoryNodes} ${rest}`);
  return rows.map(toRecord);
}
