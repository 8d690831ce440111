import { countTokens as countWithTokenizer, decode, encode, setMergeCacheSize } from "gpt-tokenizer";

/**
 * Both caches below are bounded so that a long-running server's memory stays flat: the tokenizer's
 * own cache of merged word pieces defaults to 100,000 entries, and card text (new with every write,
 * and Chinese runs that split into long unique pieces) filled it by ~1,300 entries a minute under
 * the soak benchmark, which read as a steady RSS climb for an hour. 5,000 pieces count as fast as
 * 100,000 on the benchmark's card lines (docs/performance.md, round 6).
 */
const TOKENIZER_MERGE_CACHE = 5_000;
setMergeCacheSize(TOKENIZER_MERGE_CACHE);

/**
 * Stored text is plain text: "<|endoftext|>" in a card or a message is counted as the characters it
 * is. (By default the tokenizer throws on special-token text, which made one such card disable
 * memory_context for everyone who could read it.)
 */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/** Counts of recently seen texts: the same card lines and headings come back turn after turn. */
const MEMO_LIMIT = 5_000;
/** Long texts (whole prompts) are unique; keeping them would only evict the reusable lines. */
const MEMO_MAX_CHARS = 2_000;

function memoized(count: (text: string) => number) {
  const memo = new Map<string, number>();
  return (text: string): number => {
    const known = memo.get(text);
    if (known !== undefined) return known;
    const tokens = count(text);
    if (text.length <= MEMO_MAX_CHARS) {
      if (memo.size >= MEMO_LIMIT) memo.delete(memo.keys().next().value!);
      memo.set(text, tokens);
    }
    return tokens;
  };
}

const countPlain = memoized((text) => countWithTokenizer(text, PLAIN_TEXT));
const countLine = memoized((text) => countWithTokenizer(`${text}\n`, PLAIN_TEXT));

/** Tokens as OpenAI's o200k tokenizer counts them: budgets are in real tokens, not characters. */
export function countTokens(text: string): number {
  return text ? countPlain(text) : 0;
}

/** Tokens of `text` followed by a line break (a line of a prompt block that has lines after it). */
export function countLineTokens(text: string): number {
  return countLine(text);
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
