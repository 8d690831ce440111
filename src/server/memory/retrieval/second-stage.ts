import { CJK_CHAR_CLASS, normalizeSearchText } from "../segment";
import type { QueryTerm } from "./query-terms";

/**
 * The second ranking stage: features a term index cannot see, computed over the text of the first
 * stage's best candidates.
 * - coverage: the share of the query's term weight (weight × IDF) the candidate contains;
 * - proximity: how close together the matched terms stand (pairs of distinct terms, nearest
 *   occurrences, min weight / distance², as in BM25TP), relative to the query's whole weight;
 * - phrase: the longest run of the query's own tokens (CJK characters, words) found unbroken in the
 *   candidate, from 3 tokens up (a bigram match is already a term).
 * Pure and deterministic; each hit's `components` carries the three parts.
 */

export type SecondStageFeatures = { coverage: number; proximity: number; phrase: number };
export type SecondStageWeights = { coverage: number; proximity: number; phrase: number };

const CJK_CHAR = new RegExp(`[${CJK_CHAR_CLASS}]`, "u");
/** One CJK character, or a run of other letters and digits: the positions proximity is counted in. */
const TOKEN = new RegExp(`[${CJK_CHAR_CLASS}]|(?:(?![${CJK_CHAR_CLASS}])[\\p{L}\\p{M}\\p{N}])+`, "gu");
/** Phrase lengths looked for, in tokens. */
const PHRASE_MIN = 3;
const PHRASE_MAX = 8;
/** Query tokens read for phrases (a pasted dialogue keeps its end, where the question is). */
const PHRASE_QUERY_TOKENS = 400;
/** Candidate tokens read (a long card or turn is searched in its first part only). */
const MAX_TEXT_TOKENS = 600;

export function tokenize(text: string, max = Number.POSITIVE_INFINITY): string[] {
  const out: string[] = [];
  for (const [token] of normalizeSearchText(text).matchAll(TOKEN)) {
    if (out.length >= max) break;
    out.push(token);
  }
  return out;
}

/** Each term's weight for coverage and proximity: its BM25 weight × IDF (single characters scaled as BM25 does). */
export function termWeights(terms: readonly QueryTerm[], df: readonly number[], n: number): number[] {
  const docs = Math.max(n, 1, ...df);
  const rarest = Math.log(1 + (docs - 0.5) / 1.5);
  return terms.map((term, i) => {
    const idf = Math.log(1 + (docs - (df[i] ?? 0) + 0.5) / ((df[i] ?? 0) + 0.5));
    return (term.idfScaled ? term.weight * Math.min(1, idf / rarest) : term.weight) * idf;
  });
}

/** Token positions where `term` starts in `tokens` (a CJK term spans its characters; a Latin term is a word, or a word's prefix). */
function positionsOf(term: QueryTerm, tokens: readonly string[]): number[] {
  const out: number[] = [];
  if (CJK_CHAR.test(term.term)) {
    const chars = [...term.term];
    for (let i = 0; i + chars.length <= tokens.length; i++) {
      let ok = true;
      for (let j = 0; j < chars.length && ok; j++) ok = tokens[i + j] === chars[j];
      if (ok) out.push(i);
    }
    return out;
  }
  tokens.forEach((token, i) => {
    if (token === term.term || (term.prefix && token.startsWith(term.term))) out.push(i);
  });
  return out;
}

const span = (term: QueryTerm) => (CJK_CHAR.test(term.term) ? [...term.term].length : 1);

/** The query's n-grams (n = PHRASE_MIN…PHRASE_MAX) of tokens, for phraseLength. */
export function queryPhrases(question: string): Set<string> {
  const tokens = tokenize(question).slice(-PHRASE_QUERY_TOKENS);
  const grams = new Set<string>();
  for (let n = PHRASE_MIN; n <= PHRASE_MAX; n++) for (let i = 0; i + n <= tokens.length; i++) grams.add(tokens.slice(i, i + n).join("\u0001"));
  return grams;
}

function phraseLength(phrases: ReadonlySet<string>, tokens: readonly string[]): number {
  let best = 0;
  for (let n = PHRASE_MIN; n <= PHRASE_MAX; n++) {
    let found = false;
    for (let i = 0; i + n <= tokens.length && !found; i++) found = phrases.has(tokens.slice(i, i + n).join("\u0001"));
    if (!found) break;
    best = n;
  }
  return best;
}

/** The three features of one candidate text. `weights` from termWeights, `phrases` from queryPhrases. */
export function candidateFeatures(terms: readonly QueryTerm[], weights: readonly number[], phrases: ReadonlySet<string>, text: string): SecondStageFeatures {
  const total = weights.reduce((sum, w) => sum + w, 0);
  if (total <= 0) return { coverage: 0, proximity: 0, phrase: 0 };
  const tokens = tokenize(text, MAX_TEXT_TOKENS);
  const matched: { weight: number; positions: number[]; span: number }[] = [];
  let covered = 0;
  terms.forEach((term, i) => {
    const positions = positionsOf(term, tokens);
    if (positions.length === 0) return;
    covered += weights[i]!;
    matched.push({ weight: weights[i]!, positions, span: span(term) });
  });
  let proximity = 0;
  for (let a = 0; a < matched.length; a++) {
    for (let b = a + 1; b < matched.length; b++) {
      const x = matched[a]!;
      const y = matched[b]!;
      let nearest = Number.POSITIVE_INFINITY;
      for (const p of x.positions) {
        for (const q of y.positions) {
          // Distance between the end of the first and the start of the second; overlapping terms (a
          // bigram and its own character) say nothing about proximity.
          const d = p < q ? q - (p + x.span) + 1 : p - (q + y.span) + 1;
          if (d >= 1 && d < nearest) nearest = d;
        }
      }
      if (Number.isFinite(nearest)) proximity += Math.min(x.weight, y.weight) / (nearest * nearest);
    }
  }
  const phrase = phraseLength(phrases, tokens);
  return { coverage: covered / total, proximity: proximity / total, phrase: phrase === 0 ? 0 : Math.min(1, (phrase - PHRASE_MIN + 1) / (PHRASE_MAX - PHRASE_MIN + 1)) };
}

/** Features for one question and candidate (the offline fitting script's entry; the service batches). */
export function secondStageFeatures(question: string, terms: readonly QueryTerm[], df: readonly number[], n: number, text: string): SecondStageFeatures {
  return candidateFeatures(terms, termWeights(terms, df, n), queryPhrases(question), text);
}

/** The first stage's score lifted by the features. */
export function secondStageScore(first: number, f: SecondStageFeatures, w: SecondStageWeights): number {
  return first * (1 + w.coverage * f.coverage + w.proximity * f.proximity + w.phrase * f.phrase);
}
