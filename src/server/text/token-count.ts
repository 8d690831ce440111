import { countTokens as countWithTokenizer, decode, encode, setMergeCacheSize } from "gpt-tokenizer";

/**
 * Both caches below are bounded so that a long-running server's memory stays flat: the tokenizer's
 * own cache of merged word pieces defaults to 100,000 entries, and card text (new with every write,
 * and Chinese runs that split into long unique pieces) filled it by ~1,300 entries a minute under
 * the soak benchmark, which read as a steady RSS climb for an hour. 5,000 pieces count as fast as
 * 100,000 on the benchmark's card lines (docs/history/performance-rounds.md, round 6).
 */
const TOKENIZER_MERGE_CACHE = 5_000;
setMergeCacheSize(TOKENIZER_MERGE_CACHE);

/**
 * Stored text is plain text: "<|endoftext|>" in a card or a message is counted as the characters it
 * is. (By default the tokenizer throws on special-token text, which made one such card disable
 * memory_context for everyone who could read it.)
 */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * Counts of recently seen texts: a turn's standing cards come back turn after turn (most of a
 * memory_context call's lines), and counting a line costs 10–35 µs. Keyed by a 53-bit hash of the
 * text rather than the text itself, so that 50,000 entries hold in ~3 MB (on the benchmark, 50,000
 * entries against 5,000 saved ~2.6 ms of a 13 ms context call). A false hit needs two different
 * texts with the same hash: about one lookup in 10^11 with the memo full.
 */
const MEMO_LIMIT = 50_000;
/** Long texts (whole prompts) are unique; keeping them would only evict the reusable lines. */
const MEMO_MAX_CHARS = 2_000;

/** A 53-bit hash of `text` (two 32-bit multiplicative hashes, one cut to 21 bits). */
export function textHash(text: string): number {
  let a = 0x811c9dc5 ^ text.length;
  let b = 0x9e3779b9;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  a ^= a >>> 16;
  a = Math.imul(a, 0x85ebca6b);
  a ^= a >>> 13;
  b = Math.imul(b ^ (b >>> 16), 0xc2b2ae35);
  return (b >>> 11) * 0x100000000 + (a >>> 0);
}

function memoized(count: (text: string) => number) {
  const memo = new Map<number, number>();
  return (text: string): number => {
    if (text.length > MEMO_MAX_CHARS) return count(text);
    const key = textHash(text);
    const known = memo.get(key);
    if (known !== undefined) return known;
    const tokens = count(text);
    if (memo.size >= MEMO_LIMIT) memo.delete(memo.keys().next().value!);
    memo.set(key, tokens);
    return tokens;
  };
}

const countPlain = memoized((text) => countWithTokenizer(text, PLAIN_TEXT));

/** Tokens of `text` followed by a line break (a line of a prompt block that has lines after it). */
export const countLineTokens = memoized((text) => countWithTokenizer(`${text}\n`, PLAIN_TEXT));

/** Tokens as OpenAI's o200k tokenizer counts them: budgets are in real tokens, not characters. */
export function countTokens(text: string): number {
  return text ? countPlain(text) : 0;
}

/**
 * A line can be counted on its own, line break included, and the counts added up when it starts
 * with neither white space nor a slash: the tokenizer splits text into pieces before merging, and a
 * piece that holds a line break only runs on into the next line through more white space, more
 * line breaks or a slash. Anything else starts a new piece.
 */
export const startsNewPiece = (line: string) => line.length > 0 && !/^[\s/]/.test(line);

/**
 * Exact tokens of `lines.join("\n")`: the sum of each line's count with its line break when every
 * line after the first starts a new piece (see startsNewPiece), else the joined text counted whole.
 */
export function countJoinedLines(lines: readonly string[]): number {
  if (lines.length === 0) return 0;
  let sum = 0;
  for (let i = 0; i < lines.length - 1; i++) {
    if (!startsNewPiece(lines[i + 1]!)) return countTokens(lines.join("\n"));
    sum += countLineTokens(lines[i]!);
  }
  return sum + countTokens(lines[lines.length - 1]!);
}

/** `text` cut to at most `maxTokens` tokens (an ellipsis marks the cut and counts against the limit). */
export function truncateToTokens(text: string, maxTokens: number): string {
  if (maxTokens <= 0) return "";
  const tokens = encode(text, PLAIN_TEXT);
  if (tokens.length <= maxTokens) return text;
  if (maxTokens === 1) return "…";
  return `${decode(tokens.slice(0, maxTokens - 1)).trimEnd()}…`;
}
