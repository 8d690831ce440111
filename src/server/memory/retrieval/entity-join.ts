import { CJK_CHAR_CLASS, normalizeSearchText } from "~/server/text/segment";
import type { QueryTerm } from "./query-terms";
import { RARE_MAX_SHARE, RARE_WORDS_PER_ROW } from "./rare-words";
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
 * Pure: the caller reads the shares (term-shares.ts) and the candidates' normalized text (second-stage.ts).
 */

/** Candidates in a group at most: a name recurs in a few of the best rows; a phrasing in many. */
export const MAX_GROUP = 3;

/** Coverages closer than this are equal (sums of the same weights in another order differ in the last bit). */
const EQUAL_MARGIN = 1e-9;

export type Link = { key: string; share: number };
export type JoinCandidate = { id: string; coverage: number; matched: readonly number[]; links: readonly Link[] };

const DIGITS = /^\d+$/;
/** Characters read for links: a thing is named early in a line, and a long message's tail is many chance words. */
export const LINK_CHARS = 200;
/** A run of CJK characters, or of other letters and digits: the index pairs characters within a run only. */
const RUN = new RegExp(`[${CJK_CHAR_CLASS}]+|(?:(?![${CJK_CHAR_CLASS}])[\\p{L}\\p{M}\\p{N}])+`, "gu");
const CJK_START = new RegExp(`^[${CJK_CHAR_CLASS}]`, "u");

/**
 * A candidate's link words: the index's terms in its first LINK_CHARS characters (pairs of CJK
 * characters within a run, Latin words of 3+ letters, no bare numbers), the ones the question does
 * not hold (`asked`), rare in the table (rare-words.ts, as the second hop's bridge words), at most
 * RARE_WORDS_PER_ROW, the rarest first (earlier first among equals). `normalized`
 * as normalizeSearchText leaves a text.
 */
export function linkWords(normalized: string, asked: AskedWords, shares: TermShares): Link[] {
  const found: (Link & { at: number })[] = [];
  const consider = (key: string, at: number) => {
    if (asked.exact.has(key)) return;
    const share = shares.get(key) ?? 0;
    if (share <= RARE_MAX_SHARE) found.push({ key, share, at });
  };
  for (const m of normalized.slice(0, LINK_CHARS).matchAll(RUN)) {
    const run = m[0];
    if (CJK_START.test(run)) {
      const chars = [...run];
      for (let i = 0; i + 1 < chars.length; i++) consider(chars[i]! + chars[i + 1]!, m.index + i);
    } else if (run.length >= 3 && !DIGITS.test(run) && !asked.prefixes.some((p) => run.startsWith(p))) {
      consider(run, m.index);
    }
  }
  found.sort((x, y) => x.share - y.share || x.at - y.at);
  const links: Link[] = [];
  for (const { key, share } of found) {
    if (links.length >= RARE_WORDS_PER_ROW) break;
    if (!links.some((l) => l.key === key)) links.push({ key, share });
  }
  return links;
}

/** The question's words as linkWords leaves them out: whole terms, and prefixes of Latin words. */
export type AskedWords = { exact: ReadonlySet<string>; prefixes: readonly string[] };

/** `terms`: all of the query's, its translations too (a row found through a translation holds that word as asked). */
export function askedBy(terms: readonly QueryTerm[]): AskedWords {
  return {
    exact: new Set(terms.filter((t) => !t.prefix).map((t) => t.term)),
    prefixes: terms.filter((t) => t.prefix).map((t) => t.term),
  };
}

/** Chinese conjunctions, and English ones as whole words. */
const CONJUNCTION = /和|与|跟|及|还是|或者|或|比|(?<![\p{L}\p{N}])(?:and|or|than|vs)(?![\p{L}\p{N}])/gu;
/**
 * Words in which one of those characters is no conjunction (参与 "take part", 比赛 "match", 和平 "peace"):
 * a conjunction inside one of them sets nothing side by side.
 */
const NOT_CONJUNCTION = new RegExp(
  [
    "参与|与其|给与|赋与",
    "比赛|比较|比如|比例|对比|无比|好比|比方|比分|比划",
    "和平|和谐|温和|暖和|总和|柔和|和好|和善|缓和|随和|平和|和蔼|共和|和尚|附和|和解|和气",
    "及时|及格|涉及|普及|来不及|不及|波及|危及|顾及|以及",
    "跟前|跟着|跟班|脚跟|鞋跟|跟进|跟随|跟踪",
    "或许",
  ].join("|"),
  "gu",
);
/** Characters read on each side of a CJK conjunction (a name, a short noun), up to a 的 or a mark. */
const CJK_SIDE = 4;
const CJK_SIDE_STOP = new RegExp(`[^${CJK_CHAR_CLASS}]|[的之地得]`, "u");
/** Latin words read on each side: one, within a short window (bounded, so a question of many "and"s reads in linear time). */
const LATIN_WINDOW = 40;
const LATIN_WORD_BEFORE = /([\p{L}\p{N}]+)[^\p{L}\p{N}]*$/u;
const LATIN_WORD_AFTER = /^[^\p{L}\p{N}]*([\p{L}\p{N}]+)/u;
/** Conjunctions read in a query, at most: a question sets a few things side by side. */
const MAX_CONJUNCTIONS = 16;

/**
 * Pairs of the terms' indices the question sets side by side with a conjunction ("A和B", "A or B"), as
 * "i|j" both ways: alternatives, not one thing's facts. Only the word on each side counts ("我那个喜欢爬山
 * 和游泳的表哥": 爬山 and 游泳, not 表哥). An English "and" also joins two facts of one person ("lives in
 * Boston and works at Google"); reading those as alternatives only keeps the join from adding one to
 * the other.
 */
export function coordinatedTerms(question: string, terms: readonly QueryTerm[]): Set<string> {
  const text = normalizeSearchText(question);
  const inWords = [...text.matchAll(NOT_CONJUNCTION)].map((m) => [m.index, m.index + m[0].length] as const);
  const pairs = new Set<string>();
  let read = 0;
  for (const m of text.matchAll(CONJUNCTION)) {
    if (++read > MAX_CONJUNCTIONS) break;
    const start = m.index;
    const end = start + m[0].length;
    if (inWords.some(([from, to]) => from <= start && end <= to)) continue;
    const latin = /^[a-z]/u.test(m[0]);
    const left = latin
      ? (LATIN_WORD_BEFORE.exec(text.slice(Math.max(0, start - LATIN_WINDOW), start))?.[1] ?? "")
      : cjkSide([...text.slice(Math.max(0, start - CJK_SIDE), start)].reverse())
          .reverse()
          .join("");
    const right = latin
      ? (LATIN_WORD_AFTER.exec(text.slice(end, end + LATIN_WINDOW))?.[1] ?? "")
      : cjkSide([...text.slice(end, end + CJK_SIDE)]).join("");
    if (!left || !right) continue;
    const within = (side: string) =>
      terms.flatMap((t, i) => (side.includes(t.term) || (t.prefix && side.startsWith(t.term)) ? [i] : []));
    for (const i of within(left)) for (const j of within(right)) if (i !== j) pairs.add(`${i}|${j}`).add(`${j}|${i}`);
  }
  return pairs;
}

/** The CJK characters next to a conjunction, nearest first, up to the first mark, 的 or other script. */
function cjkSide(nearestFirst: readonly string[]): string[] {
  const stop = nearestFirst.findIndex((c) => CJK_SIDE_STOP.test(c));
  return stop < 0 ? [...nearestFirst] : nearestFirst.slice(0, stop);
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
  // Each term's partners across a conjunction, once.
  const partners = new Map<number, number[]>();
  for (const pair of coordinated) {
    const [u, t] = pair.split("|").map(Number) as [number, number];
    partners.set(t, [...(partners.get(t) ?? []), u]);
  }
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
          if (partners.get(t)?.some((u) => own.has(u))) continue;
          added.add(t);
        }
      }
      let gain = 0;
      for (const t of added) gain += weights[t]!;
      gain /= total;
      // Only a group that holds more of the question than any one candidate does says which thing is meant
      // (the sums are of the same weights in another order: a margin keeps equal ones equal).
      if (!(member.coverage + gain > best + EQUAL_MARGIN)) continue;
      if (gain > (gains.get(member.id) ?? 0)) gains.set(member.id, gain);
    }
  }
  return gains;
}
