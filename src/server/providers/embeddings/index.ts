import { env } from "~/env";
import { ServiceError } from "~/server/errors";
import { createLocalEmbeddingProvider, LOCAL_EMBEDDING_MODEL } from "./local";
import { createOpenAiEmbeddingProvider } from "./openai";
import type { EmbeddingProvider } from "./types";

export type { EmbeddingProvider } from "./types";
export { EmbeddingProviderError } from "./openai";

export type EmbeddingConfig = Pick<
  typeof env,
  | "EMBEDDING_PROVIDER"
  | "EMBEDDING_MODEL"
  | "EMBEDDING_DIMENSIONS"
  | "EMBEDDING_BASE_URL"
  | "EMBEDDING_API_KEY"
  | "EMBEDDING_TIMEOUT_MS"
  | "EMBEDDING_REQUEST_DIMENSIONS"
  | "EMBEDDING_MAX_TOKENS"
>;

/** Builds the provider a configuration names; throws a ServiceError saying which variable to set. */
export function createEmbeddingProvider(config: EmbeddingConfig): EmbeddingProvider {
  if (config.EMBEDDING_PROVIDER === "local") {
    return createLocalEmbeddingProvider({ model: config.EMBEDDING_MODEL, dimensions: config.EMBEDDING_DIMENSIONS });
  }
  if (config.EMBEDDING_MODEL === LOCAL_EMBEDDING_MODEL) {
    throw new ServiceError(
      "INTERNAL_SERVER_ERROR",
      "embedding_model_required",
      `EMBEDDING_PROVIDER=openai needs EMBEDDING_MODEL set to the endpoint's model name (e.g. text-embedding-3-small, nomic-embed-text).`,
    );
  }
  return createOpenAiEmbeddingProvider({
    baseUrl: config.EMBEDDING_BASE_URL,
    apiKey: config.EMBEDDING_API_KEY,
    model: config.EMBEDDING_MODEL,
    dimensions: config.EMBEDDING_DIMENSIONS,
    timeoutMs: config.EMBEDDING_TIMEOUT_MS,
    requestDimensions: config.EMBEDDING_REQUEST_DIMENSIONS,
    maxInputTokens: config.EMBEDDING_MAX_TOKENS,
  });
}

let configured: EmbeddingProvider | undefined;

/** The provider the environment configures (created once per process). */
export function getEmbeddingProvider(): EmbeddingProvider {
  configured ??= createEmbeddingProvider(env);
  return configured;
}
