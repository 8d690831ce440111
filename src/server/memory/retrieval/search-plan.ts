import type { StructuredCardFilter } from "../store/card-filter";
import { isListAllQuery } from "./list-all";
import type { memorySearchInputSchema } from "./search-schema";

export type ParsedInput = ReturnType<typeof memorySearchInputSchema.parse>;

// How a search will run: which filters identify cards exactly, which narrow a text search, and
// whether it lists everything. memorySearch (search.ts) follows the plan.

function splitFilters(input: ParsedInput, queryText: string | undefined) {
  // With words to search for, `kinds` alone narrows the search rather than listing the kinds' cards:
  // {kinds: ["custom_fact"], queryText: "wifi"} listed the ten most important facts and left the one
  // about the WiFi out. A slot (key, itemKey, valueJson) still identifies cards exactly.
  const kindsNarrow =
    queryText !== undefined && input.itemKey === undefined && input.key === undefined && input.valueJson === undefined;
  const identifying: StructuredCardFilter = {
    kinds: kindsNarrow ? undefined : input.kinds,
    itemKey: input.itemKey,
    key: input.key,
    valueJson: input.valueJson,
  };
  const narrowing: StructuredCardFilter = {
    kinds: kindsNarrow ? input.kinds : undefined,
    domain: input.domain,
    categoryPathPrefix: input.categoryPathPrefix,
    types: input.types,
    tags: input.tags,
    entities: input.entities,
  };
  const present = (f: StructuredCardFilter) =>
    Object.values(f).some((v) => v !== undefined && !(Array.isArray(v) && v.length === 0) && v !== "");
  return {
    identifying,
    narrowing,
    all: { ...narrowing, ...identifying, kinds: input.kinds },
    hasIdentifying: present(identifying),
    hasNarrowing: present(narrowing),
  };
}

export type Plan = ReturnType<typeof splitFilters> & {
  queryText?: string;
  listAll: boolean;
  runExact: boolean;
  runRelevant: boolean;
};

export function plan(input: ParsedInput): Plan {
  const queryText = input.queryText?.trim() || undefined;
  // "列出所有记忆" / "show all my memories" enumerates instead of searching for those words.
  const listAll = input.all === true || isListAllQuery(queryText);
  const filters = splitFilters(input, listAll ? undefined : queryText);
  const runExact = listAll || filters.hasIdentifying || (filters.hasNarrowing && !queryText);
  const runRelevant = !listAll && queryText !== undefined;
  return { ...filters, queryText, listAll, runExact, runRelevant };
}
