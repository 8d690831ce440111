import type { ExtractedOperation } from "../extract-rules";

/** What a family of rules proposes from one sentence of a user's message. */
export type Family = (sentence: Sentence) => ExtractedOperation[];

/** One sentence of a message, with what the whole message says about intent. */
export type Sentence = {
  /** The sentence as said (a correction's cue already resolved, see corrections.ts). */
  text: string;
  /** The user used an explicit cue (remember, 记住…) somewhere in the message. */
  explicit: boolean;
  /** The message talks about food: the cooking rules own its likes and avoidances. */
  food: boolean;
  /** The sentence corrects an earlier statement ("actually …", "不是…而是…"). */
  correction: boolean;
};

export const HAN = /[\u4e00-\u9fff]/;
export const isChinese = (text: string) => HAN.test(text);

/** Sentences of a message: split after sentence ends and line breaks, each at most 300 characters. */
export function sentencesOf(text: string): string[] {
  return text
    .split(/(?<=[。！？!?；;])\s*|(?<=[.])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 1)
    .map((s) => s.slice(0, 300));
}

const STOP = new Set([
  "a",
  "an",
  "the",
  "my",
  "our",
  "your",
  "some",
  "to",
  "of",
  "for",
  "and",
  "in",
  "on",
  "at",
  "with",
  "it",
  "that",
  "this",
  "really",
  "so",
  "very",
  "just",
  "more",
  "be",
  "up",
  "out",
  "about",
]);

/**
 * An item key from a phrase: a prefix and its first content words (at most four; at most eight
 * Chinese characters), so "continue my education in counseling" is `plan:continue education counseling`.
 */
export function itemFrom(prefix: string, phrase: string): string | undefined {
  const cleaned = phrase
    .normalize("NFKC")
    .replace(/[^\p{L}\p{M}\p{N}'’\s]+/gu, " ")
    .trim();
  if (isChinese(cleaned)) {
    const han = [...cleaned.replace(/\s+/g, "")].slice(0, 8).join("");
    return han ? `${prefix}:${han}` : undefined;
  }
  const words = cleaned
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w && !STOP.has(w) && !/^\d+$/.test(w))
    .slice(0, 4);
  return words.length ? `${prefix}:${words.join(" ")}` : undefined;
}

/** A phrase cut at the first clause boundary, trimmed, at most `max` characters. */
export function phrase(text: string, max = 80): string {
  return text
    .split(
      /[,.!?;:，。！？；：]|\s+(?:because|but|so|and then|since|which|when)\s+|\s+and (?=(?:it|that|this|i|we|she|he|they|then)\b)/i,
    )[0]!
    .trim()
    .slice(0, max)
    .trim()
    .replace(/了$/, "");
}

/** A create of an inferred (unless explicit) card quoting the sentence it came from. */
export function fact(
  sentence: Sentence,
  kind: string,
  fields: {
    itemKey?: string;
    title: string;
    value?: unknown;
    tags?: string[];
    entities?: string[];
    scopeHint?: "session" | "workspace";
  },
): ExtractedOperation {
  return {
    op: "create",
    kind,
    ...(fields.itemKey ? { itemKey: fields.itemKey } : {}),
    explicit: sentence.explicit,
    ...(fields.scopeHint ? { scopeHint: fields.scopeHint } : {}),
    ...(sentence.correction ? { correction: true } : {}),
    node: {
      title: fields.title.slice(0, 200),
      content: sentence.text,
      ...(fields.value !== undefined ? { valueJson: fields.value } : {}),
      tags: fields.tags ?? [],
      entities: fields.entities ?? [],
    },
  };
}

/** All matches of the patterns, first capture group each, in order. */
export function captures(text: string, patterns: readonly RegExp[]): RegExpMatchArray[] {
  const out: RegExpMatchArray[] = [];
  for (const pattern of patterns) {
    const global = pattern.global ? pattern : new RegExp(pattern.source, `${pattern.flags}g`);
    for (const match of text.matchAll(global)) if (match[1]) out.push(match);
  }
  return out;
}
