// Loads many cards the way a restore does: memory_nodes' secondary indexes are dropped, the rows
// inserted, and the indexes built again from their own definitions, all in one transaction (a
// failure leaves the database as it was). Inserting a card updates seven GIN indexes in place
// (fastupdate off), which made seeding 1M cards take most of an hour on two cores; building each
// index once over the loaded rows takes minutes. Unique indexes stay: they guard the data.
import { sql } from "drizzle-orm";
import { queryRows } from "~/db/raw";
import type { Database, DbOrTx } from "~/db/types";

type IndexDefinition = { name: string; definition: string };

async function secondaryIndexes(tx: DbOrTx): Promise<IndexDefinition[]> {
  return queryRows<IndexDefinition>(
    tx,
    sql`select c.relname as name, pg_get_indexdef(i.indexrelid) as definition
          from pg_index i join pg_class c on c.oid = i.indexrelid
         where i.indrelid = 'memory_nodes'::regclass and not i.indisunique and not i.indisprimary
         order by c.relname`,
  );
}

export async function withCardIndexesBuiltAfterLoad(
  db: Database,
  load: (tx: DbOrTx) => Promise<void>,
  log: (line: string) => void,
): Promise<void> {
  await db.transaction(async (tx) => {
    // Index builds sort in memory when they can; the bench machine has room for it.
    await tx.execute(sql`set local maintenance_work_mem = '1GB'`);
    const indexes = await secondaryIndexes(tx);
    for (const index of indexes) await tx.execute(sql.raw(`drop index "${index.name}"`));
    log(`    dropped ${indexes.length} secondary indexes of memory_nodes for the load`);
    await load(tx);
    for (const index of indexes) {
      const t0 = performance.now();
      await tx.execute(sql.raw(index.definition));
      log(`    built ${index.name} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    }
  });
}

/**
 * Loads cards with the trigger memory_nodes_mark_shadowed (migration 0013) off, and marks them after,
 * as the migration marks the cards stored before it, in the same transaction: the trigger takes an
 * advisory lock per card, and a transaction of thousands of cards would run out of lock slots.
 */
export async function withShadowMarksAfterLoad(
  db: DbOrTx,
  load: (tx: DbOrTx) => Promise<void>,
  log: (line: string) => void,
): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.execute(sql`alter table memory_nodes disable trigger memory_nodes_mark_shadowed`);
    await load(tx);
    await tx.execute(sql`alter table memory_nodes enable trigger memory_nodes_mark_shadowed`);
    const t0 = performance.now();
    const [marked] = await queryRows<{ n: number }>(
      tx,
      sql`with marked as (
            update memory_nodes as m set shadowed = true
             where m.status = 'active' and not m.shadowed and exists (
               select 1 from memory_nodes as r
                where r.tenant_id = m.tenant_id and r.key = m.key and r.status = 'active' and r.domain = m.domain
                  and memory_scope_priority(r.scope_type) > memory_scope_priority(m.scope_type))
            returning 1)
          select count(*)::int as n from marked`,
    );
    log(`    marked ${marked?.n ?? 0} shadowed cards in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  });
}
