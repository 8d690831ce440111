import { sql } from "drizzle-orm";
import { describeError, log } from "~/server/log";
import { queryRows } from "./raw";
import type { DbOrTx } from "./types";

/**
 * What the planner is told one `tsvector @@ tsquery` test costs, in multiples of cpu_operator_cost.
 * Postgres prices it as one cheap operator (procost 1), but a search's tsquery is an OR of many
 * terms, each a binary search in the row's vector: at procost 1 the embedded planner tested every
 * row of a large scope instead of taking the matching rows from the GIN index (docs/retrieval.md,
 * "Latency").
 */
export const TEXT_MATCH_COST = 100;

/** The catalog cost of the function behind `tsvector @@ tsquery`. */
export async function readTextMatchCost(db: DbOrTx): Promise<number> {
  const [row] = await queryRows<{ cost: number | string }>(
    db,
    sql`select procost as cost from pg_proc where oid = 'pg_catalog.ts_match_vq(tsvector, tsquery)'::regprocedure`,
  );
  return Number(row?.cost);
}

export async function setTextMatchCost(db: DbOrTx, cost: number): Promise<void> {
  await db.execute(sql.raw(`alter function pg_catalog.ts_match_vq(tsvector, tsquery) cost ${Number(cost)}`));
}

/**
 * Prices the full-text test for the planner in the embedded database, at every open (a setting of
 * this database's own catalog, written only when it differs). Server databases keep what their
 * administrator set: changing a built-in function needs its owner. Best effort: a database that
 * cannot take it searches as before, only slower.
 */
export async function priceTextMatch(db: DbOrTx): Promise<void> {
  try {
    if ((await readTextMatchCost(db)) !== TEXT_MATCH_COST) await setTextMatchCost(db, TEXT_MATCH_COST);
  } catch (error) {
    log("warn", `full-text match left at the planner's default price: ${describeError(error)}`);
  }
}
