/**
 * The question a query ends with, when something comes before it. In "哎，今天有点累。早上去超市买了好多东西。
 * 孔静喜欢吃什么？" the question is about 孔静; the chit-chat before it is a lead-in whose words match
 * chit-chat in the memory (docs/retrieval.md, "The question's focus").
 */
const SENTENCE_ENDS = new Set(["。", "！", "？", "!", "?", "；", ";", "\n"]);

const endsSentence = (text: string, i: number) =>
  SENTENCE_ENDS.has(text[i]!) || (text[i] === "." && /\s/.test(text[i + 1] ?? ""));

/** The final sentence when it is a question and another sentence comes before it; otherwise undefined. */
export function questionFocus(text: string): string | undefined {
  const trimmed = text.trim();
  if (!/[？?]$/u.test(trimmed)) return undefined;
  let end = trimmed.length;
  while (end > 0 && endsSentence(trimmed, end - 1)) end--;
  for (let i = end - 1; i >= 0; i--) {
    if (!endsSentence(trimmed, i)) continue;
    const focus = trimmed.slice(i + 1).trim();
    return focus.length > 0 && trimmed.slice(0, i).trim().length > 0 ? focus : undefined;
  }
  return undefined;
}
