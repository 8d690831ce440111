import { Converter } from "opencc-js/t2cn";

const HAN = /\p{sc=Han}/u;
let convert: ((text: string) => string) | undefined;
let last = { text: "", folded: "" };

/**
 * Traditional Chinese characters as their simplified forms (OpenCC's Taiwan → mainland tables,
 * character by character): 過敏 and 过敏 are the same word to a reader, but different lexemes to
 * Postgres, so "我對什麼過敏" found nothing written "过敏". Applied to indexed and query text alike.
 * Text without Han characters is returned as it is; the tables load on first use (~60 ms).
 */
export function toSimplifiedHan(text: string): string {
  if (!HAN.test(text)) return text;
  // A search normalizes its query text more than once (terms, single characters, trigram text).
  if (text === last.text) return last.folded;
  convert ??= Converter({ from: "tw", to: "cn" });
  last = { text, folded: convert(text) };
  return last.folded;
}
