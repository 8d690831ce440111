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
