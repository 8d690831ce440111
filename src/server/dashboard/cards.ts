import { and, arrayOverlaps, desc, eq, gte, inArray, lte, sql, type SQL } from "drizzle-orm";
import type { DbOrTx } from "~/db/types";
import { memoryNodes, SCOPED_SEARCH_VECTOR_IN_QUERY } from "~/db/schema";
import { categoryPrefixCondition, formatScope, type ScopePattern, scopePatternsCondition } from "~/server/memory";
import { buildTsQueryText, segmentQuery } from "~/server/text/segment";
import type { CardFilter } from "./card-filter";
import { clampLimit, decodeCursor, encodeCursor } from "./cursor";
import { requireReadableScopes } from "./scope-access";

export const CARD_PAGE = { default: 50, max: 200 } as const;

/** A row of the memory browser: what the table shows, nothing heavier. */
export type CardListItem = {
  id: string;
  scope: string;
  kind: string;
  key: string;
  title: string;
  excerpt: string;
  type: string;
  domain: string;
  categoryPath: string;
  status: string;
  revision: number;
  confidence: number;
  importance: number;
  tags: string[];
  updatedAt: string;
  expiresAt: string | null;
};

/** `q` as the card index sees words: segmented (Chinese too), every word must match, prefixes allowed. */
export function cardTextCondition(text: string): SQL | undefined {
  const query = buildTsQueryText(segmentQuery(text), { mode: "and", prefix: true });
  if (!query) return undefined;
  // The indexed expression (memory_nodes_scoped_search_idx), without a scope lexeme: scopes are filtered above.
  return sql`${sql.raw(SCOPED_SEARCH_VECTOR_IN_QUERY)} @@ to_tsquery('simple', ${query})`;
}

/** Every filter as SQL, tenant and readable scopes first; shared by the browser, counts and export. */
export function cardFilterConditions(tenantId: string, readScopes: readonly ScopePattern[], filter: CardFilter): SQL[] {
  const conditions: SQL[] = [
    eq(memoryNodes.tenantId, tenantId),
    scopePatternsCondition(requireReadableScopes(readScopes, filter.scopes)),
  ];
  const statuses = filter.statuses?.length ? filter.statuses : (["active"] as const);
  conditions.push(
    statuses.length === 1 ? eq(memoryNodes.status, statuses[0]!) : inArray(memoryNodes.status, [...statuses]),
  );
  if (filter.kinds?.length) conditions.push(inArray(memoryNodes.kind, filter.kinds));
  if (filter.domain) conditions.push(eq(memoryNodes.domain, filter.domain));
  if (filter.category) conditions.push(categoryPrefixCondition(filter.category));
  if (filter.types?.length) conditions.push(inArray(memoryNodes.type, filter.types));
  if (filter.tags?.length) conditions.push(arrayOverlaps(memoryNodes.tags, filter.tags));
  if (filter.entities?.length) conditions.push(arrayOverlaps(memoryNodes.entities, filter.entities));
  if (filter.minConfidence !== undefined) conditions.push(gte(memoryNodes.confidence, filter.minConfidence));
  if (filter.maxConfidence !== undefined) conditions.push(lte(memoryNodes.confidence, filter.maxConfidence));
  if (filter.minImportance !== undefined) conditions.push(gte(memoryNodes.importance, filter.minImportance));
  if (filter.maxImportance !== undefined) conditions.push(lte(memoryNodes.importance, filter.maxImportance));
  if (filter.text) conditions.push(cardTextCondition(filter.text) ?? sql`false`);
  return conditions;
}

const listColumns = {
  id: memoryNodes.id,
  scopeType: memoryNodes.scopeType,
  scopeId: memoryNodes.scopeId,
  kind: memoryNodes.kind,
  key: memoryNodes.key,
  title: memoryNodes.title,
  excerpt: sql<string>`left(${memoryNodes.content}, 240)`,
  type: memoryNodes.type,
  domain: memoryNodes.domain,
  categoryPath: memoryNodes.categoryPathText,
  status: memoryNodes.status,
  revision: memoryNodes.revision,
  confidence: memoryNodes.confidence,
  importance: memoryNodes.importance,
  tags: memoryNodes.tags,
  updatedAt: memoryNodes.updatedAt,
  expiresAt: memoryNodes.expiresAt,
  // The exact stored timestamp (microseconds) for the cursor; a JS Date would round it to milliseconds.
  cursorAt: sql<string>`${memoryNodes.updatedAt}::text`,
};

/**
 * One page of cards, newest change first, keyset-paginated on (updated_at, id) so deep pages stay as
 * fast as the first (index memory_nodes_updated_idx leads with tenant_id, updated_at).
 */
export async function browseCards(
  db: DbOrTx,
  params: {
    tenantId: string;
    readScopes: readonly ScopePattern[];
    filter: CardFilter;
    cursor?: string | null;
    limit?: number;
  },
): Promise<{ cards: CardListItem[]; nextCursor: string | null }> {
  const limit = clampLimit(params.limit, CARD_PAGE.default, CARD_PAGE.max);
  const conditions = cardFilterConditions(params.tenantId, params.readScopes, params.filter);
  if (params.cursor) {
    const [at, id] = decodeCursor<[string, string]>(params.cursor, ["timestamp", "string"]);
    conditions.push(
      lte(memoryNodes.updatedAt, sql`${at}::timestamptz`),
      sql`(${memoryNodes.updatedAt}, ${memoryNodes.id}) < (${at}::timestamptz, ${id})`,
    );
  }
  const rows = await db
    .select(listColumns)
    .from(memoryNodes)
    .where(and(...conditions))
    .orderBy(desc(memoryNodes.updatedAt), desc(memoryNodes.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    cards: page.map(({ scopeType, scopeId, cursorAt: _cursor, updatedAt, expiresAt, ...row }) => ({
      ...row,
      scope: formatScope({ type: scopeType, id: scopeId }),
      updatedAt: updatedAt.toISOString(),
      expiresAt: expiresAt?.toISOString() ?? null,
    })),
    nextCursor: rows.length > limit && last ? encodeCursor([last.cursorAt, last.id]) : null,
  };
}

export type CardFacets = {
  statuses: { status: string; count: number }[];
  kinds: { kind: string; count: number }[];
  domains: { domain: string; count: number }[];
  scopes: { scope: string; count: number }[];
};

/** Counts for the filter menus, over the viewer's readable scopes (all statuses for the status menu). */
export async function cardFacets(
  db: DbOrTx,
  params: { tenantId: string; readScopes: readonly ScopePattern[] },
): Promise<CardFacets> {
  const base = and(eq(memoryNodes.tenantId, params.tenantId), scopePatternsCondition(params.readScopes));
  const active = and(base, eq(memoryNodes.status, "active"));
  const n = sql<number>`count(*)`.mapWith(Number);
  const [statuses, kinds, domains, scopes] = await Promise.all([
    db.select({ status: memoryNodes.status, count: n }).from(memoryNodes).where(base).groupBy(memoryNodes.status),
    db
      .select({ kind: memoryNodes.kind, count: n })
      .from(memoryNodes)
      .where(active)
      .groupBy(memoryNodes.kind)
      .orderBy(desc(n)),
    db
      .select({ domain: memoryNodes.domain, count: n })
      .from(memoryNodes)
      .where(active)
      .groupBy(memoryNodes.domain)
      .orderBy(desc(n)),
    db
      .select({ scopeType: memoryNodes.scopeType, scopeId: memoryNodes.scopeId, count: n })
      .from(memoryNodes)
      .where(active)
      .groupBy(memoryNodes.scopeType, memoryNodes.scopeId)
      .orderBy(desc(n))
      .limit(100),
  ]);
  return {
    statuses,
    kinds,
    domains,
    scopes: scopes.map((s) => ({ scope: formatScope({ type: s.scopeType, id: s.scopeId }), count: s.count })),
  };
}

export type CategoryTreeNode = { name: string; path: string; count: number; children: CategoryTreeNode[] };
export type DomainTree = { domain: string; count: number; categories: CategoryTreeNode[] };

/**
 * Folds `(domain, a/b/c, n)` rows into a tree per domain; each node counts itself and its descendants.
 * A path that starts with its domain's name (`生活技能/做饭`) hangs directly under the domain; node
 * paths stay the full stored path, so they work as category filters.
 */
export function foldCategoryTree(rows: readonly { domain: string; path: string; count: number }[]): DomainTree[] {
  const domains = new Map<string, DomainTree>();
  for (const row of rows) {
    const domain = domains.get(row.domain) ?? { domain: row.domain, count: 0, categories: [] };
    domains.set(row.domain, domain);
    domain.count += row.count;
    let level = domain.categories;
    const segments = row.path.split("/").filter(Boolean);
    const start = segments[0] === row.domain ? 1 : 0;
    segments.forEach((name, i) => {
      if (i < start) return;
      const path = segments.slice(0, i + 1).join("/");
      let node = level.find((c) => c.name === name);
      if (!node) {
        node = { name, path, count: 0, children: [] };
        level.push(node);
      }
      node.count += row.count;
      level = node.children;
    });
  }
  const sort = (nodes: CategoryTreeNode[]) => {
    nodes.sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));
    nodes.forEach((node) => sort(node.children));
  };
  const out = [...domains.values()].sort((a, b) => b.count - a.count || a.domain.localeCompare(b.domain));
  out.forEach((d) => sort(d.categories));
  return out;
}

/** Domain → category tree with counts of the viewer's cards in the given statuses (active by default). */
export async function categoryTree(
  db: DbOrTx,
  params: { tenantId: string; readScopes: readonly ScopePattern[]; statuses?: CardFilter["statuses"] },
): Promise<DomainTree[]> {
  const conditions = cardFilterConditions(params.tenantId, params.readScopes, { statuses: params.statuses });
  const n = sql<number>`count(*)`.mapWith(Number);
  const rows = await db
    .select({ domain: memoryNodes.domain, path: memoryNodes.categoryPathText, count: n })
    .from(memoryNodes)
    .where(and(...conditions))
    .groupBy(memoryNodes.domain, memoryNodes.categoryPathText);
  return foldCategoryTree(rows);
}
