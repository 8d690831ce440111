import { type SQL, sql } from "drizzle-orm";
import { queryRows } from "~/db/raw";
import type { DbOrTx } from "~/db/types";
import { anyTermTsQuery, termTsQuery, type QueryTerm } from "./query-terms";
import type { ScopedMatch } from "./signals";
import type { TextSource } from "./text-sources";

/**
 * A query's translated words (cross-language.ts) count only where the caller's scope holds text in
 * that language at all. Every query term is flagged on every matched row, so a Chinese question over
 * one's Chinese memories would otherwise pay for its English words on each row (MADial-zh: search CPU
 * +60 % with the dictionary's words kept, nothing gained). One statement asks which translated words
 * occur anywhere in the scope (a GIN probe each, stopping at the first row); the answer is kept two
 * minutes per scope and word.
 */

const TTL_MS = 2 * 60_000;
const MAX_ENTRIES = 20_000;
const caches = new WeakMap<object, Map<string, { present: boolean; at: number }>>();

export async function withTranslationsInScope(
  db: DbOrTx,
  params: { source: TextSource; where: SQL; terms: readonly QueryTerm[]; scopeKey: string; scoped?: ScopedMatch },
): Promise<readonly QueryTerm[]> {
  const { source, terms } = params;
  if (!terms.some((t) => t.translated)) return terms;
  const cache = caches.get(db) ?? new Map<string, { present: boolean; at: number }>();
  caches.set(db, cache);
  if (cache.size > MAX_ENTRIES) cache.clear();
  const keyOf = (term: QueryTerm) => JSON.stringify([source.table, params.scopeKey, term.term, term.prefix]);
  const now = Date.now();
  const unknown = terms.filter((t) => {
    if (!t.translated) return false;
    const hit = cache.get(keyOf(t));
    return !hit || now - hit.at >= TTL_MS;
  });
  if (unknown.length > 0) {
    const t = sql.raw(source.table);
    const vector = sql.raw(source.matchVector);
    // One subquery, run once per word: a statement with a subquery per word spent longer planning
    // (~0.2 ms each, embedded) than the index probes take.
    const match = params.scoped
      ? sql`${params.scoped.where} and ${vector} @@ (word.q && ${params.scoped.query}::tsquery)`
      : sql`${params.where} and ${vector} @@ word.q`;
    const probe = async (tsqueries: readonly string[]) => {
      const [row] = await queryRows<{ present: string | number[] | null }>(
        db,
        sql`select array_to_json(array_agg(word.i))::text as present
              from unnest(${`{${tsqueries.map((q) => `"${q.replace(/(["\\])/g, "\\$1")}"`).join(",")}}`}::tsquery[]) with ordinality as word(q, i)
             where exists (select 1 from ${t} where ${match})`,
      );
      const found = typeof row?.present === "string" ? (JSON.parse(row.present) as number[]) : (row?.present ?? []);
      const at = new Set(found.map(Number));
      return tsqueries.map((_, i) => at.has(i + 1));
    };
    // One probe for all of them first: in a scope of one language (the common case) none occurs.
    const [any] = await probe([anyTermTsQuery(unknown)]);
    const present = !any ? [] : unknown.length === 1 ? [true] : await probe(unknown.map((term) => termTsQuery(term)));
    unknown.forEach((term, i) => cache.set(keyOf(term), { present: present[i] === true, at: now }));
  }
  return terms.filter((t) => !t.translated || cache.get(keyOf(t))?.present === true);
}
