/**
 * Search-text segmentation. `to_tsvector('simple', …)` splits only on spaces and punctuation, so a
 * Chinese sentence would be one lexeme and never match a word in it. We split text into words ourselves before
 * it is stored and before it is queried:
 * - Intl.Segmenter (ICU dictionary, offline) gives words: 记住 我 以后 做饭 不要 香菜.
 * - Dictionary words differ between a card and a query (香菜炒蛋 may be one word or two, depending
 *   on ICU), so the indexed side also gets every CJK unigram and bigram of each CJK run, and the
 *   query side uses words of ≤ 2 characters as they are and longer ones as bigrams. Every query
 *   token of a CJK substring of the text is then in the index, whatever ICU decided.
 * Tokens contain only letters, marks and digits, so Postgres' parser keeps each one as one lexeme.
 */

import { chineseNumeralValues } from "./chinese-numerals";
import { toSimplifiedHan } from "./han-variants";

const segmenter = new Intl.Segmenter("zh", { granularity: "word" });

/**
 * Letters of scripts written without spaces between words (plus Hangul, whose particles attach to
 * words). Script, not Script_Extensions: the latter would count 。and 「」 as Han.
 */
export const CJK_CHAR_CLASS = "\\p{sc=Han}\\p{sc=Hiragana}\\p{sc=Katakana}\\p{sc=Hangul}\\u30FC";
const CJK_CHAR = new RegExp(`[${CJK_CHAR_CLASS}]`, "u");
const CJK_RUN = new RegExp(`[${CJK_CHAR_CLASS}]+`, "gu");
const CJK_OR_OTHER_RUNS = new RegExp(`[${CJK_CHAR_CLASS}]+|[^${CJK_CHAR_CLASS}]+`, "gu");
const NON_WORD = /[^\p{L}\p{M}\p{N}]+/u;
const APOSTROPHES = /['’‘`]/g;
/** Bounds n-gram expansion of very long text (cards are short; this guards imports). */
const MAX_NGRAM_CHARS = 4000;

/** Single characters and words that only add noise to a query (they stay indexed). */
const QUERY_STOP_WORDS = new Set([
  "的",
  "了",
  "吗",
  "呢",
  "吧",
  "啊",
  "呀",
  "哦",
  "嗯",
  "么",
  "是",
  "我",
  "你",
  "他",
  "她",
  "它",
  "请",
  "帮",
  "一下",
  "我的",
  "你的",
  "他的",
  "她的",
  "什么",
  "哪些",
  "怎么",
  "有没有",
  "是不是",
  "谁",
  "哪",
  "哪里",
  "哪儿",
  "哪个",
  "多少",
  "几",
  "多久",
  "为什么",
  "怎么样",
  "怎样",
  "如何",
  "什么时候",
  "a",
  "an",
  "the",
  "of",
  "to",
  "in",
  "on",
  "at",
  "for",
  "and",
  "or",
  "is",
  "are",
  "was",
  "were",
  "be",
  "i",
  "me",
  "my",
  "you",
  "your",
  "it",
  "its",
  "this",
  "that",
  "what",
  "which",
  "do",
  "does",
  "did",
  "please",
  "about",
]);

/** A query token too common to search for on its own ("什么", "我的", "the"). */
export const isQueryStopWord = (token: string) => QUERY_STOP_WORDS.has(token);

/** Stop words of two or more CJK characters, longest first: found inside a longer word too (多少钱, 有什么). */
const CJK_STOP_WORDS = [...QUERY_STOP_WORDS]
  .filter((word) => CJK_CHAR.test(word) && [...word].length >= 2)
  .sort((a, b) => [...b].length - [...a].length);

/** A CJK word as the stop words inside it and the runs between them (多少钱 → 多少, 钱). */
function stopWordParts(word: string): { text: string; stop: boolean }[] {
  const parts: { text: string; stop: boolean }[] = [];
  let run = "";
  for (let i = 0; i < word.length;) {
    const stop = CJK_STOP_WORDS.find((w) => word.startsWith(w, i));
    if (stop) {
      if (run) parts.push({ text: run, stop: false });
      parts.push({ text: stop, stop: true });
      run = "";
      i += stop.length;
    } else {
      const char = String.fromCodePoint(word.codePointAt(i)!);
      run += char;
      i += char.length;
    }
  }
  if (run) parts.push({ text: run, stop: false });
  return parts;
}

/** CJK characters too common to say anything on their own (they still count inside words and bigrams). */
const COMMON_CJK_CHARACTERS = new Set([
  ..."的了吗呢吧啊呀哦嗯么是我你他她它们这那个一不在有和也就都很还要会说到上下来去着过得地把被给让对吧谁哪几",
]);
export const isCommonCjkCharacter = (char: string) => COMMON_CJK_CHARACTERS.has(char);

type Piece = { text: string; cjk: boolean };

/** What both sides of a search compare: NFKC, lower case, simplified Han characters. */
export const normalizeSearchText = (text: string) =>
  typeof text === "string" ? toSimplifiedHan(text.normalize("NFKC").toLowerCase()) : "";
const normalize = normalizeSearchText;
const chars = (text: string) => [...text];

/** Segmenter input size: V8's segment iterator slows down quadratically on long strings. */
const SEGMENT_CHUNK = 256;
const isBreakUnit = (text: string, i: number) => {
  const code = text.charCodeAt(i);
  return (code < 0xd800 || code > 0xdfff) && NON_WORD.test(text[i]!);
};

/** Cuts text into pieces of at most SEGMENT_CHUNK code units, at a space or punctuation where there is one. */
function* chunks(text: string): Generator<string> {
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + SEGMENT_CHUNK);
    if (end < text.length) {
      let cut = end;
      while (cut > start && !isBreakUnit(text, cut - 1)) cut--;
      if (cut > start) end = cut;
      else if (/[\ud800-\udbff]/.test(text[end - 1]!)) end--; // never split a surrogate pair
    }
    yield text.slice(start, end);
    start = end;
  }
}

/** Word-like segments, split further into plain letter/digit pieces and CJK vs other-script runs. */
function pieces(normalized: string): Piece[] {
  const out: Piece[] = [];
  for (const chunk of chunks(normalized)) {
    for (const { segment, isWordLike } of segmenter.segment(chunk)) {
      if (!isWordLike) continue;
      // "don't" → "dont": an apostrophe joins a word rather than splitting it.
      for (const part of segment.replace(APOSTROPHES, "").split(NON_WORD)) {
        for (const run of part.match(CJK_OR_OTHER_RUNS) ?? []) out.push({ text: run, cjk: CJK_CHAR.test(run) });
      }
    }
  }
  return out;
}

function bigrams(run: string): string[] {
  const cs = chars(run);
  const out: string[] = [];
  for (let i = 0; i + 1 < cs.length; i++) out.push(cs[i]! + cs[i + 1]!);
  return out;
}

/** Unigrams and bigrams of each maximal CJK run in the text (runs span dictionary-word boundaries). */
function cjkNgrams(normalized: string): string[] {
  const out: string[] = [];
  let budget = MAX_NGRAM_CHARS;
  for (const [run] of normalized.matchAll(CJK_RUN)) {
    if (budget <= 0) break;
    const clipped = chars(run).slice(0, budget).join("");
    budget -= clipped.length;
    out.push(...chars(clipped), ...bigrams(clipped));
  }
  return out;
}

/** Words of alphabetic scripts (and digits) joined by hyphens; a CJK neighbour is not part of the word. */
const HYPHENATED =
  /[\p{sc=Latin}\p{sc=Greek}\p{sc=Cyrillic}\p{N}]+(?:[-‐‑][\p{sc=Latin}\p{sc=Greek}\p{sc=Cyrillic}\p{N}]+)+/gu;

/** Hyphenated words also written whole ("wi-fi" → "wifi", "e-mail" → "email"): people write both. */
function hyphenJoined(normalized: string): string[] {
  const out: string[] = [];
  for (const [word] of normalized.matchAll(HYPHENATED)) out.push(word.replace(/[-‐‑]/g, ""));
  return out;
}

/**
 * Space-joined tokens for the column a `to_tsvector('simple', …)` is generated from: the words in
 * order, then hyphenated words whole, numbers written in Chinese numerals as digits
 * (chinese-numerals.ts), and each CJK unigram/bigram not already present. Deterministic for a given
 * Node/ICU.
 */
export function segmentForSearch(text: string): string {
  const normalized = normalize(text);
  const words = pieces(normalized).map((piece) => piece.text);
  const seen = new Set(words);
  const extra: string[] = [];
  for (const gram of [...hyphenJoined(normalized), ...chineseNumeralValues(normalized), ...cjkNgrams(normalized)]) {
    if (!seen.has(gram)) {
      seen.add(gram);
      extra.push(gram);
    }
  }
  return [...words, ...extra].join(" ");
}

/** A query as search reads it (readQuery). */
export type QueryText = {
  /** normalizeSearchText's output. */
  normalized: string;
  /** segmentQuery's tokens. */
  tokens: string[];
  /**
   * `normalized` with each question or function word of two or more CJK characters (什么, 多少,
   * 为什么 …), alone or inside a longer word (多少钱), blanked out: bigrams across its boundary
   * (多少位 → 少位) and its single characters (多, 少) must not bring back the word that was dropped.
   */
  content: string;
};

/**
 * Query tokens (deduplicated, in order): Latin/other words as they are, CJK words of ≤ 2 characters
 * as they are, longer CJK words as their bigrams. Stop words are dropped unless nothing else is left;
 * one inside a longer word stays whole, so that it is dropped whole (as bigrams, 为什么 left 为什
 * behind and 多少钱 left 少钱). Numbers in Chinese numerals add their digits, as the index holds them.
 * One pass of the segmenter gives the tokens and `content`.
 */
export function readQuery(text: string): QueryText {
  const normalized = normalize(text);
  const tokens: string[] = [];
  let content = "";
  let from = 0;
  for (const piece of pieces(normalized)) {
    const parts = piece.cjk ? stopWordParts(piece.text) : [{ text: piece.text, stop: false }];
    for (const part of parts) {
      if (!piece.cjk || part.stop || chars(part.text).length <= 2) tokens.push(part.text);
      else tokens.push(...bigrams(part.text));
    }
    // Every piece found moves past itself: 多少 must not be found across 很多|少年 before it.
    const at = normalized.indexOf(piece.text, from);
    if (at < 0) continue;
    const blanked = parts.map((part) => (part.stop ? " ".repeat(part.text.length) : part.text)).join("");
    content += normalized.slice(from, at) + blanked;
    from = at + piece.text.length;
  }
  content += normalized.slice(from);
  tokens.push(...hyphenJoined(normalized), ...chineseNumeralValues(normalized));
  const unique = [...new Set(tokens)];
  const meaningful = unique.filter((token) => !QUERY_STOP_WORDS.has(token));
  return { normalized, tokens: meaningful.length > 0 ? meaningful : unique, content };
}

/** readQuery's tokens. */
export const segmentQuery = (text: string) => readQuery(text).tokens;

export type TsQueryOptions = {
  /** `and`: every token must match (precise); `or`: any token (recall, rank by ts_rank_cd). */
  mode?: "and" | "or";
  /** Append `:*` to non-CJK tokens so "herm" finds "hermes". */
  prefix?: boolean;
};

/**
 * Text for `to_tsquery('simple', $1)` (pass it as a bound parameter). Each token is a quoted
 * lexeme with `'` and `\` escaped, so user input cannot inject tsquery operators. Returns "" when
 * there is nothing to search for: the caller must skip the full-text branch then.
 */
export function buildTsQueryText(tokens: readonly string[], options: TsQueryOptions = {}): string {
  const joiner = options.mode === "or" ? " | " : " & ";
  return tokens
    .filter((token) => typeof token === "string" && /[\p{L}\p{N}]/u.test(token))
    .map((token) => {
      const quoted = `'${token.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`;
      return options.prefix && !CJK_CHAR.test(token) ? `${quoted}:*` : quoted;
    })
    .join(joiner);
}
