import { decode, encode, setMergeCacheSize } from "gpt-tokenizer";

/**
 * Both caches below are bounded so that a long-running server's memory stays flat: the tokenizer's
 * own cache of merged word pieces defaults to 100,000 entries, and card text (new with every write,
 * and Chinese runs that split into long unique pieces) filled it by ~1,300 entries a minute under
 * the soak benchmark, which read as a steady RSS climb for an hour. 5,000 pieces count as fast as
 * 100,000 on the benchmark's card lines (docs/performance.md, round 6).
 */
const TOKENIZER_MERGE_CACHE = 5_000;
setMergeCacheSize(TOKENIZER_MERGE_CACHE);

/** Counts of recently seen texts: the same card lines and headings come back turn after turn. */
const MEMO_LIMIT = 5_000;
const memo = new Map<string, number>();

/** Tokens as OpenAI's o200k tokenizer counts them: budgets are in real tokens, not characters. */
export function countTokens(text: string): number {
  if (!text) return 0;
  const known = memo.get(text);
  if (known !== undefined) return known;
  const count = encode(text).length;
  // Long texts (whole prompts) are unique; keeping them would only evict the reusable lines.
  if (text.length <= 2_000) {
    if (memo.size >= MEMO_LIMIT) memo.delete(memo.keys().next().value!);
    memo.set(text, count);
  }
  return count;
}

/** `text` cut to at most `maxTokens` tokens (an ellipsis marks the cut and counts against the limit). */
export function truncateToTokens(text: string, maxTokens: number): string {
  if (maxTokens <= 0) return "";
  const tokens = encode(text);
  if (tokens.length <= maxTokens) return text;
  if (maxTokens === 1) return "…";
  return `${decode(tokens.slice(0, maxTokens - 1)).trimEnd()}…`;
}
