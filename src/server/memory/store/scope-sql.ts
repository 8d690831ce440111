import { and, eq, or, sql, type AnyColumn, type SQL } from "drizzle-orm";
import { memoryNodes } from "~/db/schema";
import type { ScopePattern } from "../scope";

/** Any table that records a scope as (type, id): cards, audit events. */
type ScopedColumns = { scopeType: AnyColumn; scopeId: AnyColumn };

/**
 * `(scope_type, scope_id)` restricted to the caller's patterns; `session:*` matches any session.
 * An empty pattern list matches nothing (never everything).
 */
export function scopePatternsCondition(patterns: readonly ScopePattern[], columns: ScopedColumns = memoryNodes): SQL {
  if (patterns.length === 0) return sql`false`;
  const parts = patterns.map((p) =>
    p.id === "*" ? eq(columns.scopeType, p.type) : and(eq(columns.scopeType, p.type), eq(columns.scopeId, p.id))!,
  );
  return parts.length === 1 ? parts[0]! : or(...parts)!;
}

/**
 * The same restriction written so that no index can serve it: `type:id` compared as one text (types
 * hold no `:`, so the pair is read back unambiguously). For a statement whose index scan already keeps
 * to the scopes (see cardWhere's `indexable: false`).
 */
export function scopePatternsFilter(patterns: readonly ScopePattern[], columns: ScopedColumns = memoryNodes): SQL {
  if (patterns.length === 0) return sql`false`;
  const exact = patterns.filter((p) => p.id !== "*").map((p) => `${p.type}:${p.id}`);
  const parts = patterns.filter((p) => p.id === "*").map((p) => eq(columns.scopeType, p.type));
  if (exact.length > 0)
    parts.push(
      sql`(${columns.scopeType} || ':' || ${columns.scopeId}) in (${sql.join(
        exact.map((scope) => sql`${scope}`),
        sql`, `,
      )})`,
    );
  return parts.length === 1 ? parts[0]! : or(...parts)!;
}
