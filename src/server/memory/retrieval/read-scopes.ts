import { formatScope, intersectScopes, parseScopePattern, scopeAllowed, type ScopePattern } from "../scope";

/**
 * The scopes a search may touch: the caller's readable scopes, narrowed by `requested` when given.
 * Narrowing intersects, it never widens: an unreadable requested scope simply drops out (and an
 * empty result means nothing is searched). Malformed scopes are a bad request.
 */
export function narrowReadScopes(
  readScopes: readonly ScopePattern[],
  requested: readonly string[] | undefined,
): ScopePattern[] {
  if (requested === undefined) return [...readScopes];
  const wanted = requested.map(parseScopePattern);
  return intersectScopes(readScopes, wanted);
}

/** For one turn's automatic recall: sessions other than the current one are not this turn's business. */
export function turnScopes(readScopes: readonly ScopePattern[], sessionId: string | undefined): ScopePattern[] {
  const others = readScopes.filter((p) => p.type !== "session");
  if (!sessionId) return others;
  return [...others, ...intersectScopes(readScopes, [{ type: "session", id: sessionId }])];
}

/**
 * The scopes as disjoint parts that together cover exactly the same cards: each once, and none that a
 * wildcard of its type already covers ("session:*" takes in "session:s1"). Counted one by one, their
 * BM25 statistics add up to the whole's, and a wildcard part is shared by every caller granted it.
 */
export function disjointScopes(scopes: readonly ScopePattern[]): ScopePattern[] {
  const wildcards = scopes.filter((s) => s.id === "*");
  const parts = scopes.filter((s) => s.id === "*" || !scopeAllowed(s, wildcards));
  return [...new Map(parts.map((s) => [formatScope(s), s])).values()];
}
