import { and, eq, or, sql, type AnyColumn, type SQL } from "drizzle-orm";
import { memoryNodes } from "~/db/schema";
import type { ScopePattern } from "./scope";

/** Any table that records a scope as (type, id): cards, audit events. */
type ScopedColumns = { scopeType: AnyColumn; scopeId: AnyColumn };

/**
 * `(scope_type, scope_id)` restricted to the caller's patterns; `session:*` matches any session.
 * An empty pattern list matches nothing (never everything).
 */
export function scopePatternsCondition(patterns: readonly ScopePattern[], columns: ScopedColumns = memoryNodes): SQL {
  if (patterns.length === 0) return sql`false`;
  const parts = patterns.map((p) => (p.id === "*" ? eq(columns.scopeType, p.type) : and(eq(columns.scopeType, p.type), eq(columns.scopeId, p.id))!));
  return parts.length === 1 ? parts[0]! : or(...parts)!;
}
