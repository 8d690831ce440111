/**
 * An embedding model: texts in, one vector per text out (same order, `dimensions` long). `model` is
 * recorded on every stored row, so vectors of different models never meet in one comparison.
 */
export type EmbeddingProvider = {
  readonly model: string;
  readonly dimensions: number;
  /**
   * Cosine similarity below which a vector match is noise rather than a hit (depends on the model:
   * hashed features of unrelated texts sit near 0, neural models near 0.1–0.3).
   */
  readonly minSimilarity: number;
  /**
   * How much this model's ranking counts in rank fusion next to full text (1 = as much). A neural
   * model adds meaning full text cannot see; hashed features mostly repeat it (see docs/retrieval.md).
   */
  readonly signalWeight: number;
  embed(texts: readonly string[], options?: { signal?: AbortSignal }): Promise<number[][]>;
};

/** L2-normalizes in place; a zero vector stays zero (callers skip storing it). */
export function normalizeVector(vector: number[]): number[] {
  let norm = 0;
  for (const x of vector) norm += x * x;
  if (norm === 0) return vector;
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < vector.length; i++) vector[i] = vector[i]! * scale;
  return vector;
}

export const isZeroVector = (vector: readonly number[]) => vector.every((x) => x === 0);
