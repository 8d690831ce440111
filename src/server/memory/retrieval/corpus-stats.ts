import { writeGeneration } from "~/db/write-generation";

/**
 * Collection statistics BM25 needs (rows in scope, their mean length), cached briefly per database
 * handle and scope: they move slowly, and counting a scope on every query is a measurable share of
 * an embedded search. Document frequencies are never cached — they are counted per query.
 */
export type CorpusStats = { n: number; avglen: number };

/**
 * BM25 barely moves with a scope's count and mean length over two minutes (and N is raised to at
 * least the rows a query matched). Recounting every 30 s, and evicting past 500 scopes (a workspace of
 * 200 members has ~440), recounted on ~12 % of searches under the load benchmark, ~6 % of Postgres's
 * time; hence two minutes and 10,000 scopes. An entry is ~100 bytes. Instances each keep their own, so
 * for up to two minutes after a large change two instances may score a search slightly differently.
 */
const TTL_MS = 120_000;
const MAX_ENTRIES = 10_000;
type Entry = CorpusStats & { at: number; generation: number | undefined };
const caches = new WeakMap<object, Map<string, Entry>>();

/**
 * `current`: counted now, or read from a cache entry that nothing can have changed since (an
 * embedded database written to by no statement since the count: ~/db/write-generation). A count
 * that is not current may be up to two minutes old; the caller recounts it where that matters (an
 * empty scope: signals.ts, scopeStats).
 */
export async function cachedCorpusStats(
  db: object,
  /** The table counted, and the scope's key within it (none: not cached). */
  { table, key }: { table: string; key: string | undefined },
  load: () => Promise<CorpusStats>,
  /** Count now, whatever the cache holds (and keep the new count). */
  fresh = false,
): Promise<CorpusStats & { current: boolean }> {
  if (key === undefined) return { ...(await load()), current: true };
  const cache = caches.get(db) ?? new Map<string, Entry>();
  caches.set(db, cache);
  const cacheKey = `${table}|${key}`;
  const hit = cache.get(cacheKey);
  const now = Date.now();
  const generation = writeGeneration(db, table);
  if (!fresh && hit && now - hit.at < TTL_MS)
    return { n: hit.n, avglen: hit.avglen, current: hit.generation !== undefined && hit.generation === generation };
  // The generation is read before the count: a write that lands while it runs makes the entry old.
  const stats = await load();
  cache.delete(cacheKey);
  if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value!);
  cache.set(cacheKey, { ...stats, at: now, generation });
  return { ...stats, current: true };
}
