import type { SQL } from "drizzle-orm";
import type { DbOrTx } from "./types";

/**
 * Runs a raw SQL query and returns its rows. postgres.js answers with an array, PGlite with
 * `{ rows }`; callers should not care which.
 */
export async function queryRows<T extends Record<string, unknown>>(db: DbOrTx, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown;
  if (Array.isArray(result)) return result as T[];
  return ((result as { rows?: T[] }).rows ?? []) as T[];
}

/**
 * A json / jsonb value read by a raw query: both drivers hand JSON over as text (JSON_AS_TEXT in
 * client.ts), while a value built inside another JSON value arrives already parsed.
 */
export function jsonValue<T>(value: string | T): T {
  return typeof value === "string" ? (JSON.parse(value) as T) : value;
}

/** A text[] literal of these values (bound as one parameter: `${textArrayLiteral(values)}::text[]`). */
export const textArrayLiteral = (values: readonly string[]) =>
  `{${values.map((value) => `"${value.replace(/(["\\])/g, "\\$1")}"`).join(",")}}`;
