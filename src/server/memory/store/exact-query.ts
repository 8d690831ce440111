import { and, desc, eq, gt, isNull, or, type SQL } from "drizzle-orm";
import type { DbOrTx } from "~/db/types";
import { memoryCardRecordColumns, memoryNodes, type MemoryCardRecord } from "~/db/schema";
import type { KindRegistry } from "../kinds/custom";
import { structuredFilterConditions, type StructuredCardFilter } from "./card-filter";
import type { ScopePattern } from "../scope";
import { scopePatternsCondition } from "./scope-sql";

/**
 * The exact path (docs/retrieval.md): active cards in the caller's scopes matching structured fields
 * (scope + domain + category prefix + type + key + valueJson), unexpired unless asked. Index-backed:
 * (tenant, scope, status, key), the category text_pattern_ops index and the value_json GIN index.
 */
export async function findActiveCards(
  db: DbOrTx,
  params: {
    tenantId: string;
    scopes: readonly ScopePattern[];
    filter: StructuredCardFilter;
    registry: KindRegistry;
    includeExpired?: boolean;
    now?: Date;
    limit?: number;
  },
): Promise<MemoryCardRecord[]> {
  const now = params.now ?? new Date();
  const conditions: SQL[] = [
    eq(memoryNodes.tenantId, params.tenantId),
    scopePatternsCondition(params.scopes),
    params.includeExpired
      ? or(eq(memoryNodes.status, "active"), eq(memoryNodes.status, "expired"))!
      : eq(memoryNodes.status, "active"),
    ...structuredFilterConditions(params.filter, params.registry),
  ];
  if (!params.includeExpired) conditions.push(or(isNull(memoryNodes.expiresAt), gt(memoryNodes.expiresAt, now))!);
  return db
    .select(memoryCardRecordColumns)
    .from(memoryNodes)
    .where(and(...conditions))
    .orderBy(desc(memoryNodes.importance), desc(memoryNodes.confidence), desc(memoryNodes.updatedAt))
    .limit(Math.min(params.limit ?? 50, 500));
}
