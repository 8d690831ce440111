import { englishStem } from "~/server/text/english-stem";
import { kinshipTerms } from "~/server/text/kinship";
import {
  CJK_CHAR_CLASS,
  isCommonCjkCharacter,
  isQueryStopWord,
  normalizeSearchText,
  readQuery,
  segmentQuery,
} from "~/server/text/segment";
import { crossLanguageTerms } from "./cross-language";
import { isOneLine, lastSentence, questionFocus, withoutSpeaker } from "./question-focus";
import { ALL_RANKING_FEATURES, type RankingFeatures } from "./ranking-features";

/**
 * Query text → full-text terms. Tokens come from segmentQuery (CJK words ≤ 2 chars, longer ones as
 * bigrams — matching what segmentForSearch indexes). Latin words of 4+ letters become a prefix of
 * their stem ("painting" → `paint:*`), since the `simple` configuration does not stem; common
 * function words are dropped (term statistics would weigh them down anyway, this keeps queries small).
 */
export type QueryTerm = {
  term: string;
  prefix: boolean;
  /** BM25 multiplier: 1 for words, less for CJK single characters. */
  weight: number;
  /** A single CJK character whose weight is scaled by its IDF (a common character says little on its own). */
  idfScaled?: boolean;
  /** Added in the other language (cross-language.ts): searched only where the scope holds that language's text. */
  translated?: boolean;
  /** Only in what comes before the question the query ends with (question-focus.ts): weighted lower. */
  lead?: boolean;
  /** A kin term covered by a group word of the query (kinship.ts): it stands for that word, as a translation does. */
  kin?: boolean;
  /**
   * An alias: a name or relation the scope binds to one the question holds (alias-binding.ts), standing
   * for the terms of that side, as a kin term stands for its group word. A row holding one of them gets
   * nothing more for the alias (the two are one subject, scored once: bm25.ts, second-stage.ts).
   */
  standsFor?: readonly string[];
};

/** A term standing for a word the question holds: a kin term for its group word, an alias for a name or relation. */
export const standsIn = (term: QueryTerm) => term.kin === true || term.standsFor !== undefined;

/** For each alias among `terms`, the indices of the terms it stands for; undefined for the others. */
export const aliasedIndices = (terms: readonly QueryTerm[]): (number[] | undefined)[] =>
  terms.map((term) =>
    term.standsFor
      ? terms.flatMap((other, j) => (!other.standsFor && term.standsFor!.includes(other.term) ? [j] : []))
      : undefined,
  );

/**
 * A word the question itself holds: not a single CJK character (weighted lower), a translation, a kin
 * term a group word covers, or a word only in the lead-in before the question.
 */
export const isOwnWord = (term: QueryTerm) => isQueryWord(term) && !term.lead;
/** A word the query holds, in its question or in the lead-in before it: its size, whatever the focus weighs. */
export const isQueryWord = (term: QueryTerm) =>
  !term.translated && !standsIn(term) && (term.lead ? term.weight / LEAD_WEIGHT : term.weight) >= 1;

const CJK = new RegExp(`[${CJK_CHAR_CLASS}]`, "u");
const CJK_RUN = new RegExp(`[${CJK_CHAR_CLASS}]+`, "gu");
/**
 * Long queries (a pasted dialogue) keep their first 256 terms; single CJK characters have their own
 * allowance. 96 and 64 cut off the end of MADial's dialogues, where the question is (MRR 0.672 → 0.725).
 */
const MAX_TERMS = 256;
const MAX_CJK_UNIGRAMS = 128;
/**
 * Every CJK character of the query also counts, at this weight: ICU's words and our bigrams miss
 * near-matches (跳舞 / 舞蹈) that single characters catch. Measured on MADial-zh: +0.10 recall@10.
 */
const CJK_UNIGRAM_WEIGHT = 0.5;
/**
 * A word only in the lead-in before the question a query ends with ("哎，今天有点累。…孔静喜欢吃什么？") counts
 * at half its weight: the question says what is wanted, the lead-in may be chit-chat.
 */
const LEAD_WEIGHT = 0.5;
/** A kin term a group word of the query covers ("亲戚" → 舅舅, 表姐; kinship.ts) means what the group word does, as a translation does. */
const KIN_WEIGHT = 1;

const ENGLISH_STOP_WORDS = new Set(
  (
    "a an the of to in on at for and or but is are was were be been being am i me my mine you your yours he him his she her hers it its " +
    "we us our they them their this that these those what which who whom whose when where why how do does did doing done have has had " +
    "having will would shall should can could may might must not no nor so than too very just also then there here with from by as " +
    "into about over after before up down out off if because while all any both each few more most other some such only own same " +
    "again further once s t dont im ive youre thats whats hows wheres whos"
  ).split(" "),
);

/**
 * The singular of a short plural ("pets" → "pet"). The other way (a three-letter word's plural) was
 * tried too and left out: LoCoMo recall@10 fell 0.730 → 0.726.
 */
function shortWordVariant(token: string): string | undefined {
  if (token.length >= 4 && token.length <= 5 && token.endsWith("s") && !/(?:ss|us|is|os)$/.test(token))
    return token.slice(0, -1);
  return undefined;
}

export function queryTerms(text: string, features: RankingFeatures = ALL_RANKING_FEATURES): QueryTerm[] {
  const { normalized, tokens, content } = readQuery(text);
  const meaningful = tokens.filter((t) => !ENGLISH_STOP_WORDS.has(t));
  const chosen = meaningful.length > 0 ? meaningful : tokens;
  const seen = new Map<string, QueryTerm>();
  for (const token of chosen) {
    if (seen.size >= MAX_TERMS) break;
    const latin = features.stemming && /^[a-z]+$/.test(token);
    const stem = latin ? englishStem(token) : token;
    const term: QueryTerm =
      latin && stem.length >= 4 ? { term: stem, prefix: true, weight: 1 } : { term: token, prefix: false, weight: 1 };
    const existing = seen.get(term.term);
    if (!existing) seen.set(term.term, term);
    else if (term.prefix) existing.prefix = true;
    // The stemmer keeps short words whole: "pets" must still find "pet".
    const other = latin && stem === token ? shortWordVariant(token) : undefined;
    if (other && !seen.has(other)) seen.set(other, { term: other, prefix: false, weight: 1 });
  }
  // The index holds every bigram of a CJK run (segment.ts), word boundaries or not: a pair of content
  // characters the dictionary split ("姐夫" in "姐姐夫妇") says more than either character. Pairs with a
  // function character ("我也", "的猫") are left out: chit-chat is full of them (measured on
  // madial-zh-noisy: hit@10 0.313 with them, 0.351 without; docs/retrieval.md).
  // Characters of a dropped question word (多少, 为什么) make neither bigrams nor single-character terms.
  if (features.cjkRunBigrams) {
    for (const [run] of content.matchAll(CJK_RUN)) {
      const cs = [...run];
      for (let i = 0; i + 1 < cs.length && seen.size < MAX_TERMS; i++) {
        const gram = cs[i]! + cs[i + 1]!;
        if (seen.has(gram) || isQueryStopWord(gram) || isCommonCjkCharacter(cs[i]!) || isCommonCjkCharacter(cs[i + 1]!))
          continue;
        seen.set(gram, { term: gram, prefix: false, weight: 1 });
      }
    }
  }
  let unigrams = 0;
  for (const [run] of features.cjkUnigrams ? content.matchAll(CJK_RUN) : []) {
    for (const char of run) {
      if (unigrams >= MAX_CJK_UNIGRAMS) break;
      if (seen.has(char) || isCommonCjkCharacter(char)) continue;
      seen.set(char, { term: char, prefix: false, weight: CJK_UNIGRAM_WEIGHT });
      unigrams++;
    }
  }
  if (features.kinship)
    for (const term of askedKin(text))
      if (!seen.has(term)) seen.set(term, { term, prefix: false, weight: KIN_WEIGHT, kin: true });
  const words = [...seen.values()];
  if (features.unigramIdf)
    for (const word of words) if (word.term.length === 1 && CJK.test(word.term)) word.idfScaled = true;
  const focus = features.questionFocus ? askedInFocus(text, features) : undefined;
  if (focus) weighLeadIn(words, focus);
  if (!features.crossLanguage) return words;
  const translations = crossLanguageTerms(normalized, words);
  // A lead-in word's translation is a lead-in word too.
  if (focus) for (const term of translations) if (!focus.translations.has(term.term)) markLead(term);
  return [...words, ...translations];
}

/**
 * The kin terms a group word covers in the last sentence of a one-line query (kinship.ts): what it asks
 * or looks for. In a pasted dialogue, or in a remark before the question, "我和家人一起去野餐了" says who
 * was there, and the household's every member would match the memories of every outing.
 */
function askedKin(text: string): string[] {
  if (!isOneLine(text)) return [];
  return kinshipTerms(normalizeSearchText(lastSentence(text).sentence));
}

/** "How" and the word that makes it a question of degree or number (answer-type.ts reads the same). */
const HOW_QUESTION = /\bhow\s+(?:many|much|long|far|tall|often|big|heavy|old|come|about)\b/giu;
/**
 * Whether a sentence (without a speaker's label) holds a word besides question and function words: a
 * CJK word of common characters alone (有, 几个) asks nothing of its own, nor does "how" and its word
 * ("How many?", "How long?").
 */
export const asksSomething = (sentence: string) =>
  readQuery(sentence.replace(HOW_QUESTION, " ")).tokens.some(
    (token) =>
      !isQueryStopWord(token) &&
      !ENGLISH_STOP_WORDS.has(token) &&
      !(CJK.test(token) && [...token].every(isCommonCjkCharacter)),
  );

/** The question's terms, its translations' terms, and its text without the question words readQuery blanks. */
type Focus = { terms: QueryTerm[]; translations: ReadonlySet<string>; content: string };

/** The question the query ends with, when it has a lead-in and words of its own (question-focus.ts). */
function askedInFocus(text: string, features: RankingFeatures): Focus | undefined {
  const focus = questionFocus(text, asksSomething);
  if (!focus) return undefined;
  // A question of question words alone ("为什么？", "Where?"; readQuery keeps them when nothing else is
  // left) asks about the lead-in. A speaker's label is no word of the question.
  if (!asksSomething(withoutSpeaker(focus))) return undefined;
  const read = readQuery(focus);
  // Kin terms are read from the whole query's last sentence (askedKin), never from a pasted dialogue's.
  const terms = queryTerms(focus, { ...features, crossLanguage: false, questionFocus: false, kinship: false });
  const { normalized, content } = read;
  const translations = features.crossLanguage ? crossLanguageTerms(normalized, terms) : [];
  return { terms, translations: new Set(translations.map((term) => term.term)), content };
}

function markLead(term: QueryTerm) {
  term.weight *= LEAD_WEIGHT;
  term.lead = true;
}

/**
 * Words only in the lead-in weigh less. A word the question holds or translates to keeps its weight, a
 * Chinese term the question's text holds too, however the whole query was segmented; the question's
 * words a long query's term cap left out are added: the question is what must be found.
 */
function weighLeadIn(words: QueryTerm[], focus: Focus) {
  const inFocus = new Set([...focus.terms.map((term) => term.term), ...focus.translations]);
  for (const word of words)
    if (!standsIn(word) && !inFocus.has(word.term) && !(CJK.test(word.term) && focus.content.includes(word.term)))
      markLead(word);
  const have = new Set(words.map((word) => word.term));
  for (const term of focus.terms) if (!have.has(term.term)) words.push(term);
}

const quote = (token: string) => `'${token.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`;

/** One term as `to_tsquery('simple', …)` text, optionally only in weight class `label` (A–D). */
export function termTsQuery(term: QueryTerm, label = ""): string {
  const prefix = term.prefix && !CJK.test(term.term) ? "*" : "";
  return prefix || label ? `${quote(term.term)}:${prefix}${label}` : quote(term.term);
}

/** Any of the terms (ranking decides), as `to_tsquery('simple', …)` text; "" when there is nothing to search. */
export const anyTermTsQuery = (terms: readonly QueryTerm[]) => terms.map((term) => termTsQuery(term)).join(" | ");

/** The text trigram similarity compares against the segmented columns: the query's tokens, space-joined. */
export const trigramQueryText = (text: string) => segmentQuery(text).join(" ");
