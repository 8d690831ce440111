import type { CardFilter } from "./card-filter";

/**
 * Filter → URL query (the inverse of cardFilterFromSearchParams); lists repeat their parameter.
 * No runtime imports, so client components can build links with it.
 */
export function cardFilterToSearchParams(
  filter: CardFilter,
  extra: Record<string, string | undefined> = {},
): URLSearchParams {
  const out = new URLSearchParams();
  const add = (name: string, values: readonly (string | number)[] | string | number | undefined) => {
    if (values === undefined) return;
    for (const v of Array.isArray(values) ? values : [values]) out.append(name, String(v));
  };
  add("scope", filter.scopes);
  add("kind", filter.kinds);
  add("domain", filter.domain);
  add("category", filter.category);
  add("type", filter.types);
  add("status", filter.statuses);
  add("tag", filter.tags);
  add("entity", filter.entities);
  add("minConfidence", filter.minConfidence);
  add("maxConfidence", filter.maxConfidence);
  add("minImportance", filter.minImportance);
  add("maxImportance", filter.maxImportance);
  add("q", filter.text);
  for (const [k, v] of Object.entries(extra)) if (v) out.set(k, v);
  return out;
}
