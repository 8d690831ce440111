import { sql } from "drizzle-orm";
import { queryRows } from "~/db/raw";
import type { DbOrTx } from "~/db/types";
import type { QueryTerm } from "./query-terms";

/**
 * How common each lexeme of a table's `search_vector` is: the share of rows containing it, read from
 * the planner's statistics (ANALYZE keeps the most common elements of a tsvector column with their
 * frequencies). Free to read, refreshed by autovacuum in server mode; absent (empty) before the first
 * ANALYZE — then every term counts as rare and search behaves exactly as without this.
 */
export type TermShares = ReadonlyMap<string, number>;

const TTL_MS = 5 * 60_000;
const caches = new WeakMap<object, Map<string, { shares: TermShares; at: number }>>();

export async function termShares(db: DbOrTx, table: string, options: { maxAgeMs?: number } = {}): Promise<TermShares> {
  const cache = caches.get(db) ?? new Map<string, { shares: TermShares; at: number }>();
  caches.set(db, cache);
  const hit = cache.get(table);
  if (hit && Date.now() - hit.at < (options.maxAgeMs ?? TTL_MS)) return hit.shares;
  const [row] = await queryRows<{ elems: string | null; freqs: string | null }>(
    db,
    sql`select array_to_json(most_common_elems::text::text[])::text as elems, array_to_json(most_common_elem_freqs)::text as freqs
          from pg_stats where schemaname = current_schema() and tablename = ${table} and attname = 'search_vector'`,
  );
  const elems = row?.elems ? (JSON.parse(row.elems) as string[]) : [];
  const freqs = row?.freqs ? (JSON.parse(row.freqs) as number[]) : [];
  // The frequency array ends with three summary numbers (min, max, null share): only the first
  // elems.length entries belong to the lexemes.
  const shares = new Map(elems.map((lexeme, i) => [lexeme, freqs[i] ?? 0]));
  cache.set(table, { shares, at: Date.now() });
  return shares;
}

/** A term's share of rows; a prefix term counts every tracked lexeme it starts (an upper bound). */
export function termShare(shares: TermShares, term: QueryTerm): number {
  if (!term.prefix) return shares.get(term.term) ?? 0;
  let sum = 0;
  for (const [lexeme, share] of shares) if (lexeme.startsWith(term.term)) sum += share;
  return Math.min(1, sum);
}
