import { type SQL, sql } from "drizzle-orm";
import { queryRows, textArrayLiteral } from "~/db/raw";
import type { DbOrTx } from "~/db/types";
import { anyTermTsQuery, termTsQuery, type QueryTerm } from "./query-terms";
import type { ScopedMatch } from "./signals";
import type { TextSource } from "./text-sources";

/**
 * A query's translated words (cross-language.ts) count only where the caller's scope holds them.
 * Every query term is flagged on every matched row, so a Chinese question over one's Chinese
 * memories would otherwise pay for its English words on each row (MADial-en: search CPU +60 %,
 * nothing gained). One statement asks whether any translated word occurs in the scope (a GIN probe);
 * only when one does, a second asks which. A word found is remembered two minutes per scope; a word
 * not found, 15 seconds, so text just written is soon searchable across languages too. Kin terms a
 * group word brings (kinship.ts) are probed the same way: a memory holds a few of the dozens.
 */

const FOUND_TTL_MS = 2 * 60_000;
const MISSING_TTL_MS = 15_000;
/** Scopes remembered per database handle; past it, the memory starts over. */
const MAX_SCOPES = 2_000;
type Seen = { present: boolean; at: number };
const caches = new WeakMap<object, Map<string, Map<string, Seen>>>();

export async function withTranslationsInScope(db: DbOrTx, params: PresenceParams): Promise<readonly QueryTerm[]> {
  return withTermsInScope(db, params, (term) => term.translated === true);
}

type PresenceParams = {
  source: TextSource;
  where: SQL;
  terms: readonly QueryTerm[];
  /** What `where` reads (tenant, scopes, filters): the answers are remembered under it (not at all without one). */
  scopeKey?: string;
  scoped?: ScopedMatch;
  now?: number;
};

/**
 * `terms` without those `probed` picks that no row of the scope holds: the same probes and memory as for
 * translations, for other words a query adds (kin terms a group word covers, kinship.ts: 69 for
 * 亲戚, of which a memory holds a few, and each would be flagged on every matched row).
 */
export async function withTermsInScope(
  db: DbOrTx,
  params: PresenceParams,
  probed: (term: QueryTerm) => boolean,
): Promise<readonly QueryTerm[]> {
  const { source, terms } = params;
  if (!terms.some(probed)) return terms;
  const now = params.now ?? Date.now();
  const seen = rememberedFor(db, source, params.scopeKey);
  const keyOf = (term: QueryTerm) => (term.prefix ? `${term.term}:*` : term.term);
  // Decided here, for this call: another search may reset the shared memory meanwhile.
  const present = new Map<string, boolean>();
  const unknown: QueryTerm[] = [];
  for (const term of terms) {
    if (!probed(term)) continue;
    const hit = seen.get(keyOf(term));
    if (hit && now - hit.at < (hit.present ? FOUND_TTL_MS : MISSING_TTL_MS)) present.set(keyOf(term), hit.present);
    else unknown.push(term);
  }
  if (unknown.length > 0) {
    const found = await probe(db, params, [anyTermTsQuery(unknown)]);
    const each = !found[0]
      ? unknown.map(() => false)
      : unknown.length === 1
        ? [true]
        : await probe(
            db,
            params,
            unknown.map((term) => termTsQuery(term)),
          );
    unknown.forEach((term, i) => {
      present.set(keyOf(term), each[i] === true);
      seen.set(keyOf(term), { present: each[i] === true, at: now });
    });
  }
  return terms.filter((t) => !probed(t) || present.get(keyOf(t)) === true);
}

/** The answers remembered for one scope of one table; a fresh, unshared map without a scope key. */
function rememberedFor(db: DbOrTx, source: TextSource, scopeKey: string | undefined): Map<string, Seen> {
  if (scopeKey === undefined) return new Map();
  const byScope = caches.get(db) ?? new Map<string, Map<string, Seen>>();
  caches.set(db, byScope);
  if (byScope.size > MAX_SCOPES) byScope.clear();
  const key = JSON.stringify([source.table, scopeKey]);
  const seen = byScope.get(key) ?? new Map<string, Seen>();
  byScope.set(key, seen);
  return seen;
}

/**
 * Which of these tsqueries match a row of the scope: one subquery, run once per tsquery (a statement
 * with a subquery per word spent longer planning, ~0.2 ms each embedded, than the index probes take).
 * The tsqueries travel as one bound array parameter.
 */
async function probe(
  db: DbOrTx,
  params: { source: TextSource; where: SQL; scoped?: ScopedMatch },
  tsqueries: readonly string[],
): Promise<boolean[]> {
  const t = sql.raw(params.source.table);
  const vector = sql.raw(params.source.matchVector);
  const match = params.scoped
    ? sql`${params.scoped.where} and ${vector} @@ (word.q && ${params.scoped.query}::tsquery)`
    : sql`${params.where} and ${vector} @@ word.q`;
  const literal = textArrayLiteral(tsqueries);
  const [row] = await queryRows<{ present: string | number[] | null }>(
    db,
    sql`select array_to_json(array_agg(word.i))::text as present
          from unnest(${literal}::tsquery[]) with ordinality as word(q, i)
         where exists (select 1 from ${t} where ${match})`,
  );
  const hits = typeof row?.present === "string" ? (JSON.parse(row.present) as number[]) : (row?.present ?? []);
  const at = new Set(hits.map(Number));
  return tsqueries.map((_, i) => at.has(i + 1));
}
