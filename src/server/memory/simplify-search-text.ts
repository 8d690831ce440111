import { sql } from "drizzle-orm";
import { queryRows } from "~/db/raw";
import type { Database } from "~/db/types";
import { toSimplifiedHan } from "./han-variants";

/** The segmented search columns of each table (the tsvectors are generated from them). */
const SEARCH_COLUMNS = {
  memory_nodes: ["search_title", "search_keys", "search_values", "search_body"],
  memory_messages: ["search_text"],
  memory_chunks: ["search_text"],
  memory_tree_summaries: ["search_text"],
} as const;

const BATCH = 500;
/** Any CJK ideograph (Postgres regular expressions have no \p{Han}). */
const HAN_RANGE = "[\u3400-\u9fff\uf900-\ufaff]";

/**
 * Rewrites search text indexed before traditional characters were folded to simplified ones
 * (han-variants.ts): such rows hold 過敏 where queries now send 过敏. Each row's tokens are converted
 * in place, one batch per transaction, so the command can be stopped and run again. Returns the
 * rows changed per table.
 */
export async function simplifySearchText(db: Database, params: { tenantId: string; onProgress?: (table: string, changed: number) => void }): Promise<Record<string, number>> {
  const changed: Record<string, number> = {};
  for (const [table, columns] of Object.entries(SEARCH_COLUMNS)) {
    changed[table] = 0;
    const anyHan = sql.join(columns.map((c) => sql`${sql.identifier(c)} ~ ${HAN_RANGE}`), sql` or `);
    let after = "";
    for (;;) {
      const rows = await queryRows<Record<string, string>>(
        db,
        sql`select id, ${sql.join(columns.map((c) => sql.identifier(c)), sql`, `)} from ${sql.identifier(table)}
            where tenant_id = ${params.tenantId} and id > ${after} and (${anyHan}) order by id limit ${BATCH}`,
      );
      if (rows.length === 0) break;
      after = rows.at(-1)!.id!;
      const updates = rows.flatMap((row) => {
        const next = columns.map((c) => toSimplifiedHan(row[c] ?? ""));
        return next.some((value, i) => value !== row[columns[i]!]) ? [{ id: row.id!, next }] : [];
      });
      if (updates.length > 0) {
        await db.transaction(async (tx) => {
          for (const { id, next } of updates) {
            const set = sql.join(columns.map((c, i) => sql`${sql.identifier(c)} = ${next[i]}`), sql`, `);
            await tx.execute(sql`update ${sql.identifier(table)} set ${set} where tenant_id = ${params.tenantId} and id = ${id}`);
          }
        });
      }
      changed[table] += updates.length;
      params.onProgress?.(table, changed[table]);
    }
  }
  return changed;
}
