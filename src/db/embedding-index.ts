import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import type { DbOrTx } from "./types";

/** Index name for a model: readable slug + short hash, within Postgres' 63-character limit. */
export function embeddingIndexName(model: string, dimensions: number): string {
  const slug = model.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_|_$/g, "").slice(0, 24);
  const hash = createHash("sha256").update(`${model}/${dimensions}`).digest("hex").slice(0, 8);
  return `memory_embeddings_hnsw_${slug}_${dimensions}_${hash}`;
}

/**
 * One HNSW index per embedding model: `memory_embeddings.embedding` has no fixed dimension, so each
 * model gets a partial expression index casting to its own dimension. Switching models is then a
 * re-embed plus this call, never a schema change.
 */
export async function ensureEmbeddingIndex(db: DbOrTx, model: string, dimensions: number): Promise<string> {
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 2000) {
    throw new Error(`Embedding dimension ${dimensions} is not supported by an HNSW index (1–2000).`);
  }
  const name = embeddingIndexName(model, dimensions);
  const literal = model.replace(/'/g, "''");
  await db.execute(
    sql.raw(
      `create index if not exists "${name}" on memory_embeddings using hnsw ((embedding::vector(${dimensions})) vector_cosine_ops) where model = '${literal}'`,
    ),
  );
  return name;
}
