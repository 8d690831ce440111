import { log } from "~/server/log";
import { getEmbeddingProvider, type EmbeddingProvider } from "~/server/providers/embeddings";
import { isZeroVector } from "~/server/providers/embeddings/types";

/** A search never waits long for a remote model: past this it answers without the vector signal. */
const QUERY_EMBED_TIMEOUT_MS = 3000;

export type QueryVector = { values: number[]; model: string; minSimilarity: number; weight: number };

/** `undefined` means "use the configured provider"; `null` turns the vector signal off. */
export function resolveProvider(choice: EmbeddingProvider | null | undefined): EmbeddingProvider | null {
  if (choice !== undefined) return choice;
  try {
    return getEmbeddingProvider();
  } catch (error) {
    log("warn", `embedding provider unavailable: ${error instanceof Error ? error.message : String(error)}`);
    return null;
  }
}

/** The query's vector, or a warning saying why the search runs without one. */
export async function embedQuery(
  provider: EmbeddingProvider | null,
  text: string,
): Promise<{ vector?: QueryVector; warning?: string }> {
  if (!provider || provider.signalWeight <= 0 || !text.trim()) return {};
  try {
    const [values] = await provider.embed([text], { signal: AbortSignal.timeout(QUERY_EMBED_TIMEOUT_MS) });
    if (!values || values.length !== provider.dimensions || isZeroVector(values)) return {};
    return {
      vector: { values, model: provider.model, minSimilarity: provider.minSimilarity, weight: provider.signalWeight },
    };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log("warn", `query embedding failed; searching without vectors: ${message}`);
    return { warning: "The embedding provider did not answer; results come from full-text and trigram matching only." };
  }
}
