import type { Reranker } from "~/server/providers/rerank";
import { round } from "./fusion";
import type { EvidenceHit, ScoreComponents } from "./search-schema";

/**
 * The second stage for users with a re-ranking model: the first stage's best `reranker.topN`
 * evidence hits are scored by the endpoint and re-ordered by that score (each hit keeps its lexical
 * parts in `components`, plus `rerank`). On any failure the lexical order stands and `error` says why.
 */
export async function rerankEvidence(
  reranker: Reranker,
  query: string,
  hits: readonly EvidenceHit[],
  limit: number,
): Promise<{ hits: EvidenceHit[]; error?: string }> {
  const candidates = hits.slice(0, reranker.topN);
  if (candidates.length < 2) return { hits: hits.slice(0, limit) };
  const answer = await reranker.rerank(
    query,
    candidates.map((h) => h.content),
  );
  if ("error" in answer) return { hits: hits.slice(0, limit), error: answer.error };
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

/** What a card is judged by: its title and its text, as a person reads it. */
type RerankableCard = { title: string; content: string; score?: ScoreComponents };

/**
 * The same for the relevant cards, whose lexical score carries boosts (importance, confidence,
 * recency, hotness, explicit intent: fusion.ts) as a multiple of the relevance it found. The
 * endpoint's scores, scaled to 0–1 over the candidates (servers answer probabilities or raw
 * logits), take the place of that relevance and the boosts multiply it as before: `rerank` is the
 * endpoint's score, `final` the boosted one. Cards past the candidates follow in lexical order.
 */
export async function rerankCards<C extends RerankableCard>(
  reranker: Reranker,
  query: string,
  cards: readonly C[],
): Promise<{ cards: C[]; error?: string }> {
  const candidates = cards.slice(0, reranker.topN);
  if (candidates.length < 2) return { cards: [...cards] };
  const answer = await reranker.rerank(
    query,
    candidates.map((card) => (card.content.startsWith(card.title) ? card.content : `${card.title}\n${card.content}`)),
  );
  if ("error" in answer) return { cards: [...cards], error: answer.error };
  const { scores } = answer;
  const low = Math.min(...scores);
  const high = Math.max(...scores);
  const ranked = candidates.map((card, i) => {
    const relevance = high > low ? (scores[i]! - low) / (high - low) : 1;
    const { fused, final } = card.score ?? {};
    const boost = fused && final ? final / fused : 1;
    const score: ScoreComponents = { ...card.score, rerank: scores[i]!, final: round(relevance * boost) };
    // The card was made for this search (search.ts): extended in place, not copied.
    return { card: Object.assign(card, { score }), final: score.final, lexicalRank: i };
  });
  ranked.sort((a, b) => b.final - a.final || a.lexicalRank - b.lexicalRank);
  return { cards: [...ranked.map((r) => r.card), ...cards.slice(candidates.length)] };
}
