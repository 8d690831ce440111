import { CJK_CHAR_CLASS, normalizeSearchText } from "~/server/text/segment";
import { holdsAnswerType, questionAnswerType, type AnswerType } from "./answer-type";
import { askedBy, coordinatedTerms, joinedCoverage, linkWords, type AskedWords } from "./entity-join";
import { aliasedIndices, asksSomething, isOwnWord, standsIn, type QueryTerm } from "./query-terms";
import { questionFocus } from "./question-focus";
import { rareInScope } from "./rare-words";
import type { TermShares } from "./term-shares";

/**
 * The second ranking stage: features a term index cannot see, computed over the text of the first
 * stage's best candidates.
 * - coverage: the share of the query's term weight (weight × IDF) the candidate contains;
 * - proximity: how close together the matched terms stand (pairs of distinct terms, nearest
 *   occurrences, min weight / distance², as in BM25TP), relative to the query's whole weight;
 * - phrase: the weight of the query terms inside the heaviest run of the query's own tokens (CJK
 *   characters, words) found unbroken in the candidate, from 3 tokens up (a bigram match is already a
 *   term), relative to the query's whole weight. Weighted, because a run of common words or
 *   characters ("我特别期待", "I want to") is shared by unrelated chit-chat: counted by its length it
 *   cost MADial-zh-noisy 0.05 hit@10.
 * - answerType: 1 when the question asks for a kind of value (a time, an age, a number, a place …) and the candidate holds a
 *   value of that kind (answer-type.ts), else 0; 0 too for a line that holds words of the question's
 *   lead-in and none of the question's own (it repeats the chit-chat before the question).
 * - join: the share of the query's weight a few candidates sharing this one's rare word hold beyond it
 *   (entity-join.ts), when the caller passes the table's term shares. Without statistics (before the
 *   first ANALYZE) a name cannot be told from a phrasing, and nothing is joined.
 * Pure and deterministic; each hit's `components` carries the parts.
 */

export type SecondStageFeatures = {
  coverage: number;
  proximity: number;
  phrase: number;
  answerType: number;
  join?: number;
};
export type SecondStageWeights = {
  coverage: number;
  proximity: number;
  phrase: number;
  answerType: number;
  join: number;
};

const CJK_CHAR = new RegExp(`[${CJK_CHAR_CLASS}]`, "u");
/** One CJK character, or a run of other letters and digits: the positions proximity is counted in. */
const TOKEN = new RegExp(`[${CJK_CHAR_CLASS}]|(?:(?![${CJK_CHAR_CLASS}])[\\p{L}\\p{M}\\p{N}])+`, "gu");
/** Phrase lengths looked for, in tokens. */
const PHRASE_MIN = 3;
const PHRASE_MAX = 8;
/** Query tokens read for phrases (a pasted dialogue keeps its end, where the question is). */
const PHRASE_QUERY_TOKENS = 400;
/** Candidate tokens read (a long card or turn is searched in its first part only), and the characters they are read from. */
const MAX_TEXT_TOKENS = 600;
const MAX_TEXT_CHARS = 8000;
/**
 * Bounds on proximity's pairwise work, whatever a stored text or a question holds (a question of
 * nested prefixes against a text repeating one word would otherwise cost seconds a candidate):
 * occurrences kept per term, and the heaviest matched terms paired.
 */
const MAX_POSITIONS = 16;
const MAX_PROXIMITY_TERMS = 24;

export function tokenize(text: string, max = Number.POSITIVE_INFINITY): string[] {
  return tokenizeNormalized(normalizeSearchText(text), max);
}

function tokenizeNormalized(normalized: string, max: number): string[] {
  const out: string[] = [];
  for (const [token] of normalized.matchAll(TOKEN)) {
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
    for (let i = 0; i + chars.length <= tokens.length && out.length < MAX_POSITIONS; i++) {
      let ok = true;
      for (let j = 0; j < chars.length && ok; j++) ok = tokens[i + j] === chars[j];
      if (ok) out.push(i);
    }
    return out;
  }
  for (let i = 0; i < tokens.length && out.length < MAX_POSITIONS; i++) {
    const token = tokens[i]!;
    if (token === term.term || (term.prefix && token.startsWith(term.term))) out.push(i);
  }
  return out;
}

/** A word of the question itself, not one character of it (a lone 天 or 买 is in any line). */
const isAskedWord = (term: QueryTerm) => isOwnWord(term) && !(CJK_CHAR.test(term.term) && [...term.term].length === 1);
/** Whether the terms at `held` include a word of the question itself. */
const holdsAskedWord = (terms: readonly QueryTerm[], held: readonly number[]) =>
  held.some((i) => isAskedWord(terms[i]!));
/**
 * A line of a one-line query's lead-in words and none of its question's ("今天效率特别低。" before
 * "今天加班到十点多。哦对，书桌哪天买的？"): it repeats the chit-chat. A pasted dialogue (more than one line)
 * is left out: its earlier turns say what its question is about, and a stored turn may repeat them.
 */
const repeatsLeadIn = (oneLine: boolean, terms: readonly QueryTerm[], held: readonly number[]) =>
  oneLine && held.some((i) => terms[i]!.lead) && !holdsAskedWord(terms, held);

const span = (term: QueryTerm) => (CJK_CHAR.test(term.term) ? [...term.term].length : 1);

/** The query's n-grams (n = PHRASE_MIN…PHRASE_MAX) of tokens, for phraseRuns. */
export function queryPhrases(question: string): Set<string> {
  const tokens = tokenize(question).slice(-PHRASE_QUERY_TOKENS);
  const grams = new Set<string>();
  for (let n = PHRASE_MIN; n <= PHRASE_MAX; n++)
    for (let i = 0; i + n <= tokens.length; i++) grams.add(tokens.slice(i, i + n).join("\u0001"));
  return grams;
}

/** Unbroken runs of the query's tokens in `tokens`, PHRASE_MIN long or more, as [start, end) (maximal from each start). */
function phraseRuns(phrases: ReadonlySet<string>, tokens: readonly string[]): [number, number][] {
  const runs: [number, number][] = [];
  for (let i = 0; i + PHRASE_MIN <= tokens.length; i++) {
    let end = 0;
    for (let n = PHRASE_MIN; n <= PHRASE_MAX && i + n <= tokens.length; n++) {
      if (!phrases.has(tokens.slice(i, i + n).join("\u0001"))) break;
      end = i + n;
    }
    if (end > 0) runs.push([i, end]);
  }
  return runs;
}

/** What a candidate is read against besides its terms: the kind of value asked for, and whether the query is one line. */
type QueryShape = { asked?: AnswerType; oneLine: boolean };

const shapeOf = (question: string, readsAnswerType = true): QueryShape => ({
  asked: readsAnswerType ? questionAnswerType(question) : undefined,
  oneLine: !question.trim().includes("\n"),
});

/**
 * The features of one candidate, with its normalized text and the indices of the terms it holds (for
 * the join). `weights` from termWeights, `slots` from aliasSlots over them (both once per question),
 * `phrases` from queryPhrases (null: phrase not computed, 0).
 */
function readCandidate(
  terms: readonly QueryTerm[],
  weights: readonly number[],
  slots: readonly AliasSlot[],
  phrases: ReadonlySet<string> | null,
  text: string,
  { asked, oneLine }: QueryShape,
): { features: SecondStageFeatures; normalized: string; held: number[] } {
  const total = weights.reduce((sum, w, i) => sum + (slots[i] ? 0 : w), 0);
  const normalized = normalizeSearchText(text.slice(0, MAX_TEXT_CHARS));
  const typed = asked && holdsAnswerType(asked, normalized) ? 1 : 0;
  if (total <= 0)
    return { features: { coverage: 0, proximity: 0, phrase: 0, answerType: typed }, normalized, held: [] };
  const tokens = tokenizeNormalized(normalized, MAX_TEXT_TOKENS);
  const found = terms.map((term) => positionsOf(term, tokens));
  const matched: { weight: number; positions: number[]; span: number }[] = [];
  const held: number[] = [];
  let covered = 0;
  terms.forEach((term, i) => {
    const positions = found[i]!;
    const slot = slots[i];
    if (positions.length === 0 || slot?.standsFor.some((j) => found[j]!.length > 0)) return;
    const weight = slot ? slot.weight : weights[i]!;
    covered += weight;
    held.push(i);
    matched.push({ weight, positions, span: span(term) });
  });
  // The time or number a line repeating the chit-chat holds answers nothing asked.
  const answerType = typed && !repeatsLeadIn(oneLine, terms, held) ? 1 : 0;
  let proximity = 0;
  const paired =
    matched.length > MAX_PROXIMITY_TERMS
      ? [...matched].sort((a, b) => b.weight - a.weight).slice(0, MAX_PROXIMITY_TERMS)
      : matched;
  for (let a = 0; a < paired.length; a++) {
    for (let b = a + 1; b < paired.length; b++) {
      const x = paired[a]!;
      const y = paired[b]!;
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
  let phrase = 0;
  for (const [start, end] of phrases ? phraseRuns(phrases, tokens) : []) {
    const inside = matched.reduce(
      (sum, m) => sum + (m.positions.some((p) => p >= start && p + m.span <= end) ? m.weight : 0),
      0,
    );
    if (inside > phrase) phrase = inside;
  }
  return {
    features: { coverage: covered / total, proximity: proximity / total, phrase: phrase / total, answerType },
    normalized,
    held,
  };
}

/**
 * An alias (bound-alias.ts) fills the slot of the words it stands for, in a text without them: it weighs
 * their weight, shared among the alias's words, and adds nothing to the question's total. One subject
 * counts once, as in BM25: "郑一鸣是我表哥" is no better an answer to "郑一鸣多少岁？" for naming both.
 */
function aliasSlots(terms: readonly QueryTerm[], weights: readonly number[]): AliasSlot[] {
  const aliases = terms.filter((term) => term.standsFor).length;
  return aliasedIndices(terms).map((standsFor) =>
    standsFor ? { standsFor, weight: standsFor.reduce((sum, j) => sum + weights[j]!, 0) / aliases } : undefined,
  );
}

/** An alias's slot (aliasSlots): the terms it stands for and the weight it takes; undefined for other terms. */
type AliasSlot = { standsFor: readonly number[]; weight: number } | undefined;

/** Features for one question and candidate (the offline fitting script's entry; the service batches). */
export function secondStageFeatures(
  question: string,
  terms: readonly QueryTerm[],
  df: readonly number[],
  n: number,
  text: string,
): SecondStageFeatures {
  ({ terms, df } = ownWords(terms, df));
  const weights = termWeights(terms, df, n);
  return readCandidate(terms, weights, aliasSlots(terms, weights), queryPhrases(question), text, shapeOf(question))
    .features;
}

/**
 * The question's own terms and their document frequencies: a translation (cross-language.ts) stands
 * for one of them, and counting both would halve the coverage of a text that holds every word asked.
 * Kin terms (kinship.ts) count where the scope holds them: a relative's line holds one of the few the
 * memory has, and the dozens it lacks would shrink every line's coverage alike.
 */
function ownWords(terms: readonly QueryTerm[], df: readonly number[]) {
  const own = terms.flatMap((term, i) =>
    term.translated || (standsIn(term) && !df[i]) ? [] : [{ term, df: df[i] ?? 0 }],
  );
  return { terms: own.map((o) => o.term), df: own.map((o) => o.df) };
}

/** The first stage's score lifted by the features. */
export function secondStageScore(first: number, f: SecondStageFeatures, w: SecondStageWeights): number {
  return (
    first *
    (1 +
      w.coverage * f.coverage +
      w.proximity * f.proximity +
      w.phrase * f.phrase +
      w.answerType * f.answerType +
      w.join * (f.join ?? 0))
  );
}

/**
 * Weights of the features. Fitted on LoCoMo alone (bench/second-stage-fit.ts, grid {0, .25, .5, 1,
 * 2, 4} per feature over the first stage's lexical score) and reported on every other set. The
 * phrase feature is 0: with any weight it cost madial-zh-noisy over 0.01 hit@10 and MRR while the
 * other two help on three sets and cost nowhere more than 0.01 (docs/retrieval.md, "Second stage").
 * answerType was added later and chosen the same way, on LoCoMo alone with the others as they are
 * (whole-service runs at 0, 1, 2 and 4: 2 scored best; docs/retrieval.md, "The kind of value asked for").
 * join is coverage that a candidate's group holds for it, so it weighs as coverage does; not fitted
 * (docs/retrieval.md, "The entity join").
 */
export const SECOND_STAGE_WEIGHTS: SecondStageWeights = {
  coverage: 2,
  proximity: 2,
  phrase: 0,
  answerType: 2,
  join: 2,
};
/** Candidates the second stage reorders: the first stage's best; the rest keep their order after them. */
export const SECOND_STAGE_CANDIDATES = 50;

/**
 * What the join needs (entity-join.ts): the table's term shares, and the candidates that link to none
 * (the caller's: turns in a dialogue).
 */
export type JoinInput = { shares: TermShares; unlinked?: ReadonlySet<string> };

export type StagedCandidate = { id: string; score: number; text: string };
export type StagedResult = { id: string; score: number; features: SecondStageFeatures };

/**
 * How the second stage reads a query's lead-in (ranking-features.ts): `namedFocus`, a question that
 * names something by its own words (askedWeights); `leadInEcho`, lines repeating the lead-in (leadInEchoes).
 */
export type LeadInReading = { namedFocus?: boolean; leadInEcho?: boolean };

/**
 * The candidates (best first) reordered by the first stage's score, relative to the best, lifted by
 * the features. `df` per term and `n` from the first stage's BM25.
 */
export function reorderBySecondStage(
  question: string,
  terms: readonly QueryTerm[],
  df: readonly number[],
  n: number,
  candidates: readonly StagedCandidate[],
  weights: SecondStageWeights = SECOND_STAGE_WEIGHTS,
  join?: JoinInput,
  focus: LeadInReading = {},
): StagedResult[] {
  const best = Math.max(...candidates.map((c) => c.score), Number.MIN_VALUE);
  // Translations too: a row the question found through a translation holds that word as asked (no link).
  const asked = askedBy(terms);
  ({ terms, df } = ownWords(terms, df));
  const plainWeight = termWeights(terms, df, n);
  const termWeight = focus.namedFocus ? askedWeights(terms, df, n, plainWeight) : plainWeight;
  const phrases = weights.phrase > 0 ? queryPhrases(question) : null;
  const shape = shapeOf(question, weights.answerType > 0);
  const slots = aliasSlots(terms, termWeight);
  const read = candidates.map((c) => ({ c, ...readCandidate(terms, termWeight, slots, phrases, c.text, shape) }));
  const joined =
    join && join.shares.size > 0 && weights.join > 0
      ? joinCandidates(question, terms, termWeight, asked, join, read)
      : new Map<string, number>();
  // A query without a lead-in (no term marked `lead`) has nothing to repeat.
  const echoes =
    focus.leadInEcho && shape.oneLine && terms.some((term) => term.lead)
      ? leadInEchoes(question, terms, plainWeight, read)
      : new Map<string, number>();
  return read
    .map(({ c, features: own }) => {
      const lift = joined.get(c.id);
      const features = lift ? { ...own, join: lift } : own;
      const share = echoes.get(c.id) ?? 1;
      return { id: c.id, score: secondStageScore((c.score * share) / best, features, weights), features };
    })
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
}

/**
 * termWeights, with the lead-in's words at 0 when the question after it holds a word of its own that
 * some rows of the scope hold, and few (rare-words.ts: in a large memory mostly a name, a place, a
 * thing). Its words then say what is wanted, and a chit-chat line repeating the lead-in ("今天好冷。对了，
 * 陈海峰是做什么的？") holds none of it. A question whose words the scope holds often or never keeps its
 * lead-in, which then says what it is about. The first stage still counts the lead-in at half weight.
 */
export function askedWeights(
  terms: readonly QueryTerm[],
  df: readonly number[],
  n: number,
  weights = termWeights(terms, df, n),
): number[] {
  const namesSomething = terms.some((term, i) => isOwnWord(term) && (df[i] ?? 0) > 0 && rareInScope(df[i]!, n));
  return namesSomething ? weights.map((w, i) => (terms[i]!.lead ? 0 : w)) : weights;
}

/** The join's lift per candidate (entity-join.ts), from what the second stage read. */
function joinCandidates(
  question: string,
  terms: readonly QueryTerm[],
  termWeight: readonly number[],
  asked: AskedWords,
  { shares, unlinked }: JoinInput,
  read: readonly { c: StagedCandidate; features: SecondStageFeatures; normalized: string; held: number[] }[],
): Map<string, number> {
  return joinedCoverage(
    read.map((r) => ({
      id: r.c.id,
      coverage: r.features.coverage,
      matched: r.held,
      links: unlinked?.has(r.c.id) ? [] : linkWords(r.normalized, asked, shares),
    })),
    termWeight,
    coordinatedTerms(question, terms),
  );
}

/** Where a clause ends: punctuation of either script and line breaks (not spaces: an English clause has them). */
const CLAUSE_BREAK = /[.,!?;:…。，！？；：、"“”()（）《》\n]+/u;
/** A clause as a candidate's text is searched for it: normalized, letters and digits only. */
const squeeze = (text: string) => normalizeSearchText(text).replace(/[^\p{L}\p{N}]+/gu, "");
/** Clauses long enough that holding one verbatim is no chance: 5 CJK characters, or 4 words. */
const isLongClause = (clause: string) =>
  [...clause].filter((c) => CJK_CHAR.test(c)).length >= 5 || (clause.match(/\p{L}+/gu)?.length ?? 0) >= 4;

/**
 * The candidates that repeat a clause of a one-line query's lead-in verbatim and hold no word of the
 * question ("报销单又被退回来了。" before "我哥现在在哪儿生活？"), each with the share of its matched weight the
 * question holds, which scales its first-stage score: in a memory where the user says the same chit-chat
 * again and again, the lead-in finds those lines and nothing else. Only when some candidate holds a word
 * of the question (else the lead-in is what the question is about) and only for a clause the question
 * itself does not hold. Not for a pasted dialogue (the caller's test): a stored turn may repeat its
 * earlier lines and hold the answer.
 */
function leadInEchoes(
  question: string,
  terms: readonly QueryTerm[],
  termWeight: readonly number[],
  read: readonly { c: StagedCandidate; normalized: string; held: number[] }[],
): Map<string, number> {
  const echoes = new Map<string, number>();
  const focus = questionFocus(question, asksSomething);
  if (!focus) return echoes;
  const asked = new Set(focus.split(CLAUSE_BREAK).map(squeeze));
  const clauses = [
    ...new Set(
      question
        .split(CLAUSE_BREAK)
        .filter(isLongClause)
        .map(squeeze)
        .filter((clause) => !asked.has(clause)),
    ),
  ];
  if (clauses.length === 0 || !read.some((r) => holdsAskedWord(terms, r.held))) return echoes;
  for (const r of read) {
    if (holdsAskedWord(terms, r.held)) continue;
    const text = squeeze(r.normalized);
    if (!clauses.some((clause) => text.includes(clause))) continue;
    const held = r.held.reduce((sum, i) => sum + termWeight[i]!, 0);
    const own = r.held.reduce((sum, i) => sum + (terms[i]!.lead ? 0 : termWeight[i]!), 0);
    if (held > 0) echoes.set(r.c.id, own / held);
  }
  return echoes;
}
