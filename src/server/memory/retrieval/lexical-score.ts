import type { MemoryCard } from "../store/card-view";
import { segmentForSearch } from "~/server/text/segment";
import { queryTerms, type QueryTerm } from "./query-terms";

/**
 * The in-memory relevance score (docs/retrieval.md), for cards ranked in memory rather than by the
 * database (`asOf` reads): title 5, entities/key 4, tags/value 3, category/content 2 per matched query
 * term, plus importance × 2 + confidence. Zero term matches means not relevant at all.
 */
const FIELD_WEIGHTS = { title: 5, keys: 4, values: 3, body: 2 } as const;

function fieldTokens(card: MemoryCard) {
  const value = card.valueJson === null || card.valueJson === undefined ? "" : JSON.stringify(card.valueJson);
  return {
    title: new Set(segmentForSearch(card.title).split(" ")),
    keys: new Set(segmentForSearch([card.key.replace(/[._:]/g, " "), ...card.entities].join(" ")).split(" ")),
    values: new Set(segmentForSearch([...card.tags, value].join(" ")).split(" ")),
    body: new Set(segmentForSearch([card.content, ...card.categoryPath].join(" ")).split(" ")),
  };
}

const matches = (tokens: Set<string>, term: QueryTerm) =>
  term.prefix ? [...tokens].some((t) => t.startsWith(term.term)) : tokens.has(term.term);

/** The lexical match alone (0 when no query term occurs in the card). */
export function lexicalMatch(card: MemoryCard, terms: readonly QueryTerm[]): number {
  const fields = fieldTokens(card);
  let score = 0;
  for (const term of terms) {
    for (const [field, weight] of Object.entries(FIELD_WEIGHTS) as [keyof typeof FIELD_WEIGHTS, number][]) {
      if (matches(fields[field], term)) score += weight;
    }
  }
  return score;
}

/** Cards matching the query, best first, by that score. */
export function rankLexically<T extends MemoryCard>(
  cards: readonly T[],
  queryText: string,
): { card: T; score: number }[] {
  const terms = queryTerms(queryText);
  if (terms.length === 0) return [];
  return cards
    .map((card) => ({ card, match: lexicalMatch(card, terms) }))
    .filter((x) => x.match > 0)
    .map((x) => ({ card: x.card, score: x.match + x.card.importance * 2 + x.card.confidence }))
    .sort((a, b) => b.score - a.score);
}
