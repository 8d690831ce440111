import { sql } from "drizzle-orm";
import type { MemoryCardRecord } from "~/db/schema";
import type { DbOrTx } from "~/db/types";
import { selectCardRecords } from "../store/card-records";
import { SCOPE_PRIORITY, scopeAllowed, type ScopePattern } from "../scope";
import type { ScopeChain } from "./conflicts";

/**
 * A text search finds cards by their words. When it finds the user's "Answer in English." while this
 * turn's session holds "这次对话用中文回答" for the same slot, the hit is the loser of the slot's
 * conflict, and its winner, whose words did not match, was nowhere among the candidates: the search
 * answered with the overridden fact. So the cards overriding a candidate in the caller's chain
 * (this turn's session, workspace and user, where readable) join the candidates.
 *
 * Only candidates marked `shadowed` are looked up (the trigger memory_nodes_mark_shadowed marks a card
 * when a more specific scope holds its slot): one statement when some are, none otherwise. Probing
 * every hit for an override, in the full-text statement or in one of its own, cost 5–14 % of search
 * throughput (docs/history/performance-rounds.md, rounds 17 and 19).
 */
export type SlotChain = { tenantId: string; scopes: { type: ChainType; id: string }[] };

type ChainType = keyof ScopeChain;
const CHAIN_TYPES: readonly ChainType[] = ["session", "workspace", "user"];

/** The readable scopes of the caller's chain, which can override a broader card; undefined when none. */
export function slotChain(
  tenantId: string,
  chain: ScopeChain,
  readable: readonly ScopePattern[],
): SlotChain | undefined {
  const scopes = CHAIN_TYPES.flatMap((type) => {
    const scope = chain[type];
    return scope && scopeAllowed(scope, readable) ? [{ type, id: scope.id }] : [];
  });
  return scopes.length > 0 ? { tenantId, scopes } : undefined;
}

/** The active cards of the chain's scopes holding the slots of the shadowed candidates in broader scopes. */
async function readSlotRivals(
  db: DbOrTx,
  chain: SlotChain,
  shadowed: readonly MemoryCardRecord[],
): Promise<MemoryCardRecord[]> {
  const scans = chain.scopes.flatMap(({ type, id }) => {
    const keys = [
      ...new Set(shadowed.filter((c) => SCOPE_PRIORITY[c.scopeType] < SCOPE_PRIORITY[type]).map((c) => c.key)),
    ];
    if (keys.length === 0) return [];
    return [
      sql`(memory_nodes.scope_type = ${type} and memory_nodes.scope_id = ${id} and memory_nodes.key = any(${sql.param(keys)}::text[]))`,
    ];
  });
  if (scans.length === 0) return [];
  return selectCardRecords(
    db,
    sql`where memory_nodes.tenant_id = ${chain.tenantId} and memory_nodes.status = 'active' and (${sql.join(scans, sql` or `)})`,
  );
}

/**
 * `items` (best first) with the cards overriding them in the caller's chain, each placed just before
 * the best item of its slot (domain + key) in a broader scope, made from it by `make` (its rank, say):
 * conflict resolution then shows the winner in that item's place. `added` are the items made.
 */
export async function withOverridingCards<T>(
  db: DbOrTx,
  chain: SlotChain | undefined,
  items: T[],
  rowOf: (item: T) => MemoryCardRecord,
  make: (rival: MemoryCardRecord, overridden: T) => T,
): Promise<{ items: T[]; added: T[] }> {
  const shadowed = items.filter((item) => rowOf(item).shadowed && rowOf(item).status === "active");
  if (!chain || shadowed.length === 0) return { items, added: [] };
  const rivals = await readSlotRivals(db, chain, shadowed.map(rowOf));
  const present = new Set(items.map((item) => rowOf(item).id));
  const before = new Map<T, T[]>();
  const added: T[] = [];
  for (const rival of rivals) {
    if (present.has(rival.id)) continue;
    const overridden = shadowed.find((item) => {
      const row = rowOf(item);
      return (
        row.key === rival.key &&
        row.domain === rival.domain &&
        SCOPE_PRIORITY[row.scopeType] < SCOPE_PRIORITY[rival.scopeType]
      );
    });
    if (!overridden) continue;
    const made = make(rival, overridden);
    added.push(made);
    before.set(overridden, [...(before.get(overridden) ?? []), made]);
  }
  if (added.length === 0) return { items, added };
  return { items: items.flatMap((item) => [...(before.get(item) ?? []), item]), added };
}
