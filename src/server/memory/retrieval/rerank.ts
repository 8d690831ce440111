import type { Reranker } from "~/server/providers/rerank";
import type { EvidenceHit } from "./search-schema";

/**
 * The second stage for users with a re-ranking model: the first stage's best `reranker.topN`
 * evidence hits are scored by the endpoint and re-ordered by that score (each hit keeps its lexical
 * parts in `components`, plus `rerank`). On any failure the lexical order stands and the warning says why.
 */
export async function rerankEvidence(
  reranker: Reranker,
  query: string,
  hits: readonly EvidenceHit[],
  limit: number,
): Promise<{ hits: EvidenceHit[]; warning?: string }> {
  const candidates = hits.slice(0, reranker.topN);
  if (candidates.length < 2) return { hits: hits.slice(0, limit) };
  const answer = await reranker.rerank(
    query,
    candidates.map((h) => h.content),
  );
  if ("error" in answer)
    return {
      hits: hits.slice(0, limit),
      warning: `Re-ranking skipped, results are in lexical order: ${answer.error}.`,
    };
  const scored = candidates.map((hit, i) => ({ hit, score: answer.scores[i]!, lexicalRank: i }));
  scored.sort((a, b) => b.score - a.score || a.lexicalRank - b.lexicalRank);
  // Hits past the re-ranked ones (RERANK_TOP_N under `limit`) follow in lexical order.
  const reranked = scored.map(({ hit, score }): EvidenceHit => ({
    ...hit,
    score,
    components: { ...hit.components, rerank: score, final: score },
  }));
  return { hits: [...reranked, ...hits.slice(candidates.length)].slice(0, limit) };
}
