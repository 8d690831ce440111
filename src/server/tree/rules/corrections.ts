/**
 * Corrections: "actually …", "I meant …", "not A but B", "不是A，而是B", "其实…", "更正：…". A corrected
 * sentence is read as what it now says (B in place of A), and what it yields replaces the card of
 * the same slot (memoryWrite supersedes a slot's card on a new value); the write's reason says it
 * was a correction.
 */
export type Resolved = { text: string; correction: boolean };

const CUE_EN =
  /^(?:actually|correction|sorry|oops|wait|no)\b[,:]?\s*|\b(?:I meant|what I meant (?:was|is)|to correct myself)\b[,:]?\s*/i;
const NOT_BUT_EN = /\bnot ([\w$€£¥.,' -]{1,40}?),? but (?:rather )?([\w$€£¥.' -]{1,40})/i;
const NOT_BUT_ZH = /不是([\u4e00-\u9fffA-Za-z0-9.]{1,20}?)[，,]?\s*(?:而)?是([\u4e00-\u9fffA-Za-z0-9.]{1,20})/;
const CUE_ZH = /^(?:其实|更正[：:]?|纠正一下[，,：:]?|说错了[，,]?|不对[，,]?)\s*/;

export function resolveCorrection(sentence: string): Resolved {
  let text = sentence;
  let correction = false;
  const zhNotBut = text.match(NOT_BUT_ZH);
  if (zhNotBut) {
    text = text.replace(zhNotBut[0], zhNotBut[2]!);
    correction = true;
  }
  const enNotBut = text.match(NOT_BUT_EN);
  if (enNotBut) {
    text = text.replace(enNotBut[0], enNotBut[2]!);
    correction = true;
  }
  if (CUE_EN.test(text) || CUE_ZH.test(text)) {
    text = text.replace(CUE_EN, "").replace(CUE_ZH, "");
    correction = true;
  }
  return { text: text.trim(), correction };
}
