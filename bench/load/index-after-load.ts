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

export async function withCardIndexesBuiltAfterLoad(db: Database, load: (tx: DbOrTx) => Promise<void>, log: (line: string) => void): Promise<void> {
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
