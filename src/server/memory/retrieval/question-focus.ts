/**
 * The question a query ends with, when something comes before it. In "哎，今天有点累。早上去超市买了好多东西。
 * 孔静喜欢吃什么？" the question is about 孔静; the chit-chat before it is a lead-in whose words match
 * chit-chat in the memory (docs/retrieval.md, "The question a query ends with").
 */
const SENTENCE_ENDS = new Set(["。", "!", ";", "\n"]);
/** What may follow a question's mark and still end the query: closing quotes and brackets, "?!", spaces, symbols (emoji). */
const TRAILING = /[\s"'”’」』)\]】》!\p{So}\p{Sk}\uFE0F]+$/u;
/** Quotes and brackets around the question. */
const LEADING = /^[\s"'\p{Pi}\p{Pf}\p{Ps}\p{Pe}]+/u;
/** A "?" inside a link or a parameter ("…/a?b=1") ends nothing. */
const INSIDE_A_LINK = /[\p{L}\p{N}=&%_/-]/u;
/** Words a dot follows without ending a sentence (besides single letters and dotted initialisms such as "U.S"). */
const ABBREVIATIONS = new Set([
  "dr",
  "mr",
  "mrs",
  "ms",
  "st",
  "jr",
  "sr",
  "prof",
  "vs",
  "etc",
  "no",
  "mt",
  "fig",
  "e.g",
  "i.e",
]);

/**
 * Questions that ask about what was just said ("你还记得吗？", "对吧？", "What do you think?"): after
 * them the lead-in is the question. Written without punctuation or spaces, lower case.
 */
const TAG_QUESTIONS = new Set([
  ..."你还记得吗 还记得吗 记得吗 你记得吗 对吧 是吧 对不对 是不是 对吗 是吗 不是吗 真的吗 好吗 好不好 行吗 行不行 可以吗 你觉得呢 你觉得怎么样 你觉得如何 怎么样 如何 你说呢 你看呢 你知道吗 知道吗 懂吗 你懂吗 明白吗 你呢 没错吧".split(
    " ",
  ),
  ..."right isntit isntthatright doyouremember remember rememberthat whatdoyouthink dontyouthink doyouagree youknow doyouknow ok okay really andyou howaboutyou whataboutyou".split(
    " ",
  ),
]);
/** A speaker's label ("Bart:") and an opening interjection do not change what a short question asks. */
const LABEL = /^[^:\n]{1,24}:/u;
const INTERJECTION = /^(?:嗯|啊|哦|那|那么|对了|所以|oh|so|and|well|hey)/u;

function isTagQuestion(sentence: string): boolean {
  const bare = sentence
    .toLowerCase()
    .replace(LABEL, "")
    .replace(/[\p{P}\p{S}\s]/gu, "");
  return TAG_QUESTIONS.has(bare) || TAG_QUESTIONS.has(bare.replace(INTERJECTION, ""));
}

/**
 * A dot ends a sentence before a space, a CJK character (NFKC reads ． as .) or another dot (… reads as
 * ...), unless it ends an abbreviation: a single letter ("C. S. Lewis"), a dotted initialism ("U.S."), a title.
 */
function endsSentence(text: string, i: number): boolean {
  const c = text[i]!;
  const next = text[i + 1] ?? "";
  if (c === "?") return !INSIDE_A_LINK.test(next) || /[^\x00-\x7F]/u.test(next);
  if (SENTENCE_ENDS.has(c)) return true;
  if (c !== "." || !/[\s.]|[^\x00-\x7F]/u.test(next)) return false;
  const word = /(\p{L}+(?:\.\p{L}+)*)$/u.exec(text.slice(0, i))?.[1]?.toLowerCase() ?? "";
  return !(word.length === 1 || /^\p{L}(?:\.\p{L})+$/u.test(word) || ABBREVIATIONS.has(word));
}

/**
 * The final sentence when it is a question (it ends with ？ or ?), something comes before it, and it is
 * not a question about what came before; otherwise undefined. Read after NFKC, where ？ is ?.
 */
export function questionFocus(text: string): string | undefined {
  const normalized = text.normalize("NFKC").replace(TRAILING, "");
  if (!normalized.endsWith("?")) return undefined;
  let end = normalized.length;
  while (end > 0 && endsSentence(normalized, end - 1)) end--;
  for (let i = end - 1; i >= 0; i--) {
    if (!endsSentence(normalized, i)) continue;
    const focus = normalized
      .slice(i + 1)
      .replace(LEADING, "")
      .trim();
    if (!focus || !normalized.slice(0, i).trim() || isTagQuestion(focus)) return undefined;
    return focus;
  }
  return undefined;
}
