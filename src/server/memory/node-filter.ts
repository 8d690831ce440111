import { arrayOverlaps, eq, inArray, like, sql, type SQL } from "drizzle-orm";
import { memoryNodes, type NodeType } from "~/db/schema";
import { canonicalKey, normalizeItemKey } from "./canonical-key";
import type { KindRegistry } from "./custom-kinds";
import { parseScope } from "./scope";

/** Structured card filters shared by exact queries, forget selectors and the dashboard browser. */
export type NodeFilter = {
  scope?: string;
  domain?: string;
  kinds?: string[];
  /** With exactly one kind: its item, normalized like writes do. */
  itemKey?: string;
  key?: string;
  types?: NodeType[];
  valueJson?: unknown;
  categoryPathPrefix?: string | string[];
  tags?: string[];
  entities?: string[];
  sourceMessageId?: string;
};

export function categoryPrefixCondition(prefix: string | string[]): SQL {
  const text = Array.isArray(prefix) ? prefix.join("/") : prefix.replace(/\/+$/, "");
  const escaped = text.replace(/[\\%_]/g, (c) => `\\${c}`);
  return sql`(${memoryNodes.categoryPathText} = ${text} or ${like(memoryNodes.categoryPathText, `${escaped}/%`)})`;
}

/** Scalars match exactly; objects/arrays by containment ({spicy:"low"} matches {spicy:"low", oil:"low"}). */
export function valueJsonCondition(value: unknown): SQL {
  const json = JSON.stringify(value);
  return typeof value === "object" && value !== null ? sql`${memoryNodes.valueJson} @> ${json}::jsonb` : sql`${memoryNodes.valueJson} = ${json}::jsonb`;
}

/**
 * A key as an agent sends it: a canonical key (`cooking.avoid_ingredient:香菜`, normalized like a
 * write), or a slot or kind name as in 000's examples (`{key: "avoid_ingredient", valueJson: "香菜"}`,
 * synonyms such as `disliked_ingredient` too), which means that kind's cards. Stored keys are always
 * canonical, so the literal text alone found nothing for the names 000 uses. Unknown keys match literally.
 */
function keyCondition(key: string, registry: KindRegistry): SQL {
  const at = key.indexOf(":");
  const def = registry.resolve(at >= 0 ? key.slice(0, at) : key);
  if (!def) return eq(memoryNodes.key, key);
  if (at >= 0) {
    const canonical = canonicalKey(def, key.slice(at + 1));
    return eq(memoryNodes.key, canonical.ok ? canonical.key : key);
  }
  return def.itemized ? eq(memoryNodes.kind, def.kind) : eq(memoryNodes.key, def.key);
}

export function nodeFilterConditions(filter: NodeFilter, registry: KindRegistry): SQL[] {
  const conditions: SQL[] = [];
  if (filter.scope) {
    const scope = parseScope(filter.scope);
    conditions.push(eq(memoryNodes.scopeType, scope.type), eq(memoryNodes.scopeId, scope.id));
  }
  if (filter.domain) conditions.push(eq(memoryNodes.domain, filter.domain));
  const defs = filter.kinds?.map((k) => registry.resolve(k)) ?? [];
  if (filter.kinds?.length) conditions.push(inArray(memoryNodes.kind, filter.kinds.map((k, i) => defs[i]?.kind ?? k)));
  if (filter.itemKey) {
    // With one kind the item makes its canonical key; otherwise it matches the stored (normalized)
    // item of any kind. Never dropped: an ignored itemKey would match every card (and a forget
    // selector {itemKey} would delete an unrelated card).
    const def = defs.length === 1 ? defs[0] : undefined;
    const key = def ? canonicalKey(def, filter.itemKey) : undefined;
    const item = key ? undefined : normalizeItemKey(filter.itemKey);
    conditions.push(key ? (key.ok ? eq(memoryNodes.key, key.key) : sql`false`) : item?.ok ? eq(memoryNodes.itemKey, item.itemKey) : sql`false`);
  }
  if (filter.key) conditions.push(keyCondition(filter.key, registry));
  if (filter.types?.length) conditions.push(inArray(memoryNodes.type, filter.types));
  if (filter.valueJson !== undefined) conditions.push(valueJsonCondition(filter.valueJson));
  if (filter.categoryPathPrefix && filter.categoryPathPrefix.length) conditions.push(categoryPrefixCondition(filter.categoryPathPrefix));
  if (filter.tags?.length) conditions.push(arrayOverlaps(memoryNodes.tags, filter.tags));
  if (filter.entities?.length) conditions.push(arrayOverlaps(memoryNodes.entities, filter.entities));
  if (filter.sourceMessageId) conditions.push(sql`${memoryNodes.sourceMessageIds} @> array[${filter.sourceMessageId}]::text[]`);
  return conditions;
}
