import { arrayOverlaps, eq, inArray, like, sql, type SQL } from "drizzle-orm";
import { memoryNodes, type CardType } from "~/db/schema";
import { canonicalKey, normalizeItemKey } from "../kinds/canonical-key";
import type { KindRegistry } from "../kinds/custom";
import type { KindDefinition } from "../kinds/definition";
import { storedKindNames, storedSlotKeys } from "../kinds/registry";
import { parseScope } from "../scope";

/** Structured card filters shared by exact queries, forget selectors and the dashboard browser. */
export type StructuredCardFilter = {
  scope?: string;
  domain?: string;
  kinds?: string[];
  /** With exactly one kind: its item, normalized like writes do. */
  itemKey?: string;
  key?: string;
  types?: CardType[];
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

/**
 * A value as the filter states it: objects and arrays by containment ({spicy:"low"} matches
 * {spicy:"low", oil:"low"}); a scalar as the whole value, an element of a list, a top-level field of
 * an object, or the card's item — {key: "avoid_ingredient", valueJson: "香菜"} names the card
 * written as {ingredient: "香菜", note: "讨厌味道"}, whose item is 香菜.
 */
function valueMatch(value: unknown): SQL {
  const json = JSON.stringify(value);
  if (typeof value === "object" && value !== null) return sql`${memoryNodes.valueJson} @> ${json}::jsonb`;
  const item = typeof value === "string" ? normalizeItemKey(value) : undefined;
  // `@> [x]` is false for anything but a list holding x; jsonb_each needs an object, so others get {}.
  return sql`(${memoryNodes.valueJson} = ${json}::jsonb
    or ${memoryNodes.valueJson} @> ${`[${json}]`}::jsonb
    or exists (select 1 from jsonb_each(case when jsonb_typeof(${memoryNodes.valueJson}) = 'object' then ${memoryNodes.valueJson} else '{}'::jsonb end) as field where field.value = ${json}::jsonb)${item?.ok ? sql` or ${memoryNodes.itemKey} = ${item.itemKey}` : sql``})`;
}

/** valueJson filter: any of its forms (filterValues) matches. */
export function valueJsonCondition(value: unknown, def?: KindDefinition): SQL {
  const values = filterValues(value, def);
  return values.length === 1 ? valueMatch(value) : sql`(${sql.join(values.map(valueMatch), sql` or `)})`;
}

/**
 * A key as an agent sends it: a canonical key (`cooking.avoid_ingredient:香菜`, normalized like a
 * write), or a slot or kind name (`{key: "avoid_ingredient", valueJson: "香菜"}`, synonyms such as
 * `disliked_ingredient` too), which means that kind's cards (docs/memory-model.md, Forget). Stored keys are
 * always canonical, so the literal text alone found nothing for such names. Unknown keys match literally.
 */
const keyKind = (key: string, registry: KindRegistry) => {
  const at = key.indexOf(":");
  return registry.resolve(at >= 0 ? key.slice(0, at) : key);
};

/**
 * The stored keys of one item of `def`: its canonical key, and the keys of kinds merged into it
 * (cards stored before a merge keep theirs). Undefined when the item is no valid item.
 */
export function storedItemKeys(def: KindDefinition, itemKey: string): string[] | undefined {
  const canonical = canonicalKey(def, itemKey);
  if (!canonical.ok) return undefined;
  return canonical.itemKey === null
    ? [canonical.key]
    : storedSlotKeys(def).map((slot) => `${slot}:${canonical.itemKey}`);
}

/** What a `key` filter means: stored keys, or every card of an itemized kind (keyCondition). */
export function resolveKeyFilter(key: string, registry: KindRegistry): { keys: string[] } | { kinds: string[] } {
  const at = key.indexOf(":");
  const def = keyKind(key, registry);
  if (!def) return { keys: [key] };
  if (at >= 0) return { keys: storedItemKeys(def, key.slice(at + 1)) ?? [key] };
  return def.itemized ? { kinds: storedKindNames(def.kind) } : { keys: [def.key] };
}

/**
 * A key as an agent sends it: a canonical key (`cooking.avoid_ingredient:香菜`, normalized like a
 * write), or a slot or kind name (`{key: "avoid_ingredient", valueJson: "香菜"}`, synonyms such as
 * `disliked_ingredient` too), which means that kind's cards (docs/memory-model.md, Forget). Stored keys are
 * always canonical, so the literal text alone found nothing for such names. Unknown keys match literally.
 */
function keyCondition(key: string, registry: KindRegistry): SQL {
  const resolved = resolveKeyFilter(key, registry);
  return "kinds" in resolved ? inArray(memoryNodes.kind, resolved.kinds) : inArray(memoryNodes.key, resolved.keys);
}

/** The kind whose value normalizer applies to a filter's valueJson, when it names exactly one. */
export function filterValueKind(filter: StructuredCardFilter, registry: KindRegistry): KindDefinition | undefined {
  if (filter.kinds?.length === 1) return registry.resolve(filter.kinds[0]!) ?? undefined;
  return !filter.kinds?.length && filter.key ? (keyKind(filter.key, registry) ?? undefined) : undefined;
}

/** valueJson as written and as the kind's normalizer makes it ("少辣" → {spicy: "low"}), once each. */
export function filterValues(value: unknown, def: KindDefinition | undefined): unknown[] {
  let normalized: unknown = value;
  try {
    normalized = def?.normalizeValue ? def.normalizeValue(value) : value;
  } catch {
    normalized = value;
  }
  return JSON.stringify(normalized) === JSON.stringify(value) ? [value] : [value, normalized];
}

/** The stored kind names a `kinds` filter means: each resolved, with the kinds merged into it; unknown names as sent. */
export function filterKindNames(kinds: readonly string[], registry: KindRegistry): string[] {
  return [
    ...new Set(
      kinds.flatMap((k) => {
        const def = registry.resolve(k);
        return def ? storedKindNames(def.kind) : [k];
      }),
    ),
  ];
}

export function structuredFilterConditions(filter: StructuredCardFilter, registry: KindRegistry): SQL[] {
  const conditions: SQL[] = [];
  if (filter.scope) {
    const scope = parseScope(filter.scope);
    conditions.push(eq(memoryNodes.scopeType, scope.type), eq(memoryNodes.scopeId, scope.id));
  }
  if (filter.domain) conditions.push(eq(memoryNodes.domain, filter.domain));
  const defs = filter.kinds?.map((k) => registry.resolve(k)) ?? [];
  if (filter.kinds?.length) conditions.push(inArray(memoryNodes.kind, filterKindNames(filter.kinds, registry)));
  if (filter.itemKey) {
    // With one kind the item makes its canonical key; otherwise it matches the stored (normalized)
    // item of any kind. Never dropped: an ignored itemKey would match every card (and a forget
    // selector {itemKey} would delete an unrelated card).
    const def = defs.length === 1 ? defs[0] : undefined;
    const keys = def ? storedItemKeys(def, filter.itemKey) : undefined;
    const item = def ? undefined : normalizeItemKey(filter.itemKey);
    conditions.push(
      def
        ? keys
          ? inArray(memoryNodes.key, keys)
          : sql`false`
        : item?.ok
          ? eq(memoryNodes.itemKey, item.itemKey)
          : sql`false`,
    );
  }
  if (filter.key) conditions.push(keyCondition(filter.key, registry));
  if (filter.types?.length) conditions.push(inArray(memoryNodes.type, filter.types));
  if (filter.valueJson !== undefined)
    conditions.push(valueJsonCondition(filter.valueJson, filterValueKind(filter, registry)));
  if (filter.categoryPathPrefix && filter.categoryPathPrefix.length)
    conditions.push(categoryPrefixCondition(filter.categoryPathPrefix));
  if (filter.tags?.length) conditions.push(arrayOverlaps(memoryNodes.tags, filter.tags));
  if (filter.entities?.length) conditions.push(arrayOverlaps(memoryNodes.entities, filter.entities));
  if (filter.sourceMessageId)
    conditions.push(sql`${memoryNodes.sourceMessageIds} @> array[${filter.sourceMessageId}]::text[]`);
  return conditions;
}
