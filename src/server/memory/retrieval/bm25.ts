import type { CorpusStats } from "./corpus-stats";
import { aliasedIndices, type QueryTerm } from "./query-terms";
import type { Hit } from "./signals";

/**
 * BM25 constants: the usual k1; b below the usual 0.75 because a long turn or card usually says
 * more, not the same thing padded (LoCoMo recall@10: b 0.75 → 0.59, 0.4 → 0.61, with k1 1.2).
 */
const BM25_K1 = 1.2;
const BM25_B = 0.5;

export type MatchedDoc = {
  id: string;
  length: number;
  /** Per query term: the summed weight of the classes it occurs in (0 = absent). */ tf: readonly number[];
};

/**
 * BM25 over documents that match at least one term. Term frequency is presence per weight class
 * (turns and cards are short: a content word rarely repeats, and binary tf measured the same on
 * LoCoMo), document frequency is counted over the matches — exact, since every row containing a
 * term is among them, unless the term was left out of the match (`dfAtLeast` then estimates it) —
 * and N and the mean length come from the whole scope.
 */
export function bm25Scores(
  docs: readonly MatchedDoc[],
  terms: readonly QueryTerm[],
  stats: CorpusStats,
  dfAtLeast: readonly number[] = [],
): Hit[] {
  return scoreBm25(docs, terms, stats, documentFrequencies(docs, terms.length, dfAtLeast));
}

/** BM25's inverse document frequency of a term in `df` of `n` documents (never negative). */
export const bm25Idf = (n: number, df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));

/** bm25Scores with the document frequencies already counted (documentFrequencies). */
export function scoreBm25(
  docs: readonly MatchedDoc[],
  terms: readonly QueryTerm[],
  stats: CorpusStats,
  df: readonly number[],
): Hit[] {
  const n = Math.max(stats.n, docs.length, ...df);
  const avglen = Math.max(stats.avglen, 1);
  const idf = df.map((d) => bm25Idf(n, d));
  // A single character's weight scaled by how rare it is (idf / the idf of a term in one row).
  const rarest = Math.log(1 + (n - 0.5) / 1.5);
  const weight = terms.map((term, i) => (term.idfScaled ? term.weight * Math.min(1, idf[i]! / rarest) : term.weight));
  // An alias counts only in a row without the words it stands for: a row naming both is about one subject.
  const standsFor = aliasedIndices(terms);
  const hits: Hit[] = [];
  for (const doc of docs) {
    const norm = BM25_K1 * (1 - BM25_B + (BM25_B * doc.length) / avglen);
    let score = 0;
    terms.forEach((term, i) => {
      const tf = doc.tf[i]!;
      if (tf > 0 && !standsFor[i]?.some((j) => doc.tf[j]! > 0))
        score += (weight[i]! * idf[i]! * tf * (BM25_K1 + 1)) / (tf + norm);
    });
    if (score > 0) hits.push({ id: doc.id, score });
  }
  return hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
}

/** Per query term: matched documents containing it, at least `dfAtLeast` (a term left out of the match). */
export function documentFrequencies(
  docs: readonly MatchedDoc[],
  termCount: number,
  dfAtLeast: readonly number[],
): number[] {
  return Array.from({ length: termCount }, (_, i) =>
    Math.max(
      dfAtLeast[i] ?? 0,
      docs.reduce((count, doc) => count + (doc.tf[i]! > 0 ? 1 : 0), 0),
    ),
  );
}
