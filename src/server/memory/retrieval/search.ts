import type { DbOrTx } from "~/db/types";
import { badRequest } from "~/server/errors";
import type { MemoryCallContext } from "../context";
import { loadKindRegistry } from "../custom-kinds";
import { findActiveNodes } from "../exact-query";
import { toMemoryNode } from "../node-view";
import { memorySearchInputSchema, SEARCH_LIMITS, type MemorySearchResult } from "./search-schema";

/**
 * `memory_search` (first cut: exact path and enumeration; the hybrid relevant path replaces the
 * queryText branch). Scopes are always the caller's readable ones.
 */
export async function memorySearch(db: DbOrTx, ctx: MemoryCallContext, rawInput: unknown): Promise<MemorySearchResult> {
  const parsed = memorySearchInputSchema.safeParse(rawInput ?? {});
  if (!parsed.success) throw badRequest("invalid_input", `memory_search input is invalid: ${parsed.error.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join("; ")}.`);
  const input = parsed.data;
  const registry = await loadKindRegistry(db, ctx.tenantId);
  const limit = input.limit ?? SEARCH_LIMITS.defaultLimit;
  const rows = await findActiveNodes(db, {
    tenantId: ctx.tenantId,
    scopes: ctx.readScopes,
    registry,
    includeExpired: input.includeExpired,
    limit,
    filter: { domain: input.domain, kinds: input.kinds, itemKey: input.itemKey, key: input.key, types: input.types, valueJson: input.valueJson, categoryPathPrefix: input.categoryPathPrefix, tags: input.tags, entities: input.entities },
  });
  const hits = rows.map((row) => ({ ...toMemoryNode(row), matchedBy: [input.all ? ("enumeration" as const) : ("exact" as const)] }));
  return { exact: hits, relevant: [], omitted: [], enumerated: input.all === true, message: `${hits.length} memor${hits.length === 1 ? "y" : "ies"} found.` };
}
