/**
 * Metrics of memory formation (bench:memory-formation): how much of what a conversation says about
 * its speakers the extractor turned into cards, and how close the session summaries come to a
 * reference. Pure functions, no database.
 */

/**
 * Tokens for overlap metrics, normalised as SQuAD's F1 does (lower case, punctuation and the
 * articles a / an / the dropped); a CJK character is a token of its own.
 */
export function tokens(text: string): string[] {
  const out: string[] = [];
  for (const match of text
    .toLowerCase()
    .matchAll(
      /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|(?:(?![\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}])[\p{L}\p{N}])+(?:'\p{L}+)?/gu,
    )) {
    const token = match[0].replace(/'s$/, "");
    if (token === "a" || token === "an" || token === "the" || token === "") continue;
    out.push(token);
  }
  return out;
}

function counts(items: readonly string[]): Map<string, number> {
  const map = new Map<string, number>();
  for (const item of items) map.set(item, (map.get(item) ?? 0) + 1);
  return map;
}

const f1 = (overlap: number, candidate: number, reference: number) =>
  overlap === 0 || candidate === 0 || reference === 0 ? 0 : (2 * overlap) / (candidate + reference);

/** Clipped unigram overlap of two token lists. */
function overlapOf(a: readonly string[], b: readonly string[]): number {
  const left = counts(a);
  let overlap = 0;
  for (const [token, n] of counts(b)) overlap += Math.min(n, left.get(token) ?? 0);
  return overlap;
}

/** Token-overlap F1 (SQuAD style) between two texts. */
export function tokenF1(candidate: string, reference: string): number {
  const a = tokens(candidate);
  const b = tokens(reference);
  return f1(overlapOf(a, b), a.length, b.length);
}

/** ROUGE-1 F1: unigram overlap of a candidate summary with the reference. */
export function rouge1(candidate: string, reference: string): number {
  return tokenF1(candidate, reference);
}

/** Length of the longest common subsequence of two token lists (two rows of the table). */
export function lcsLength(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  let previous = new Array<number>(b.length + 1).fill(0);
  for (const token of a) {
    const row = new Array<number>(b.length + 1).fill(0);
    for (let j = 1; j <= b.length; j++)
      row[j] = token === b[j - 1] ? previous[j - 1]! + 1 : Math.max(previous[j]!, row[j - 1]!);
    previous = row;
  }
  return previous[b.length]!;
}

/** ROUGE-L F1 (β = 1): longest common subsequence over candidate and reference lengths. */
export function rougeL(candidate: string, reference: string): number {
  const a = tokens(candidate);
  const b = tokens(reference);
  return f1(lcsLength(a, b), a.length, b.length);
}

/** Sentences of a reference text. */
export const sentencesOf = (text: string) =>
  text
    .split(/(?<=[.!?。！？])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);

const MONTHS = /^(?:january|february|march|april|may|june|july|august|september|october|november|december)$/i;
const SENTENCE_WORDS = new Set([
  "The",
  "They",
  "She",
  "He",
  "It",
  "Her",
  "His",
  "Their",
  "This",
  "That",
  "These",
  "Those",
  "When",
  "While",
  "After",
  "Before",
  "Both",
  "In",
  "On",
  "At",
  "As",
  "Also",
  "And",
  "But",
  "So",
  "Then",
  "I",
  "We",
  "You",
  "A",
  "An",
]);

/**
 * A sentence's key terms: names and places (capitalised words that are no sentence word), numbers
 * and months, each lower-cased. Chinese text has no capitals: its numbers count.
 */
export function keyTerms(sentence: string): string[] {
  const terms = new Set<string>();
  for (const match of sentence.matchAll(/[\p{L}\p{N}]+/gu)) {
    const word = match[0];
    if (/^\d/.test(word) || /\d/.test(word)) terms.add(word.toLowerCase());
    else if (MONTHS.test(word)) terms.add(word.toLowerCase());
    else if (/^\p{Lu}/u.test(word) && !SENTENCE_WORDS.has(word)) terms.add(word.toLowerCase());
  }
  for (const match of sentence.matchAll(/\d+(?:\.\d+)?\s*[万千百亿元块]/g)) terms.add(match[0].replace(/\s+/g, ""));
  return [...terms];
}

/**
 * Share of the reference's sentences whose key terms all appear in the summary; sentences without
 * key terms are left out (null when none has any).
 */
export function keyTermShare(summary: string, reference: string): number | null {
  const said = summary.toLowerCase().replace(/\s+/g, " ");
  const wordsSaid = new Set(said.match(/[\p{L}\p{N}]+/gu) ?? []);
  const judged = sentencesOf(reference)
    .map(keyTerms)
    .filter((terms) => terms.length > 0);
  if (judged.length === 0) return null;
  const covered = judged.filter((terms) => terms.every((term) => wordsSaid.has(term) || said.includes(term))).length;
  return covered / judged.length;
}

export type Observation = { text: string; turnId: string; speaker: string };
export type ExtractedCard = { id: string; kindCategory: string; text: string; turnIds: readonly string[] };

/** Content overlap at which a card counts as stating an observation. */
export const STATES_THRESHOLD = 0.3;

/** Whether a card cites the observation's turn and states it (token F1 ≥ 0.3). */
export const cardStates = (card: ExtractedCard, observation: Observation) =>
  card.turnIds.includes(observation.turnId) && tokenF1(card.text, observation.text) >= STATES_THRESHOLD;

export type ExtractionScore = {
  observations: number;
  recalled: number;
  recall: number;
  cards: number;
  supported: number;
  precision: number;
  turns: number;
  cardsPer100Turns: number;
  /** Per kind category of the card: its cards, those citing a supporting turn, observations it states. */
  byKindCategory: Record<string, { cards: number; supported: number; precision: number; observationsStated: number }>;
};

const ratio = (a: number, b: number) => (b === 0 ? 0 : Math.round((a / b) * 1000) / 1000);

/**
 * Observation recall: share of observations whose supporting turn a card cites and whose content
 * the card states. Card precision: share of cards citing a turn that supports some observation.
 */
export function scoreExtraction(
  observations: readonly Observation[],
  cards: readonly ExtractedCard[],
  turns: number,
): ExtractionScore {
  const supportingTurns = new Set(observations.map((o) => o.turnId));
  const byKindCategory: ExtractionScore["byKindCategory"] = {};
  const entry = (category: string) =>
    (byKindCategory[category] ??= { cards: 0, supported: 0, precision: 0, observationsStated: 0 });
  let supported = 0;
  for (const card of cards) {
    const bucket = entry(card.kindCategory);
    bucket.cards++;
    if (card.turnIds.some((id) => supportingTurns.has(id))) {
      supported++;
      bucket.supported++;
    }
  }
  let recalled = 0;
  for (const observation of observations) {
    const stating = cards.filter((card) => cardStates(card, observation));
    if (stating.length === 0) continue;
    recalled++;
    for (const category of new Set(stating.map((card) => card.kindCategory))) entry(category).observationsStated++;
  }
  for (const bucket of Object.values(byKindCategory)) bucket.precision = ratio(bucket.supported, bucket.cards);
  return {
    observations: observations.length,
    recalled,
    recall: ratio(recalled, observations.length),
    cards: cards.length,
    supported,
    precision: ratio(supported, cards.length),
    turns,
    cardsPer100Turns: turns === 0 ? 0 : Math.round((cards.length / turns) * 100 * 10) / 10,
    byKindCategory,
  };
}

export type SummaryScore = { rouge1: number; rougeL: number; keyTerms: number | null };

export function scoreSummary(summary: string, reference: string): SummaryScore {
  return {
    rouge1: rouge1(summary, reference),
    rougeL: rougeL(summary, reference),
    keyTerms: keyTermShare(summary, reference),
  };
}

/** Mean of each score over sessions (key-term share over the sessions that have key terms). */
export function meanSummaryScore(scores: readonly SummaryScore[]): SummaryScore {
  const mean = (values: number[]) =>
    values.length === 0 ? 0 : Math.round((values.reduce((s, v) => s + v, 0) / values.length) * 1000) / 1000;
  const terms = scores.map((s) => s.keyTerms).filter((v): v is number => v !== null);
  return {
    rouge1: mean(scores.map((s) => s.rouge1)),
    rougeL: mean(scores.map((s) => s.rougeL)),
    keyTerms: terms.length ? mean(terms) : null,
  };
}

/** Baseline 1: the session's first three user turns. */
export const firstUserTurns = (turns: readonly { role: string; content: string }[], n = 3) =>
  turns
    .filter((t) => t.role === "user")
    .slice(0, n)
    .map((t) => t.content)
    .join("\n");

/** Baseline 2: the session's n turns scored highest by `score`, in conversation order. */
export function topScoredTurns(turns: readonly { content: string }[], score: (text: string) => number, n = 3): string {
  return turns
    .map((turn, index) => ({ index, content: turn.content, score: score(turn.content) }))
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, n)
    .sort((a, b) => a.index - b.index)
    .map((t) => t.content)
    .join("\n");
}
