import { env } from "~/env";
import { postJson } from "../post-json";

/**
 * A re-ranking endpoint (a cross-encoder such as bge-reranker-v2-m3) applied to the best lexical
 * candidates of a search. Two request shapes cover the servers people run:
 * - `cohere` (Cohere, Jina, vLLM, LocalAI, Infinity): `POST {base}/rerank` with
 *   `{model, query, documents, top_n}` → `{results: [{index, relevance_score}]}`;
 * - `tei` (Hugging Face text-embeddings-inference): `POST {base}/rerank` with `{query, texts}` →
 *   `[{index, score}]`.
 * It never fails a search: a timeout, an error status or an answer that does not cover the documents
 * gives `null`, and the caller keeps the lexical order (and says so).
 */
export type Reranker = {
  model: string;
  /** Candidates sent per search (the best of the first stage). */
  topN: number;
  /** One score per document, in the documents' order, or why there is none. */
  rerank(query: string, documents: readonly string[]): Promise<{ scores: number[] } | { error: string }>;
};

export type RerankConfig = {
  baseUrl: string;
  model: string;
  apiKey?: string;
  timeoutMs: number;
  topN: number;
  format: "cohere" | "tei";
  fetch?: typeof fetch;
};

/** Per document, at most this many characters go out (a cross-encoder reads ~512 tokens anyway). */
const MAX_DOCUMENT_CHARS = 2000;
/** Documents per request: TEI refuses more than 32 by default (`--max-client-batch-size`). Batches go out together. */
const BATCH_SIZE = 32;

type CohereAnswer = { results?: { index?: unknown; relevance_score?: unknown }[] };
type TeiAnswer = { index?: unknown; score?: unknown }[];

/** Scores in document order, or why the answer cannot be used. */
export function scoresFromAnswer(answer: unknown, count: number): number[] | string {
  const entries = Array.isArray(answer)
    ? (answer as TeiAnswer).map((e) => ({ index: e?.index, score: e?.score }))
    : Array.isArray((answer as CohereAnswer | null)?.results)
      ? (answer as CohereAnswer).results!.map((e) => ({ index: e?.index, score: e?.relevance_score }))
      : undefined;
  if (!entries) return "the answer has neither `results` nor a list of scores";
  const scores: (number | undefined)[] = Array.from({ length: count }, () => undefined);
  for (const { index, score } of entries) {
    if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || index >= count)
      return `an answer entry has index ${String(index)}, outside 0..${count - 1}`;
    if (typeof score !== "number" || !Number.isFinite(score)) return `the score for document ${index} is not a number`;
    scores[index] = score;
  }
  const missing = scores.findIndex((s) => s === undefined);
  if (missing >= 0) return `no score for document ${missing} (ask for all: top_n ${count})`;
  return scores as number[];
}

export function createReranker(config: RerankConfig): Reranker {
  const endpoint = `${config.baseUrl.replace(/\/+$/, "")}/rerank`;
  const doFetch = config.fetch ?? fetch;
  return {
    model: config.model,
    topN: config.topN,
    async rerank(query, documents) {
      if (documents.length === 0) return { scores: [] };
      const texts = documents.map((d) => d.slice(0, MAX_DOCUMENT_CHARS));
      const batches: string[][] = [];
      for (let i = 0; i < texts.length; i += BATCH_SIZE) batches.push(texts.slice(i, i + BATCH_SIZE));
      const signal = AbortSignal.timeout(config.timeoutMs);
      const answers = await Promise.all(batches.map((batch) => rerankBatch(batch)));
      const failed = answers.find((a): a is { error: string } => "error" in a);
      return failed ?? { scores: answers.flatMap((a) => ("scores" in a ? a.scores : [])) };

      async function rerankBatch(batch: string[]): Promise<{ scores: number[] } | { error: string }> {
        const body =
          config.format === "tei"
            ? { query, texts: batch, truncate: true }
            : { model: config.model, query, documents: batch, top_n: batch.length, return_documents: false };
        let response: Response;
        try {
          response = await postJson(doFetch, endpoint, { apiKey: config.apiKey, body, signal });
        } catch {
          return { error: signal.aborted ? timedOut() : "the rerank endpoint could not be reached (RERANK_BASE_URL)" };
        }
        if (!response.ok) return { error: `the rerank endpoint answered HTTP ${response.status}` };
        let answer: unknown;
        try {
          answer = await response.json();
        } catch {
          return { error: signal.aborted ? timedOut() : "the rerank endpoint's answer is not JSON" };
        }
        const scores = scoresFromAnswer(answer, batch.length);
        return typeof scores === "string"
          ? { error: `the rerank endpoint's answer is unusable: ${scores}` }
          : { scores };
      }
    },
  };
  function timedOut() {
    return `the rerank endpoint did not answer within ${config.timeoutMs} ms (RERANK_TIMEOUT_MS)`;
  }
}

let configured: Reranker | null | undefined;

/** The reranker the environment configures (RERANK_BASE_URL, and RERANK_MODEL unless the format is tei), or null: lexical order only. */
export function getReranker(): Reranker | null {
  if (configured !== undefined) return configured;
  configured =
    env.RERANK_BASE_URL && (env.RERANK_MODEL || env.RERANK_FORMAT === "tei")
      ? createReranker({
          baseUrl: env.RERANK_BASE_URL,
          model: env.RERANK_MODEL ?? "",
          apiKey: env.RERANK_API_KEY,
          timeoutMs: env.RERANK_TIMEOUT_MS,
          topN: env.RERANK_TOP_N,
          format: env.RERANK_FORMAT,
        })
      : null;
  return configured;
}
