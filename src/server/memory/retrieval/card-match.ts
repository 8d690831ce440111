import { canonicalJson } from "../store/card-revisions";
import { normalizeItemKey } from "../kinds/canonical-key";
import type { KindRegistry } from "../kinds/custom";
import {
  filterKindNames,
  filterValues,
  filterValueKind,
  resolveKeyFilter,
  storedItemKeys,
  type StructuredCardFilter,
} from "../store/card-filter";
import type { MemoryCard } from "../store/card-view";

/**
 * StructuredCardFilter evaluated on loaded cards — for `asOf` reads, which come from history rather than from
 * the indexed query. Same meaning as store/card-filter.ts's SQL.
 */

function jsonContains(container: unknown, contained: unknown): boolean {
  if (contained === null || typeof contained !== "object") {
    if (Array.isArray(container)) return container.some((item) => canonicalJson(item) === canonicalJson(contained));
    return canonicalJson(container) === canonicalJson(contained);
  }
  if (Array.isArray(contained)) {
    return Array.isArray(container) && contained.every((want) => container.some((have) => jsonContains(have, want)));
  }
  if (container === null || typeof container !== "object" || Array.isArray(container)) return false;
  const record = container as Record<string, unknown>;
  return Object.entries(contained as Record<string, unknown>).every(
    ([k, v]) => k in record && jsonContains(record[k], v),
  );
}

/** As store/card-filter.ts's valueMatch: containment for objects; a scalar as the value, an element, a top-level field or the item. */
function valueMatches(card: MemoryCard, wanted: unknown): boolean {
  const cardValue = card.valueJson;
  if (typeof wanted === "object" && wanted !== null) return jsonContains(cardValue, wanted);
  const json = canonicalJson(wanted);
  if (canonicalJson(cardValue) === json) return true;
  if (Array.isArray(cardValue)) return cardValue.some((item) => canonicalJson(item) === json);
  if (
    cardValue !== null &&
    typeof cardValue === "object" &&
    Object.values(cardValue).some((field) => canonicalJson(field) === json)
  )
    return true;
  const item = typeof wanted === "string" ? normalizeItemKey(wanted) : undefined;
  return Boolean(item?.ok && card.itemKey === item.itemKey);
}

export function cardMatchesFilter(card: MemoryCard, filter: StructuredCardFilter, registry: KindRegistry): boolean {
  if (filter.scope && card.scope !== filter.scope) return false;
  if (filter.domain && card.domain !== filter.domain) return false;
  if (filter.kinds?.length) {
    const defs = filter.kinds.map((k) => registry.resolve(k));
    if (!filterKindNames(filter.kinds, registry).includes(card.kind)) return false;
    const def = defs[0];
    if (filter.itemKey && defs.length === 1 && def) {
      if (!storedItemKeys(def, filter.itemKey)?.includes(card.key)) return false;
    }
  }
  if (filter.key) {
    const resolved = resolveKeyFilter(filter.key, registry);
    if ("kinds" in resolved ? !resolved.kinds.includes(card.kind) : !resolved.keys.includes(card.key)) return false;
  }
  if (filter.types?.length && !filter.types.includes(card.type)) return false;
  if (
    filter.valueJson !== undefined &&
    !filterValues(filter.valueJson, filterValueKind(filter, registry)).some((value) => valueMatches(card, value))
  )
    return false;
  if (filter.categoryPathPrefix && filter.categoryPathPrefix.length) {
    const prefix = Array.isArray(filter.categoryPathPrefix)
      ? filter.categoryPathPrefix.join("/")
      : filter.categoryPathPrefix.replace(/\/+$/, "");
    const path = card.categoryPath.join("/");
    if (path !== prefix && !path.startsWith(`${prefix}/`)) return false;
  }
  if (filter.tags?.length && !filter.tags.some((t) => card.tags.includes(t))) return false;
  if (filter.entities?.length && !filter.entities.some((e) => card.entities.includes(e))) return false;
  return true;
}
