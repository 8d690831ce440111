import { sql, type SQL } from "drizzle-orm";

/**
 * Advisory locks on slots, transaction-long. Two kinds, one order:
 * - a slot in one scope (tenant | scope | key, seed 0): writers of that slot take turns (write.ts);
 * - a slot across scopes (tenant, domain, key, seed 7321): the one the trigger memory_nodes_mark_shadowed
 *   (migration 0013) takes before it marks the slot's broader cards, as `tenant || chr(1) || domain ||
 *   chr(1) || key`; anything that reads or changes those marks takes it the same way.
 * Every transaction takes the locks it needs in `order`, so two that need several never wait in a cycle.
 */
export type SlotLock = { name: string; seed: number; order: string };

const SHADOW_LOCK_SEED = 7321;
const SEP = "\u0001";

const slotOrder = (domain: string, key: string) => `${key}${SEP}${domain}`;

export const scopedSlotLock = (tenantId: string, scope: string, domain: string, key: string): SlotLock => ({
  name: `${tenantId}|${scope}|${key}`,
  seed: 0,
  order: `${slotOrder(domain, key)}${SEP}0${SEP}${scope}`,
});

export const shadowSlotLock = (tenantId: string, domain: string, key: string): SlotLock => ({
  name: `${tenantId}${SEP}${domain}${SEP}${key}`,
  seed: SHADOW_LOCK_SEED,
  order: `${slotOrder(domain, key)}${SEP}1`,
});

/**
 * One statement that takes these locks one after another, each once, in their order: the function scan
 * hands the aggregate its rows in array order.
 */
export function takeSlotLocks(locks: readonly SlotLock[]): SQL | null {
  const unique = [...new Map(locks.map((lock) => [`${lock.seed}${SEP}${lock.name}`, lock])).values()].sort((a, b) =>
    a.order < b.order ? -1 : a.order > b.order ? 1 : 0,
  );
  if (unique.length === 0) return null;
  return sql`select count(pg_advisory_xact_lock(hashtextextended(t.name, t.seed))) as n
    from unnest(${sql.param(unique.map((lock) => lock.name))}::text[], ${sql.param(unique.map((lock) => lock.seed))}::int8[]) as t(name, seed)`;
}
