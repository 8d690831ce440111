import { decode, encode } from "gpt-tokenizer";

/** Tokens as OpenAI's o200k tokenizer counts them: budgets are in real tokens, not characters. */
export const countTokens = (text: string): number => (text ? encode(text).length : 0);

/** `text` cut to at most `maxTokens` tokens (an ellipsis marks the cut and counts against the limit). */
export function truncateToTokens(text: string, maxTokens: number): string {
  if (maxTokens <= 0) return "";
  const tokens = encode(text);
  if (tokens.length <= maxTokens) return text;
  if (maxTokens === 1) return "…";
  return `${decode(tokens.slice(0, maxTokens - 1)).trimEnd()}…`;
}
