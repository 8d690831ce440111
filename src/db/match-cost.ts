import { sql } from "drizzle-orm";
import { queryRows } from "./raw";
import type { DbOrTx } from "./types";

/**
 * What the planner is told one `tsvector @@ tsquery` test costs, in multiples of cpu_operator_cost.
 * Postgres prices it as one cheap operator (procost 1), but a search's tsquery is an OR of 10–40
 * terms, each a binary search in the row's vector. At procost 1 the planner read every row of a
 * 2,600-message scope and tested each one (~10 ms embedded) rather than take the ~420 matching rows
 * from the GIN index (~2.5 ms); priced near what it costs, it takes the index where the index is
 * cheaper. Measured in docs/retrieval.md ("Latency").
 */
export const TEXT_MATCH_COST = 100;

/**
 * Prices the full-text match for the planner in the embedded database. Applied at open (a catalog
 * setting of this database only, kept in its data directory); written only when it differs. Server
 * databases are left as their administrator set them: changing a built-in function needs its owner.
 */
export async function priceTextMatch(db: DbOrTx): Promise<void> {
  const [row] = await queryRows<{ cost: number | string }>(
    db,
    sql`select procost as cost from pg_proc where oid = 'pg_catalog.ts_match_vq(tsvector, tsquery)'::regprocedure`,
  );
  if (Number(row?.cost) === TEXT_MATCH_COST) return;
  await db.execute(sql.raw(`alter function pg_catalog.ts_match_vq(tsvector, tsquery) cost ${TEXT_MATCH_COST}`));
}
