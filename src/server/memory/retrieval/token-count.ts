import { encode } from "gpt-tokenizer";

/** Tokens as OpenAI's o200k tokenizer counts them: budgets are in real tokens, not characters. */
export const countTokens = (text: string): number => (text ? encode(text).length : 0);
