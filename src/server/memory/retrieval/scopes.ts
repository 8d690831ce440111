import { intersectScopes, parseScopePattern, type ScopePattern } from "../scope";

/**
 * The scopes a search may touch: the caller's readable scopes, narrowed by `requested` when given.
 * Narrowing intersects, it never widens: an unreadable requested scope simply drops out (and an
 * empty result means nothing is searched). Malformed scopes are a bad request.
 */
export function narrowReadScopes(readScopes: readonly ScopePattern[], requested: readonly string[] | undefined): ScopePattern[] {
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
