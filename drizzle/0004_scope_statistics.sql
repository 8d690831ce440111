-- The planner multiplies the selectivities of tenant_id, scope_type and scope_id as if they were
-- independent, so it guessed a caller's scope at 264 cards where there were 3,040 (100k cards) and
-- scanned the whole scope instead of intersecting it with the full-text index. Correlated
-- statistics give it the real counts (gathered by the next ANALYZE / autovacuum).
CREATE STATISTICS IF NOT EXISTS "memory_nodes_scope_stats" (mcv, dependencies, ndistinct) ON "tenant_id", "scope_type", "scope_id" FROM "memory_nodes";
