import { decode, encode } from "gpt-tokenizer";

/** Counts of recently seen texts: the same card lines and headings come back turn after turn. */
const MEMO_LIMIT = 20_000;
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
