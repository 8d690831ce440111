import { normalizeSearchText } from "~/server/text/segment";
import { round } from "./fusion";
import { isOwnWord, type QueryTerm } from "./query-terms";
import { rareInScope } from "./rare-words";
import type { ScoreComponents } from "./search-schema";

/**
 * The last places of a page kept for the lines that hold what a Chinese question names
 * (docs/retrieval.md, "A name against a stock phrase").
 *
 * "彭婷平时喜欢干嘛？" is answered by "彭婷的爱好是打乒乓球。", which shares only the name with it. Other
 * people's lines holding the stock phrase ("他平时喜欢打篮球！") outrank it: written without spaces, the
 * phrase is several terms of the query (平时, 喜欢, the bigram 时喜 across them, their characters), each
 * counted as its own evidence, and together they outweigh one rare name. A Chinese question names what
 * it asks about first (the topic comes first), so the first word of the question's own that few rows
 * hold is taken as what it names, and the best lines holding it from below the page take the last
 * places of lines holding nothing the question names. The first places are left as they were, so a
 * page that already answers keeps its order. English questions are left alone: a phrase there is its
 * words, and in a dialogue the last places belong to the turns around a hit (simulated on LoCoMo: lower).
 */

/** The page's share kept for the named lines: its last three places of ten. */
const TAIL_SHARE = 0.3;
/** A word held by at most this many rows names one thing (a person, a place, an item), not a phrasing. */
const NAMED_MAX_ROWS = 10;

/** Two Han characters or more: a Chinese word (kana and Hangul stand apart, and Korean has spaces). */
const HAN_WORD = /^\p{sc=Han}{2,}$/u;

/** The question's own Han words held by at least one row, with where they stand in it and their rows. */
function ownHanWords(
  question: string,
  terms: readonly QueryTerm[],
  df: readonly number[],
): { term: string; at: number; df: number }[] {
  const text = normalizeSearchText(question);
  return terms.flatMap((term, i) => {
    const rows = df[i] ?? 0;
    const at = isOwnWord(term) && HAN_WORD.test(term.term) && rows >= 1 ? text.indexOf(term.term) : -1;
    return at >= 0 ? [{ term: term.term, at, df: rows }] : [];
  });
}

/**
 * What a one-line Chinese question names: its own words (not the lead-in's, not a translation, two Han
 * characters or more) that 1 to NAMED_MAX_ROWS rows of the scope hold, in the order they stand in the
 * question (the rarer first of two starting at the same place). The first is what it asks about; the
 * others may name a second thing (two people compared, a described place). With `subject` (the
 * scope's row count), the words standing before the first that more rows hold but are still rare in
 * the scope (rare-words.ts: a friend in forty lines of a 2,000-line log) follow them: the question is
 * about that, and its lines keep their places. `df` per term, from the first stage.
 */
export function namedWords(
  question: string,
  terms: readonly QueryTerm[],
  df: readonly number[],
  subject?: { n: number },
): string[] {
  const named: { term: string; at: number; df: number }[] = [];
  const often: { term: string; at: number }[] = [];
  for (const word of ownHanWords(question, terms, df)) {
    if (word.df <= NAMED_MAX_ROWS) named.push(word);
    else if (subject && rareInScope(word.df, subject.n)) often.push(word);
  }
  named.sort((a, b) => a.at - b.at || a.df - b.df);
  // "郭海亮爱吃什么？" in a log that mentions 郭海亮 forty times: the question is about him, and the
  // rarer 爱吃 after him is what it asks, not what it names (the topic comes first).
  const first = named[0];
  if (!first) return [];
  return [...named.map((n) => n.term), ...often.filter((o) => o.at < first.at).map((o) => o.term)];
}

/**
 * A one-line Chinese question's first own word that is rare in the scope (rare-words.ts), when none is
 * held by so few rows that namedWords reads it as named: "胡晨几月几号过生日？" in a log naming 胡晨 in
 * thirty lines. The page's last places go to its lines as to a named word's (feature `subjectTail`).
 */
export function firstRareWord(
  question: string,
  terms: readonly QueryTerm[],
  df: readonly number[],
  scope: { n: number },
): string[] {
  const rare = ownHanWords(question, terms, df).filter((word) => rareInScope(word.df, scope.n));
  const first = rare.reduce<(typeof rare)[number] | undefined>((a, b) => (a && a.at <= b.at ? a : b), undefined);
  return first ? [first.term] : [];
}

/**
 * `ranked` with the best entries that `holds` accepts from below the page moved onto it: they take the
 * places of the lowest entries in the page's last places that hold nothing named (`holdsAny`; up to the
 * tail's size), which follow the page. Every other entry keeps its place and order.
 */
export function withNamedTail<T extends { id: string }>(
  ranked: readonly T[],
  limit: number,
  holds: (entry: T) => boolean,
  holdsAny: (entry: T) => boolean = holds,
): { ranked: T[]; moved: Set<string> } {
  // A page of one keeps its place: its only hit is its first.
  const tail = Math.round(limit * TAIL_SHARE);
  if (tail === 0) return { ranked: [...ranked], moved: new Set() };
  const page = ranked.slice(0, limit);
  const below = ranked.slice(limit);
  const last = page.slice(Math.max(0, limit - tail));
  const yielding = last.filter((entry) => !holdsAny(entry)).reverse();
  const named = below.filter(holds).slice(0, yielding.length);
  if (named.length === 0) return { ranked: [...ranked], moved: new Set() };
  const displaced = new Set(yielding.slice(0, named.length).map((entry) => entry.id));
  const moved = new Set(named.map((entry) => entry.id));
  return {
    ranked: [
      ...page.filter((entry) => !displaced.has(entry.id)),
      ...named,
      ...page.filter((entry) => displaced.has(entry.id)),
      ...below.filter((entry) => !moved.has(entry.id)),
    ],
    moved,
  };
}

/** A hit of the merged evidence list: a message or a chunk, its fused score and its parts. */
export type PlacedHit = { id: string; kind: "message" | "chunk"; fused: number; components: ScoreComponents };

/**
 * The page (`limit` hits of `merged`, best first) with its last places given to the best hits holding
 * what the question names (withNamedTail), after fusion and the merge of sources, so that no other
 * signal reorders them. A hit brought on takes the score of the place it takes, never above the hit
 * before it (scores still fall down the page), and shows `named: 1`. Below the page only hits whose
 * text is known are weighed (`contentOf`: the second stage's head); a hit with no text is neither
 * moved nor displaced.
 */
export function withNamedPlaces<T extends PlacedHit>(
  merged: readonly T[],
  limit: number,
  named: readonly string[],
  contentOf: (hit: T) => string | undefined,
): T[] {
  const [first] = named;
  if (!first) return merged.slice(0, limit);
  // Messages and chunks are separate tables: a hit is known by both.
  const keyed = merged.map((hit) => ({ id: `${hit.kind}:${hit.id}`, hit }));
  const texts = new Map<T, string | undefined>();
  const textOf = (hit: T) => {
    if (!texts.has(hit)) {
      const content = contentOf(hit);
      texts.set(hit, content === undefined ? undefined : normalizeSearchText(content));
    }
    return texts.get(hit);
  };
  const { ranked, moved } = withNamedTail(
    keyed,
    limit,
    ({ hit }) => textOf(hit)?.includes(first) ?? false,
    ({ hit }) => {
      const text = textOf(hit);
      return text === undefined || named.some((word) => text.includes(word));
    },
  );
  const page: T[] = [];
  for (const [place, { id, hit }] of ranked.slice(0, limit).entries()) {
    if (!moved.has(id)) {
      page.push(hit);
      continue;
    }
    const fused = Math.min(merged[place]!.fused, page[page.length - 1]?.fused ?? Number.POSITIVE_INFINITY);
    page.push({ ...hit, fused, components: { ...hit.components, named: 1, fused: round(fused), final: round(fused) } });
  }
  return page;
}
