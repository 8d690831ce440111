import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import { takeMigrationLock } from "./migrate";
import { queryRows } from "./raw";
import type { Database, Transaction } from "./types";

/** Index name for a model: readable slug + short hash, within Postgres' 63-character limit. */
export function embeddingIndexName(model: string, dimensions: number): string {
  const slug = model
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_|_$/g, "")
    .slice(0, 24);
  const hash = createHash("sha256").update(`${model}/${dimensions}`).digest("hex").slice(0, 8);
  return `memory_embeddings_hnsw_${slug}_${dimensions}_${hash}`;
}

/**
 * One HNSW index per embedding model and dimension: `memory_embeddings.embedding` has no fixed
 * dimension, so each gets a partial expression index casting to its own dimension, over its own rows
 * only (model and dimensions). Switching models or dimensions is then a re-embed plus this call, never
 * a schema change. The model's indexes for another dimension are dropped: they would cast the new
 * rows to the old size and fail every insert (and an index over only the model's name, as made before,
 * could not even be built once rows of two sizes existed, stopping start-up).
 */
export async function ensureEmbeddingIndex(db: Database, model: string, dimensions: number): Promise<string> {
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 2000) {
    throw new Error(`Embedding dimension ${dimensions} is not supported by an HNSW index (1–2000).`);
  }
  // Under the migrations' lock: instances starting together on a new model take turns (two racing
  // `create index if not exists` can both miss the other's and one fails), and none builds while
  // another migrates.
  return db.transaction(async (tx) => {
    await takeMigrationLock(tx);
    return createEmbeddingIndex(tx, model, dimensions);
  });
}

async function createEmbeddingIndex(db: Transaction, model: string, dimensions: number): Promise<string> {
  const name = embeddingIndexName(model, dimensions);
  const literal = model.replace(/'/g, "''");
  const others = await queryRows<{ name: string }>(
    db,
    sql`select indexname as name from pg_indexes
        where schemaname = current_schema() and tablename = 'memory_embeddings' and indexname like 'memory_embeddings_hnsw_%'
          and indexname <> ${name} and position(${`(model = '${literal}'::text)`} in indexdef) > 0`,
  );
  for (const other of others) await db.execute(sql.raw(`drop index if exists "${other.name.replace(/"/g, '""')}"`));
  await db.execute(
    sql.raw(
      `create index if not exists "${name}" on memory_embeddings using hnsw ((embedding::vector(${dimensions})) vector_cosine_ops) where model = '${literal}' and dimensions = ${dimensions}`,
    ),
  );
  return name;
}
