import { createHash } from "node:crypto";
import type { ScopePattern } from "../scope";

/**
 * The lexemes every card's indexed search vector carries (SCOPED_SEARCH_VECTOR in
 * src/db/schema/memory.ts computes the same in SQL): `#` and a hex md5 of `tenant|type:id` for its
 * scope, and of `tenant|type:*` for its scope type — so `scope` may be a wildcard pattern
 * ("session:*"), whose lexeme every card of that type carries. No scope id is `*` (parseScope refuses
 * it), so the two never meet. Query words are letters and digits (segmentQuery, and Postgres' parser
 * splits at `#`), so no word, prefix words included, can match a lexeme; a collision of two scopes
 * would only let a few more rows reach the exact scope filter.
 */
export function scopeLexeme(tenantId: string, scope: { type: string; id: string }): string {
  return `#${createHash("md5").update(`${tenantId}|${scope.type}:${scope.id}`).digest("hex")}`;
}

/**
 * A tsquery matching the cards of any of these scopes (wildcards included), for the full-text match
 * to AND with its terms: the GIN index then finds term and scope together. Undefined for no scopes.
 */
export function scopesTsQuery(tenantId: string, scopes: readonly ScopePattern[]): string | undefined {
  if (scopes.length === 0) return undefined;
  return [...new Set(scopes.map((s) => `'${scopeLexeme(tenantId, s)}'`))].join(" | ");
}
