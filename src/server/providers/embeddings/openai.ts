import { ServiceError } from "~/server/errors";
import { truncateToTokens } from "~/server/text/token-count";
import { postJson } from "../post-json";
import { normalizeVector, type EmbeddingProvider } from "./types";

export type OpenAiEmbeddingConfig = {
  /** Up to and including `/v1`: https://api.openai.com/v1, http://localhost:11434/v1 (Ollama), … */
  baseUrl: string;
  apiKey?: string;
  model: string;
  dimensions: number;
  timeoutMs: number;
  /** Ask the server for `dimensions`-long vectors (text-embedding-3 supports it; many servers reject it). */
  requestDimensions?: boolean;
  /** Texts per request. */
  batchSize?: number;
  /**
   * Each text is cut to this many tokens (o200k) before it is sent: an endpoint refuses an input over
   * its model's context (OpenAI: 8,191), and cutting by characters let a long Chinese turn through.
   */
  maxInputTokens?: number;
  fetch?: typeof fetch;
};

/** The provider failed; `retryable` says whether trying again later may help (timeouts, 429, 5xx). */
export class EmbeddingProviderError extends ServiceError {
  constructor(
    reason: string,
    message: string,
    readonly retryable: boolean,
  ) {
    super("INTERNAL_SERVER_ERROR", reason, message, { retryable });
    this.name = "EmbeddingProviderError";
  }
}

type EmbeddingResponse = { data?: { index?: number; embedding?: unknown }[]; error?: { message?: string } };

const endpointOf = (baseUrl: string) => `${baseUrl.replace(/\/+$/, "")}/embeddings`;

/** What the server said, briefly: its own error message when it sent one, never the request. */
async function errorDetail(response: Response): Promise<string> {
  const text = await response.text().catch(() => "");
  try {
    const message = (JSON.parse(text) as EmbeddingResponse).error?.message;
    if (message) return message.slice(0, 300);
  } catch {
    // not JSON: fall through to the raw text
  }
  return text.slice(0, 300) || response.statusText;
}

/** Counting tokens costs far more than a length check: only a text that could be over the limit is encoded (a token holds at least one character). */
const cutToTokens = (text: string, maxTokens: number) =>
  text.length <= maxTokens ? text : truncateToTokens(text, maxTokens);

/**
 * Any OpenAI-compatible `POST /v1/embeddings` (OpenAI, Ollama, vLLM, TEI, LM Studio, DashScope).
 * Every request has a timeout; every failure is an EmbeddingProviderError naming what to fix.
 */
export function createOpenAiEmbeddingProvider(config: OpenAiEmbeddingConfig): EmbeddingProvider {
  const endpoint = endpointOf(config.baseUrl);
  const doFetch = config.fetch ?? fetch;
  const batchSize = config.batchSize ?? 64;
  const maxInputTokens = config.maxInputTokens;

  async function embedBatch(texts: readonly string[], signal?: AbortSignal): Promise<number[][]> {
    const timeout = AbortSignal.timeout(config.timeoutMs);
    const body = {
      model: config.model,
      input: texts,
      encoding_format: "float",
      ...(config.requestDimensions ? { dimensions: config.dimensions } : {}),
    };
    let response: Response;
    try {
      response = await postJson(doFetch, endpoint, {
        apiKey: config.apiKey,
        body,
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (error) {
      if (timeout.aborted) {
        throw new EmbeddingProviderError(
          "embedding_timeout",
          `The embedding endpoint ${endpoint} did not answer within ${config.timeoutMs} ms. Check that it is up, or raise EMBEDDING_TIMEOUT_MS.`,
          true,
        );
      }
      const cause =
        error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
      throw new EmbeddingProviderError(
        "embedding_unreachable",
        `Cannot reach the embedding endpoint ${endpoint} (${cause}). Check EMBEDDING_BASE_URL.`,
        true,
      );
    }
    if (!response.ok) {
      const detail = await errorDetail(response);
      if (response.status === 401 || response.status === 403) {
        throw new EmbeddingProviderError(
          "embedding_unauthorized",
          `The embedding endpoint refused the credentials (HTTP ${response.status}: ${detail}). Check EMBEDDING_API_KEY.`,
          false,
        );
      }
      if (response.status === 404) {
        throw new EmbeddingProviderError(
          "embedding_not_found",
          `The embedding endpoint answered 404 for model "${config.model}" (${detail}). Check EMBEDDING_BASE_URL (it should end in /v1) and EMBEDDING_MODEL.`,
          false,
        );
      }
      const retryable = response.status === 429 || response.status >= 500;
      throw new EmbeddingProviderError(
        "embedding_http_error",
        `The embedding endpoint answered HTTP ${response.status}: ${detail}.`,
        retryable,
      );
    }
    let parsed: EmbeddingResponse;
    try {
      parsed = (await response.json()) as EmbeddingResponse;
    } catch {
      throw new EmbeddingProviderError(
        "embedding_bad_response",
        `The embedding endpoint ${endpoint} did not answer with JSON; is EMBEDDING_BASE_URL an OpenAI-compatible API?`,
        false,
      );
    }
    const data = Array.isArray(parsed.data) ? parsed.data : [];
    if (data.length !== texts.length) {
      throw new EmbeddingProviderError(
        "embedding_bad_response",
        `The embedding endpoint returned ${data.length} vectors for ${texts.length} texts.`,
        false,
      );
    }
    const ordered = [...data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
    return ordered.map((item) => {
      const vector = item.embedding;
      if (!Array.isArray(vector) || vector.some((x) => typeof x !== "number" || !Number.isFinite(x))) {
        throw new EmbeddingProviderError(
          "embedding_bad_response",
          "The embedding endpoint returned a vector that is not a list of numbers (base64 encoding is not supported).",
          false,
        );
      }
      if (vector.length !== config.dimensions) {
        throw new EmbeddingProviderError(
          "embedding_dimension_mismatch",
          `Model "${config.model}" returned ${vector.length}-dimensional vectors but EMBEDDING_DIMENSIONS is ${config.dimensions}. Set EMBEDDING_DIMENSIONS=${vector.length}${vector.length > 2000 ? " (over 2000: also set EMBEDDING_REQUEST_DIMENSIONS=true with a smaller EMBEDDING_DIMENSIONS, if the model supports it)" : ""}.`,
          false,
        );
      }
      return normalizeVector([...(vector as number[])]);
    });
  }

  return {
    model: config.model,
    dimensions: config.dimensions,
    minSimilarity: 0.25,
    signalWeight: 1,
    async embed(texts, options) {
      const out: number[][] = [];
      for (let i = 0; i < texts.length; i += batchSize) {
        // Servers reject empty input strings; a blank text gets a blank placeholder the caller ignores.
        const batch = texts
          .slice(i, i + batchSize)
          .map((t) => (t.trim() ? (maxInputTokens ? cutToTokens(t, maxInputTokens) : t) : " "));
        out.push(...(await embedBatch(batch, options?.signal)));
      }
      return out;
    },
  };
}
