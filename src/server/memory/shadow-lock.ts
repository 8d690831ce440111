import { sql, type SQL } from "drizzle-orm";

/**
 * The transaction-long advisory lock on one slot (tenant + domain + key) across scopes: the one the
 * trigger memory_nodes_mark_shadowed (migration 0013) takes before it marks the slot's broader cards.
 * Anything that reads or changes those marks takes it the same way, so writers of a slot take turns.
 */
export const slotShadowLock = (tenantId: string, domain: string, key: string): SQL =>
  sql`select pg_advisory_xact_lock(hashtextextended(${tenantId} || chr(1) || ${domain} || chr(1) || ${key}, 7321))`;

/** Each slot once, in one order for every transaction (so two that lock several never wait in a cycle). */
export function distinctSlots(items: readonly { domain: string; key: string }[]): { domain: string; key: string }[] {
  const byName = new Map(items.map(({ domain, key }) => [`${domain}\u0001${key}`, { domain, key }]));
  return [...byName.keys()].sort().map((name) => byName.get(name)!);
}
