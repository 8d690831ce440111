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
  const { lexemes, sums } = prefixIndex(shares);
  // Sorted, the lexemes a prefix starts are one run: the first at or after the prefix, up to the first that it does not start.
  const from = firstIndex(lexemes, 0, (lexeme) => lexeme >= term.term);
  const to = firstIndex(lexemes, from, (lexeme) => !lexeme.startsWith(term.term));
  return Math.min(1, sums[to]! - sums[from]!);
}

/**
 * The tracked lexemes sorted, with the running sum of their shares (`sums[i]`: the first i). A search
 * asks for a dozen prefixes; scanning the ~1,000 lexemes for each took ~18 µs, a sizeable part of a search.
 */
type PrefixIndex = { lexemes: readonly string[]; sums: Float64Array };
const prefixIndexes = new WeakMap<TermShares, PrefixIndex>();

function prefixIndex(shares: TermShares): PrefixIndex {
  let index = prefixIndexes.get(shares);
  if (!index) {
    const lexemes = [...shares.keys()].sort();
    const sums = new Float64Array(lexemes.length + 1);
    lexemes.forEach((lexeme, i) => (sums[i + 1] = sums[i]! + (shares.get(lexeme) ?? 0)));
    index = { lexemes, sums };
    prefixIndexes.set(shares, index);
  }
  return index;
}

/** The first index at or after `from` where `holds` is true, for a test false and then true along the array. */
function firstIndex(values: readonly string[], from: number, holds: (value: string) => boolean): number {
  let low = from;
  let high = values.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (holds(values[middle]!)) high = middle;
    else low = middle + 1;
  }
  return low;
}

/**
 * The terms that find rows: the rarest first while their estimated rows in the scope (share of the
 * table × rows in scope) stay within `budget` — the rarest one always, every term in a scope of at
 * most `budget` rows — in the query's order. A chatty
 * Chinese line brings twenty characters that are each in 1–4 % of the rows; together, unbudgeted,
 * they selected (and had flagged for every term) over 3,000 of 10,000 messages.
 */
export function selectingTerms(
  terms: readonly QueryTerm[],
  shares: TermShares,
  scopeRows: number,
  budget: number,
): QueryTerm[] {
  if (scopeRows <= budget) return [...terms];
  const byRarity = terms.map((term, i) => ({ i, share: termShare(shares, term) })).sort((a, b) => a.share - b.share);
  const kept = new Set<number>();
  let rows = 0;
  for (const t of byRarity) {
    rows += t.share * scopeRows;
    if (kept.size > 0 && rows > budget) break;
    kept.add(t.i);
  }
  return terms.filter((_, i) => kept.has(i));
}
