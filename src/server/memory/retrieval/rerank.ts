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

/** What a card is judged by (its title and text, as a person reads them), and its lexical score. */
type RerankableCard = { title: string; content: string; score?: ScoreComponents; matchedBy?: readonly string[] };

/** The boosts boostedScore adds, each a share of the relevance (fusion.ts). */
const BOOSTS = ["importance", "confidence", "recency", "hotness", "explicit"] as const;

/**
 * The same for the relevant cards, whose lexical score is a relevance (`fused`) plus boosts
 * (importance, confidence, recency, hotness, explicit intent) that are shares of it. The endpoint's
 * score takes the relevance's place, and the boosts are rescaled with it, so `final` is still the
 * relevance plus the boosts: a probability (servers that answer 0–1) as it is, raw logits scaled to
 * 0–1 over the candidates. A card that overrides another's slot in a more specific scope
 * (matchedBy `slot`, placed just before it: slot-rivals.ts) moves with that card and takes its score.
 * Scores that all agree say nothing: the lexical order stands. Cards past the candidates follow in
 * lexical order.
 */
export async function rerankCards<C extends RerankableCard>(
  reranker: Reranker,
  query: string,
  cards: readonly C[],
): Promise<{ cards: C[]; error?: string }> {
  const groups: C[][] = [];
  let pending: C[] = [];
  for (const card of cards) {
    pending.push(card);
    if (card.matchedBy?.includes("slot")) continue;
    groups.push(pending);
    pending = [];
  }
  if (pending.length) groups.push(pending);
  const candidates = groups.slice(0, reranker.topN);
  const judged = candidates.map((group) => group.at(-1)!);
  if (judged.length < 2) return { cards: [...cards] };
  const answer = await reranker.rerank(
    query,
    judged.map((card) => (card.content.startsWith(card.title) ? card.content : `${card.title}\n${card.content}`)),
  );
  if ("error" in answer) return { cards: [...cards], error: answer.error };
  const { scores } = answer;
  const low = Math.min(...scores);
  const high = Math.max(...scores);
  const probabilities = low >= 0 && high <= 1;
  const ranked = candidates.map((group, i) => {
    const lexical = judged[i]!.score ?? { final: 0 };
    const relevance = high === low ? undefined : probabilities ? scores[i]! : (scores[i]! - low) / (high - low);
    // `rerank` is the relevance the boosts are shares of (a probability as answered, a logit scaled).
    const score: ScoreComponents = { ...lexical, rerank: relevance === undefined ? scores[i]! : round(relevance) };
    if (relevance !== undefined) {
      const share = lexical.fused ? relevance / lexical.fused : 0;
      let final = relevance;
      for (const boost of BOOSTS) {
        const part = lexical[boost];
        if (part === undefined) continue;
        score[boost] = round(part * share);
        final += score[boost];
      }
      score.final = round(final);
    }
    // The cards were made for this search (search.ts): extended in place, not copied.
    for (const card of group) Object.assign(card, { score: { ...score } });
    return { group, final: score.final, lexicalRank: i };
  });
  if (high > low) ranked.sort((a, b) => b.final - a.final || a.lexicalRank - b.lexicalRank);
  return { cards: [...ranked.flatMap((r) => r.group), ...groups.slice(candidates.length).flat()] };
}

/** The warning for lists the endpoint could not re-rank (what failed, and that the order is lexical). */
export function rerankWarning(errors: { memories?: string; evidence?: string }): string | undefined {
  const { memories, evidence } = errors;
  if (memories && evidence && memories === evidence)
    return `Re-ranking skipped: memories and evidence are in lexical order (${memories}).`;
  const parts = [
    memories && `memories are in lexical order (${memories})`,
    evidence && `evidence is in lexical order (${evidence})`,
  ].filter(Boolean);
  return parts.length ? `Re-ranking skipped: ${parts.join("; ")}.` : undefined;
}
