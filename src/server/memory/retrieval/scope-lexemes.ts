import { createHash } from "node:crypto";
import type { ScopePattern } from "../scope";

/**
 * The lexeme every card's indexed search vector carries for its tenant and scope (SCOPED_SEARCH_VECTOR
 * in src/db/schema/memory.ts computes the same in SQL): `#` and a hex md5. Query words are letters and
 * digits (segmentQuery, and Postgres' parser splits at `#`), so no word, prefix words included, can
 * match it; a collision of two scopes would only let a few more rows reach the exact scope filter.
 */
export function scopeLexeme(tenantId: string, scope: { type: string; id: string }): string {
  return `#${createHash("md5").update(`${tenantId}|${scope.type}:${scope.id}`).digest("hex")}`;
}

/**
 * A tsquery matching the cards of any of these scopes, for the full-text match to AND with its terms
 * (the GIN index then finds term and scope together). Undefined when a scope is a wildcard
 * ("session:*"): those cards carry no lexeme in common, and the terms alone are matched.
 */
export function scopesTsQuery(tenantId: string, scopes: readonly ScopePattern[]): string | undefined {
  if (scopes.length === 0 || scopes.some((s) => s.id === "*")) return undefined;
  return [...new Set(scopes.map((s) => `'${scopeLexeme(tenantId, s)}'`))].join(" | ");
}
