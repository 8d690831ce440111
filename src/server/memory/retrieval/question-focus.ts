import { normalizeSearchText } from "~/server/text/segment";

/**
 * The question a query ends with, when something comes before it. In "哎，今天有点累。早上去超市买了好多东西。
 * 孔静喜欢吃什么？" the question is about 孔静; the chit-chat before it is a lead-in whose words match
 * chit-chat in the memory (docs/retrieval.md, "The question a query ends with").
 */

/** What may follow a question's mark and still end the query: closing quotes and brackets, "?!", "~", spaces, symbols (emoji). */
const TRAILING_CHAR = /[\s~!"'\p{Pe}\p{Pf}\p{So}\p{Sk}\uFE0F\u200D\u20E3]/u;
/**
 * How far endsSentence looks on either side of a mark: enough for a quote before a capital and for a
 * dotted abbreviation, and a bound on the work per mark (a query of thousands of dots stays linear).
 */
const LOOK = 40;

/** `text` without the TRAILING_CHAR run at its end, cut from the end one character at a time (a `…+$` regex is quadratic on a long run followed by one other character). */
function withoutTrailing(text: string): string {
  let end = text.length;
  while (end > 0) {
    const code = text.charCodeAt(end - 1);
    // A surrogate pair (an emoji) is tested whole.
    const width = code >= 0xdc00 && code <= 0xdfff && end >= 2 ? 2 : 1;
    if (!TRAILING_CHAR.test(text.slice(end - width, end))) break;
    end -= width;
  }
  return text.slice(0, end);
}
/** Quotes and brackets around the question. */
const LEADING = /^[\s"'\p{Pi}\p{Pf}\p{Ps}\p{Pe}]+/u;
/** A "?" inside a link or a parameter ("…/a?b=1") ends nothing. */
const INSIDE_A_LINK = /[\p{L}\p{N}=&%_/-]/u;
/** What comes after a dot or a line break that starts a new sentence: a capital or a CJK character. */
const SENTENCE_START = /[\p{Lu}\p{Lt}]|[^\x00-\x7F]/u;
/** Words a dot follows without ending a sentence (besides single letters and dotted words such as "U.S" or "Ph.D"). */
const ABBREVIATIONS = new Set(
  (
    "dr mr mrs ms st jr sr prof vs gen capt lt sgt col gov sen rep rev inc ltd co corp ave approx mt fig " +
    "jan feb mar apr jun jul aug sep sept oct nov dec"
  ).split(" "),
);

/**
 * Questions that ask about what was just said ("你还记得吗？", "后来呢？", "What do you think?"): after
 * them the lead-in is the question. Written as normalized text without punctuation or spaces.
 */
const TAG_QUESTIONS = new Set([
  ...(
    "你还记得吗 还记得吗 记得吗 你记得吗 对吧 是吧 对不对 是不是 对吗 是吗 不是吗 真的吗 真的假的 好吗 好不好 行吗 行不行 " +
    "可以吗 你觉得呢 你觉得怎么样 你觉得如何 怎么样 如何 你说呢 你看呢 你知道吗 知道吗 懂吗 你懂吗 明白吗 你呢 没错吧 " +
    "后来呢 然后呢 还有呢 还有吗 怎么回事 怎么了 为啥呢"
  ).split(" "),
  ...(
    "right isntit isntthatright doyouremember remember rememberthat whatdoyouthink dontyouthink doyouagree " +
    "youknow doyouknow ok okay really andyou howaboutyou whataboutyou howcome whatelse canyouexplain howso " +
    "andthen thenwhat whathappened whathappenednext whyisthat"
  ).split(" "),
]);
/** A speaker's label ("Bart:"), as a pasted dialogue's lines start. */
const LABEL = /^[^:\n]{1,24}:\s*/u;
/** An opening interjection does not change what a short question asks; longer alternatives first. */
const INTERJECTION = /^(?:那么|对了|所以|嗯|啊|哦|那|oh|so|and|well|hey)/u;
/**
 * A question that points back by a pronoun ("我舅舅叫吴晓东。他今年多大了？", "When did she go?") asks
 * about what the lead-in names.
 */
const POINTS_BACK = /[他她它]|\b(?:he|she|it|they|him|her|them|his|hers|its|their|theirs)\b/u;

/** The sentence without a speaker's label. */
export const withoutSpeaker = (sentence: string) => sentence.replace(LABEL, "");

/** `said`: the sentence as search reads it (normalized), without a speaker's label. */
function isTagQuestion(said: string): boolean {
  const bare = said.replace(/[\p{P}\p{S}\s]/gu, "");
  return TAG_QUESTIONS.has(bare) || TAG_QUESTIONS.has(bare.replace(INTERJECTION, ""));
}

/**
 * A dot or a line break ends a sentence when a capital or a CJK character starts the next (quotes aside),
 * and a dot not after an abbreviation: a single letter ("C. S. Lewis"), a dotted word ("U.S.", "Ph.D."),
 * a title or a month ("Dr. Seuss", "Jan. 5"). Other marks always end one; a "?" inside a link does not.
 */
function endsSentence(text: string, i: number): boolean {
  const c = text[i]!;
  const next = text[i + 1] ?? "";
  if (c === "?") return !INSIDE_A_LINK.test(next) || /[^\x00-\x7F]/u.test(next);
  if (c === "。" || c === "!" || c === ";") return true;
  if (c !== "." && c !== "\n") return false;
  if (c === "." && /[A-Za-z0-9]/.test(next)) return false; // inside "U.S", "Ph.D", "v1.2"
  const start = /^[\s.\n"'\p{Pi}\p{Ps}]*(.)/u.exec(text.slice(i + 1, i + 1 + LOOK))?.[1];
  if (start !== undefined && !SENTENCE_START.test(start)) return false;
  if (c === "\n" || /[^\x00-\x7F]/u.test(next)) return true;
  const word = /(\p{L}+(?:\.\p{L}+)*)$/u.exec(text.slice(Math.max(0, i - LOOK), i))?.[1]?.toLowerCase() ?? "";
  return !(word.length === 1 || word.includes(".") || ABBREVIATIONS.has(word));
}

/**
 * The final sentence when it is a question (it ends with ？ or ?), something comes before it, and it is
 * not a question about what came before; otherwise undefined. Read after NFKC, where ？ is ?; a
 * full-width ？ ends a sentence whatever follows it.
 */
export function questionFocus(text: string, asksSomething: (sentence: string) => boolean): string | undefined {
  const { normalized, start: last } = lastSentenceStart(text);
  if (!normalized.endsWith("?") || last === 0) return undefined;
  const start = followedQuestionStart(normalized, last, asksSomething);
  if (start === 0) return undefined;
  const focus = normalized.slice(start).replace(LEADING, "").trim();
  if (!focus || !normalized.slice(0, start - 1).trim()) return undefined;
  const said = normalizeSearchText(withoutSpeaker(focus));
  if (isTagQuestion(said) || POINTS_BACK.test(said)) return undefined;
  return focus;
}

/**
 * Where the question starts when its last sentence asks nothing of its own and follows on from a
 * question on the same line ("赵建平有孩子吗？有几个？", "Does Mel have kids? How many?"): the two ask
 * together. Otherwise `last`.
 */
function followedQuestionStart(normalized: string, last: number, asksSomething: (sentence: string) => boolean): number {
  const final = normalized.slice(last);
  if (asksSomething(withoutSpeaker(final.replace(LEADING, "").trim()))) return last;
  const before = normalized.slice(0, last).trimEnd();
  if (!before.endsWith("?") || normalized.slice(before.length, last).includes("\n")) return last;
  const { start } = lastSentenceStart(before);
  return /\n/.test(normalized.slice(start, last).trim()) ? last : start;
}

/**
 * The text after NFKC (a full-width ？ read as "? ", closing marks and emoji cut from its end), and
 * where its last sentence starts (0: it is one sentence).
 */
function lastSentenceStart(text: string): { normalized: string; start: number } {
  const normalized = withoutTrailing(text.replace(/[？﹖]/gu, "? ").normalize("NFKC"));
  let end = normalized.length;
  while (end > 0 && endsSentence(normalized, end - 1)) end--;
  for (let i = end - 1; i >= 0; i--) if (endsSentence(normalized, i)) return { normalized, start: i + 1 };
  return { normalized, start: 0 };
}

/** One line: no line break inside (a pasted dialogue has one per turn). */
export const isOneLine = (text: string) => !/[\n\r\u2028\u2029]/u.test(text.trim());

/**
 * The query's last sentence (read as questionFocus reads it, without a speaker's label), whether the
 * query ends with a question, and whether that sentence is all of it.
 */
export function lastSentence(text: string): { sentence: string; question: boolean; single: boolean } {
  const { normalized, start } = lastSentenceStart(text);
  const sentence = withoutSpeaker(normalized.slice(start).replace(LEADING, "").trim());
  return { sentence, question: normalized.endsWith("?"), single: !normalized.slice(0, start).trim() };
}
