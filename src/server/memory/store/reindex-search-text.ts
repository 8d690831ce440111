import { sql } from "drizzle-orm";
import { queryRows } from "~/db/raw";
import type { Database } from "~/db/types";
import { toSimplifiedHan } from "~/server/text/han-variants";
import { buildCardSearchFields } from "./search-fields";
import { chineseNumeralValues } from "~/server/text/chinese-numerals";
import { normalizeSearchText, segmentForSearch } from "~/server/text/segment";

type Row = Record<string, unknown> & { id: string };

/**
 * Each table's segmented search columns (the tsvectors are generated from them), the columns they
 * are made of, and how to make them again. Cards, messages and tree summaries are segmented anew from
 * their text; a chunk's search text came from a piece of its message, so its tokens are folded in place
 * and the digits of its Chinese numerals added.
 */
const TABLES: { table: string; read: string; columns: string[]; rebuild: (row: Row) => string[] }[] = [
  {
    table: "memory_nodes",
    read: "title, content, key, item_key, entities, tags, value_json::text as value_json_text, category_path",
    columns: ["search_title", "search_keys", "search_values", "search_body"],
    rebuild: (row) => {
      const fields = buildCardSearchFields({
        title: row.title as string,
        content: row.content as string,
        key: row.key as string,
        itemKey: (row.item_key as string | null) ?? null,
        entities: (row.entities as string[]) ?? [],
        tags: (row.tags as string[]) ?? [],
        // As text: a driver reads a JSON string that holds JSON text ("123") back as the number.
        valueJson: row.value_json_text === null ? null : JSON.parse(row.value_json_text as string),
        categoryPath: (row.category_path as string[]) ?? [],
      });
      return [fields.searchTitle, fields.searchKeys, fields.searchValues, fields.searchBody];
    },
  },
  {
    table: "memory_messages",
    read: "content",
    columns: ["search_text"],
    rebuild: (row) => [segmentForSearch(row.content as string)],
  },
  {
    table: "memory_tree_summaries",
    read: "content",
    columns: ["search_text"],
    rebuild: (row) => [segmentForSearch(row.content as string)],
  },
  {
    table: "memory_chunks",
    read: "search_text as old_search_text, content",
    columns: ["search_text"],
    rebuild: (row) => [withNumerals(toSimplifiedHan(row.old_search_text as string), row.content as string)],
  },
];

/** `searchText` with the digits of the numbers `content` writes in Chinese numerals it lacks. */
function withNumerals(searchText: string, content: string): string {
  const tokens = new Set(searchText.split(" "));
  const missing = chineseNumeralValues(normalizeSearchText(content)).filter((value) => !tokens.has(value));
  return missing.length > 0 ? `${searchText} ${missing.join(" ")}` : searchText;
}

const BATCH = 500;

/**
 * Rewrites search text indexed by an earlier release: traditional Chinese now folds to simplified
 * (han-variants.ts), hyphenated words are indexed whole too, and numbers in Chinese numerals as their
 * digits (chinese-numerals.ts), so rows stored before miss queries that now find new ones. One batch
 * per transaction, only rows whose text changes are written; safe to stop and run again. Returns the
 * rows changed per table.
 */
export async function reindexSearchText(db: Database, params: { tenantId: string }): Promise<Record<string, number>> {
  const changed: Record<string, number> = {};
  for (const { table, read, columns, rebuild } of TABLES) {
    changed[table] = 0;
    let after = "";
    for (;;) {
      const rows = await queryRows<Row>(
        db,
        sql`select id, ${sql.raw(read)}, ${sql.join(
          columns.map((c) => sql.identifier(c)),
          sql`, `,
        )} from ${sql.identifier(table)}
            where tenant_id = ${params.tenantId} and id > ${after} order by id limit ${BATCH}`,
      );
      if (rows.length === 0) break;
      after = rows.at(-1)!.id;
      const updates = rows.flatMap((row) => {
        const next = rebuild(row);
        return next.some((value, i) => value !== row[columns[i]!]) ? [{ id: row.id, next }] : [];
      });
      if (updates.length > 0) {
        await db.transaction(async (tx) => {
          for (const { id, next } of updates) {
            const set = sql.join(
              columns.map((c, i) => sql`${sql.identifier(c)} = ${next[i]}`),
              sql`, `,
            );
            await tx.execute(
              sql`update ${sql.identifier(table)} set ${set} where tenant_id = ${params.tenantId} and id = ${id}`,
            );
          }
        });
      }
      changed[table] += updates.length;
    }
  }
  return changed;
}
