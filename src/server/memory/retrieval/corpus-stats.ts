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
const caches = new WeakMap<object, Map<string, CorpusStats & { at: number }>>();

export async function cachedCorpusStats(
  db: object,
  key: string | undefined,
  load: () => Promise<CorpusStats>,
  /** Count now, whatever the cache holds (and keep the new count). */
  fresh = false,
): Promise<CorpusStats & { cached: boolean }> {
  if (key === undefined) return { ...(await load()), cached: false };
  const cache = caches.get(db) ?? new Map<string, CorpusStats & { at: number }>();
  caches.set(db, cache);
  const hit = cache.get(key);
  const now = Date.now();
  if (!fresh && hit && now - hit.at < TTL_MS) return { n: hit.n, avglen: hit.avglen, cached: true };
  const stats = await load();
  cache.delete(key);
  if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value!);
  cache.set(key, { ...stats, at: now });
  return { ...stats, cached: false };
}
