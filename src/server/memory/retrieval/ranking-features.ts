/**
 * Ranking features that can be switched off one at a time, so that each one's worth is measured on
 * every dataset (`npm run bench:recall -- --ablate NAME`; docs/retrieval.md, "Ablation"). Production
 * search always runs with every feature on; only the benchmark passes another set.
 */
export const RANKING_FEATURES = [
  /** Latin words of 4+ letters as a prefix of their light stem ("painting" → paint:*). */
  "stemming",
  /** Single CJK characters of the query as extra terms, for near matches words and bigrams miss. */
  "cjkUnigrams",
  /** Chinese ↔ English words by CC-CEDICT (cross-language.ts). */
  "crossLanguage",
  /** Evidence: full-text hits lend part of their score to the turns around them. */
  "contextSpread",
  /** Trigram similarity for short lookups full text under-serves. */
  "trigramFallback",
  /** Bigrams of the query's CJK runs across dictionary-word boundaries (content characters only), as the index holds them. */
  "cjkRunBigrams",
  /** Every single-character CJK term (word or added character) weighted by its IDF: a common character says little. */
  "unigramIdf",
  /** Context spreading lends its full share only between turns of different roles (a dialogue), not along one speaker's log. */
  "spreadAcrossRoles",
  /** Along one speaker's log, a hit lends half a dialogue's share, more to a neighbour holding the question's words it lacks, up to just below itself (context-spread.ts). */
  "logSpread",
  /** Evidence: the best lexical candidates reordered by the coverage and proximity of the query's terms (second-stage.ts). */
  "secondStage",
  /** Evidence: the best hits lend to rows sharing their rare words the question lacks (second-hop.ts). */
  "secondHop",
  /** Words only in the lead-in before the question a query ends with weigh half (question-focus.ts). */
  "questionFocus",
  /** Along one speaker's log, the lines right after a hit that open with a pronoun ("她…", "He…") get its score for the question's words they lack (context-spread.ts). */
  "pronounReference",
  /** In a dialogue, a hit whose turn ends by asking lends its whole score to the reply after it, not half (context-spread.ts). */
  "replyToQuestion",
  /** Evidence: a question asking for a kind of value (a time, an age, a number, a place, an event …) lifts the candidates that hold one (answer-type.ts). */
  "answerType",
  /** Evidence: a few of the best candidates sharing a rare word the question lacks lift each other by what they hold together (entity-join.ts). */
  "entityJoin",
  /** Evidence: when the question after a lead-in names something few rows hold, the second stage reads the question's words alone (second-stage.ts). */
  "namedFocus",
  /** Evidence: a candidate repeating a clause of the lead-in verbatim and holding no word of the question keeps only the question's share of its score (second-stage.ts). */
  "leadInEcho",
  /** Evidence: the page's last places go to the best lines holding what a one-line Chinese question names first (named-tail.ts). */
  "namedTail",
  /** Evidence: a word of a one-line Chinese question's own that the scope often holds (over 10 rows, still rare) standing before what it names keeps its lines on the page (named-tail.ts). */
  "namedSubject",
  /** Evidence: a one-line Chinese question that names something few rows hold is not hopped from; the hop is for a question describing its subject (evidence.ts, described-subject.ts). */
  "namedNoHop",
  /** Evidence: a Chinese question describing its subject (那 and a measure word) lifts no answer type (described-subject.ts). */
  "describedNoType",
  /** Evidence: a one-line Chinese question naming nothing few rows hold gives the page's last places to its first word rare in the scope (named-tail.ts). */
  "subjectTail",
  /** Kin terms a Chinese group word covers ("我妈那边的亲戚" → 舅舅, 姨妈, 表姐) as query terms (kinship.ts). */
  "kinship",
  /** Evidence: a relation the scope binds to one name ("我的牙医全名是周强") and that name stand for each other in a Chinese question (alias-binding.ts). */
  "aliasBinding",
] as const;

export type RankingFeature = (typeof RANKING_FEATURES)[number];
export type RankingFeatures = Readonly<Record<RankingFeature, boolean>>;

export const ALL_RANKING_FEATURES: RankingFeatures = Object.freeze(
  Object.fromEntries(RANKING_FEATURES.map((f) => [f, true])) as Record<RankingFeature, boolean>,
);

export const isRankingFeature = (name: string): name is RankingFeature =>
  (RANKING_FEATURES as readonly string[]).includes(name);

/** Every feature on except `off`. */
export function rankingFeaturesWithout(off: readonly RankingFeature[]): RankingFeatures {
  return Object.freeze({ ...ALL_RANKING_FEATURES, ...Object.fromEntries(off.map((f) => [f, false])) });
}
