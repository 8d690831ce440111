import { CJK_CHAR_CLASS, normalizeSearchText } from "~/server/text/segment";
import type { QueryTerm } from "./query-terms";
import type { TermShares } from "./term-shares";

/**
 * The entity join: a question that describes a thing by two of its facts ("我那个喜欢爬山的表哥最爱吃什么菜？",
 * "what does my sister who lives in Boston do?") is answered by rows that each hold one fact, tied by a
 * name the question never says: "杨少华一到周末就去爬山", "杨少华最喜欢的菜是羊肉串", "我表哥叫杨少华". Each row
 * alone holds a part of the question, and other people's rows hold as much ("肖宇平时最喜欢爬山"), so no
 * single-row score prefers them. Together they hold more of it than any one row. Among the second
 * stage's candidates, a few that share a rare word the question lacks (the link) form a group, and each
 * member gets, as `join`, the share of the question's weight the others hold and it lacks.
 *
 * Two guards keep it to one thing's facts:
 * - a group of more than MAX_GROUP candidates is a phrasing many rows share (一到周末就去), not a name;
 * - a term does not count from another member when the question sets it beside one the member holds
 *   with a conjunction: "程秀英和钱宏伟谁更高？" asks about two people, and a city or a phrasing their lines
 *   share does not make them one.
 * Pure: the caller reads the shares (term-shares.ts) and the candidates' tokens (second-stage.ts).
 */

/** Candidates in a group at most: a name recurs in a few of the best rows; a phrasing in many. */
export const MAX_GROUP = 3;
/** Link words read per candidate, the rarest first. */
export const LINKS_PER_CANDIDATE = 6;
/** A link word in more than this share of the table says little about one thing (as the second hop's bridge). */
export const LINK_MAX_SHARE = 0.02;

export type Link = { key: string; share: number };
export type JoinCandidate = { id: string; coverage: number; matched: readonly number[]; links: readonly Link[] };

const DIGITS = /^\d+$/;
/** Tokens read for links: a thing is named early in a line, and a long message's tail is many chance words. */
export const LINK_TOKENS = 100;

/**
 * A candidate's link words: the index's terms in its tokens (CJK bigrams, Latin words of 3+ letters),
 * the ones the question does not hold (`asked`), rare in the table, the rarest first (earlier first
 * among equals). `tokens` as the second stage reads them: one CJK character, or a run of letters and digits.
 */
export function linkWords(tokens: readonly string[], asked: AskedWords, shares: TermShares): Link[] {
  const found: (Link & { at: number })[] = [];
  const end = Math.min(tokens.length, LINK_TOKENS);
  let cjk = end > 0 && isCjk(tokens[0]!);
  for (let i = 0; i < end; i++) {
    const token = tokens[i]!;
    const nextCjk = i + 1 < end && isCjk(tokens[i + 1]!);
    const here = cjk;
    cjk = nextCjk;
    let key: string;
    if (here) {
      if (!nextCjk) continue;
      key = token + tokens[i + 1]!;
    } else {
      if (token.length < 3 || DIGITS.test(token) || asked.prefixes.some((p) => token.startsWith(p))) continue;
      key = token;
    }
    if (asked.exact.has(key)) continue;
    const share = shares.get(key) ?? 0;
    if (share <= LINK_MAX_SHARE) found.push({ key, share, at: i });
  }
  found.sort((x, y) => x.share - y.share || x.at - y.at);
  const links: Link[] = [];
  for (const { key, share } of found) {
    if (links.length >= LINKS_PER_CANDIDATE) break;
    if (!links.some((l) => l.key === key)) links.push({ key, share });
  }
  return links;
}

/** A token is one CJK character or a run of other letters and digits (second-stage.ts): a CJK one is a single code point. */
const isCjk = (token: string) =>
  token.length <= 2 && token.codePointAt(0)! >= 0x2e80 && (token.length === 1 || token.codePointAt(0)! > 0xffff);

/** The question's words as linkWords leaves them out: whole terms, and prefixes of Latin words. */
export type AskedWords = { exact: ReadonlySet<string>; prefixes: readonly string[] };

export function askedBy(terms: readonly QueryTerm[]): AskedWords {
  return {
    exact: new Set(terms.filter((t) => !t.prefix).map((t) => t.term)),
    prefixes: terms.filter((t) => t.prefix).map((t) => t.term),
  };
}

const CONJUNCTION = new RegExp(
  `(?<=[${CJK_CHAR_CLASS}])(?:和|与|跟|及|还是|或者|或|比)(?=[${CJK_CHAR_CLASS}])|\\b(?:and|or|than|vs)\\b`,
  "gu",
);
/** Characters read on each side of a CJK conjunction (a name, a short noun). */
const CJK_SIDE = 4;
const LATIN_WORD_BEFORE = /(?:^|[^\p{L}\p{N}])([\p{L}\p{N}]+)[^\p{L}\p{N}]*$/u;
const LATIN_WORD_AFTER = /^[^\p{L}\p{N}]*([\p{L}\p{N}]+)/u;

/**
 * Pairs of the terms' indices the question sets side by side with a conjunction ("A和B", "A or B"), as
 * "i|j" both ways: alternatives, not one thing's facts.
 */
export function coordinatedTerms(question: string, terms: readonly QueryTerm[]): Set<string> {
  const text = normalizeSearchText(question);
  const pairs = new Set<string>();
  for (const m of text.matchAll(CONJUNCTION)) {
    const start = m.index;
    const end = start + m[0].length;
    const cjk = /^[^a-z]/u.test(m[0]);
    const left = cjk
      ? text.slice(Math.max(0, start - CJK_SIDE), start)
      : (LATIN_WORD_BEFORE.exec(text.slice(0, start))?.[1] ?? "");
    const right = cjk ? text.slice(end, end + CJK_SIDE) : (LATIN_WORD_AFTER.exec(text.slice(end))?.[1] ?? "");
    const within = (side: string) =>
      terms.flatMap((t, i) => (side.includes(t.term) || (t.prefix && side.startsWith(t.term)) ? [i] : []));
    for (const i of within(left)) for (const j of within(right)) if (i !== j) pairs.add(`${i}|${j}`).add(`${j}|${i}`);
  }
  return pairs;
}

/**
 * Per candidate (by id), the most any of its groups adds to its coverage: the weight of the terms other
 * members hold and it lacks, over the question's whole weight. `weights` per term (as coverage weighs
 * them), `coordinated` from coordinatedTerms. Candidates no group lifts are absent.
 */
export function joinedCoverage(
  candidates: readonly JoinCandidate[],
  weights: readonly number[],
  coordinated: ReadonlySet<string>,
): Map<string, number> {
  const total = weights.reduce((sum, w) => sum + w, 0);
  const gains = new Map<string, number>();
  if (!(total > 0)) return gains;
  const best = Math.max(0, ...candidates.map((c) => c.coverage));
  // Most links are one candidate's own: a group's list is made when a second candidate holds its word.
  const first = new Map<string, number>();
  const groups = new Map<string, number[]>();
  candidates.forEach((c, i) => {
    for (const { key } of c.links) {
      const holder = first.get(key);
      if (holder === undefined) first.set(key, i);
      else if (holder !== i) {
        const members = groups.get(key);
        if (!members) groups.set(key, [holder, i]);
        else if (members.at(-1) !== i) members.push(i);
      }
    }
  });
  for (const members of groups.values()) {
    if (members.length > MAX_GROUP) continue;
    for (const i of members) {
      const member = candidates[i]!;
      const own = new Set(member.matched);
      const added = new Set<number>();
      for (const j of members) {
        if (j === i) continue;
        for (const t of candidates[j]!.matched) {
          if (own.has(t)) continue;
          if (member.matched.some((u) => coordinated.has(`${u}|${t}`))) continue;
          added.add(t);
        }
      }
      let gain = 0;
      for (const t of added) gain += weights[t]!;
      gain /= total;
      // Only a group that holds more of the question than any one candidate does says which thing is meant.
      if (!(member.coverage + gain > best)) continue;
      if (gain > (gains.get(member.id) ?? 0)) gains.set(member.id, gain);
    }
  }
  return gains;
}
