import type { SQL } from "drizzle-orm";
import type { DbOrTx } from "~/db/types";
import { scoreBm25, type MatchedDoc } from "./bm25";
import type { CorpusStats } from "./corpus-stats";
import { isOwnWord, isQueryWord, queryTerms, termTsQuery, type QueryTerm } from "./query-terms";
import type { RankingFeatures } from "./ranking-features";
import { RARE_MAX_SHARE, RARE_WORDS_PER_ROW, rareInScope } from "./rare-words";
import { fullTextMatch } from "./signals";
import { termShare, termShares, type TermShares } from "./term-shares";
import type { TextSource } from "./text-sources";

/**
 * The second hop: a question that describes a thing instead of naming it ("the event with 600
 * guests — how long did it last?", "what does my sister's husband do?") is answered by a message that
 * names the thing and shares no word with the question. The first hop's best hits name it ("our
 * wedding had 600 guests"); their rarest words the question lacks (wedding) are the bridge. One more
 * match finds the rows holding a bridge word, and each seed lends part of its score to them, more to
 * a row that also holds the question's words the seed lacked (the attribute asked for: "last"). So the
 * answer joins the seed, as context spreading lends to a turn's neighbours; here the link is a shared
 * rare word, not adjacency, and holds in a log of many stories as in a dialogue.
 */

/** Seeds: the first hop's best hits. */
export const HOP_SEEDS = 3;
/**
 * Share of a seed's score lent to a row holding all its bridge words: as context spreading lends at
 * ±1 in a dialogue. Less from a seed in a dialogue, whose neighbours context spreading lends to in
 * full already (a full share there pushed direct answers out: LoCoMo single-hop hit@10 −0.018); not
 * less from a seed on a log, where spreading lends less (0.2 there: madial-zh-noisy hit@10 −0.023).
 */
export const HOP_SHARE = 0.5;
export const DIALOGUE_HOP_SHARE = 0.2;
/** A seed's text read for its words (a long message's beginning). */
const MAX_SEED_CHARS = 8000;
/** Rows the bridge words may be expected to find (as the first hop's row budget, smaller: a bridge word is rare). */
const HOP_ROW_BUDGET = 200;
/**
 * A question names one thing; a pasted dialogue (MADial's queries: 30–180 words) names many, and a hop
 * from its best hits drifts (MADial-zh MRR −0.14 without this bound). Questions hold 3–31 words.
 */
export const MAX_HOP_QUESTION_WORDS = 32;

/** `inDialogue`: the seed stands among turns of another role (see HOP_SHARE). */
export type HopSeed = { id: string; score: number; text: string; inDialogue?: boolean };
/** `ceiling`: the best score among the seeds that lent to the row (see lendFromSeeds). */
export type HopLoan = { id: string; hop: number; ceiling: number };

/** A term as the index reads it: one key for the same term however it was made (as fullTextMatch's selectFrom compares). */
const keyOf = (term: QueryTerm) => termTsQuery(term);

/**
 * A seed's bridge: its own words (single characters as words, no translations) the question does not hold,
 * rare in the table, the rarest first, at most RARE_WORDS_PER_ROW. A prefix term of the question covers the
 * words it starts ("paint:*" covers "painting").
 */
export function bridgeTerms(
  seedText: string,
  question: readonly QueryTerm[],
  shares: TermShares,
  features: RankingFeatures,
): QueryTerm[] {
  // Translations too: a seed the question found through its translation holds that word as asked.
  const holds = (term: QueryTerm) =>
    question.some(
      (q) =>
        q.term === term.term ||
        (q.prefix && term.term.startsWith(q.term)) ||
        (term.prefix && q.term.startsWith(term.term)),
    );
  return queryTerms(seedText.slice(0, MAX_SEED_CHARS), {
    ...features,
    crossLanguage: false,
    cjkUnigrams: false,
    questionFocus: false,
  })
    .filter((term) => isOwnWord(term) && !holds(term))
    .map((term, i) => ({ term, i, share: termShare(shares, term) }))
    .filter((t) => t.share <= RARE_MAX_SHARE)
    .sort((a, b) => a.share - b.share || a.i - b.i)
    .slice(0, RARE_WORDS_PER_ROW)
    .map((t) => t.term);
}

/**
 * The rows the seeds lend to, and how much. `question`: the question's terms as the first hop matched
 * them, with their document frequencies there (`questionDf`). One statement (fullTextMatch) over the
 * bridges and the question's own words; the loans from its flags (lendFromSeeds).
 */
export async function hopLoans(
  db: DbOrTx,
  params: {
    source: TextSource;
    where: SQL;
    statsKey?: string;
    question: readonly QueryTerm[];
    questionDf: readonly number[];
    seeds: readonly HopSeed[];
    features: RankingFeatures;
  },
): Promise<HopLoan[]> {
  const { source, seeds, question } = params;
  if (seeds.length === 0) return [];
  // The query's size counts its lead-in: a pasted dialogue ending with a question is still a dialogue.
  if (question.filter(isQueryWord).length > MAX_HOP_QUESTION_WORDS) return [];
  const asked = question.filter(isOwnWord);
  const shares = await termShares(db, source.table);
  const bridges = seeds.map((seed) => bridgeTerms(seed.text, question, shares, params.features));
  if (bridges.every((b) => b.length === 0)) return [];
  const terms = new Map<string, QueryTerm>();
  for (const term of [...bridges.flat(), ...asked]) if (!terms.has(keyOf(term))) terms.set(keyOf(term), term);
  const match = await fullTextMatch(db, {
    source,
    where: params.where,
    terms: [...terms.values()],
    limit: 0,
    minimum: 0,
    statsKey: params.statsKey,
    // The rows to lend to hold a bridge word; the question's words only score them.
    selectFrom: bridges.flat(),
    rowBudget: HOP_ROW_BUDGET,
  });
  // The question's words only scored here, so this match saw few of their rows; the first hop counted them.
  const firstDf = new Map(question.map((term, i) => [keyOf(term), params.questionDf[i] ?? 0]));
  const df = match.terms.map((term, i) => Math.max(match.df[i] ?? 0, firstDf.get(keyOf(term)) ?? 0));
  return lendFromSeeds({
    docs: match.docs,
    terms: match.terms,
    df,
    stats: { n: match.n, avglen: match.avglen },
    seeds: seeds.map((seed, i) => ({ ...seed, bridge: bridges[i]! })),
    asked,
  });
}

/**
 * Each seed lends to every other matched row holding one of its bridge words that is rare in the
 * scope: share × the seed's score × (the row's BM25 over the seed's bridge + over the question's words
 * the seed lacks) / (the seed's BM25 over its bridge). Rows holding none of the question's own words
 * split that among them: a seed's bridge may be its phrasing rather than its thing ("跟你说说我邻居黄少华吧"
 * ties every "跟你说说我…吧"), and it cannot tell which of them is its answer. `share` is HOP_SHARE,
 * DIALOGUE_HOP_SHARE from a seed in a dialogue. `ceiling`: the best lending seed's score (the caller
 * keeps the row below it).
 * Pure: `docs` are the hop's matched rows flagged for `terms`, `df` per term in the scope.
 */
export function lendFromSeeds(params: {
  docs: readonly MatchedDoc[];
  terms: readonly QueryTerm[];
  df: readonly number[];
  stats: CorpusStats;
  seeds: readonly (HopSeed & { bridge: readonly QueryTerm[] })[];
  asked: readonly QueryTerm[];
}): HopLoan[] {
  const { docs, terms, df, stats } = params;
  if (docs.length === 0) return [];
  const docOf = new Map(docs.map((doc) => [doc.id, doc]));
  const position = new Map(terms.map((term, i) => [keyOf(term), i]));
  // BM25 over a subset of the terms: the others weigh nothing.
  const scoreOver = (keys: ReadonlySet<string>) =>
    new Map(
      scoreBm25(
        docs,
        terms.map((term) => (keys.has(keyOf(term)) ? term : { ...term, weight: 0 })),
        stats,
        df,
      ).map((h) => [h.id, h.score]),
    );
  // The table's statistics chose the candidates; the scope decides: a word common in this memory
  // (a table shared with other tenants' text can make it look rare) ties nothing.
  const rareKey = (key: string) => {
    const i = position.get(key);
    return i !== undefined && rareInScope(df[i]!, stats.n);
  };
  // The rows holding a word of the question (the same for every seed).
  const askedAt = params.asked.map((term) => position.get(keyOf(term))).filter((i) => i !== undefined);
  const aboutQuestion = new Set(docs.filter((doc) => askedAt.some((i) => doc.tf[i]! > 0)).map((doc) => doc.id));
  const loans = new Map<string, { hop: number; ceiling: number }>();
  for (const seed of params.seeds) {
    const seedDoc = docOf.get(seed.id);
    const bridge = new Set(seed.bridge.map(keyOf).filter(rareKey));
    if (!seedDoc || bridge.size === 0 || !(seed.score > 0)) continue;
    const lacking = new Set(
      params.asked.map(keyOf).filter((key) => {
        const i = position.get(key);
        return i !== undefined && !(seedDoc.tf[i]! > 0);
      }),
    );
    const byBridge = scoreOver(bridge);
    const self = byBridge.get(seed.id) ?? 0;
    if (!(self > 0)) continue;
    const byLacking = scoreOver(lacking);
    const share = seed.inDialogue ? DIALOGUE_HOP_SHARE : HOP_SHARE;
    // Rows tied to the seed by its words alone split one share: the seed cannot tell which is its answer.
    const tiedOnly = [...byBridge.keys()].filter((id) => id !== seed.id && !aboutQuestion.has(id)).length;
    for (const [id, bridgeScore] of byBridge) {
      if (id === seed.id) continue;
      const split = aboutQuestion.has(id) ? 1 : 1 / tiedOnly;
      const loan = (split * share * seed.score * (bridgeScore + (byLacking.get(id) ?? 0))) / self;
      const entry = loans.get(id) ?? { hop: 0, ceiling: 0 };
      loans.set(id, { hop: entry.hop + loan, ceiling: Math.max(entry.ceiling, seed.score) });
    }
  }
  return [...loans].map(([id, loan]) => ({ id, ...loan }));
}
