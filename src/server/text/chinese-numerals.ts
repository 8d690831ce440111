/**
 * Numbers written in Chinese numerals, as the digits a search also indexes: "花了一千三百块" is found by
 * "1300块买的", "三十三岁" by "33岁", "一九九四年" by "1994". People write both, often in one memory.
 * Read after normalizeSearchText (simplified Han, so 兩 is 两 and 萬 is 万).
 *
 * A run of two numerals or more is read (one alone is everywhere: 一个, 十分, 百货): with units
 * (十 百 千 万 亿) as a number, a colloquial last digit counting one unit down (五千六 is 5600, 一万二 is
 * 12000, 三百五 is 350); without units digit by digit from three on (一九九四, 二〇二四; 两三天 is a
 * range). A run that starts with a unit other than 十 (千万 "by all means", 万一 "in case"), or holds
 * two digits in a row beside units (三四十 "thirty or forty"), is no number. Idioms of digits alone
 * (三三两两) give a stray token no one searches for.
 */

const DIGIT: Readonly<Record<string, number>> = {
  零: 0,
  〇: 0,
  一: 1,
  二: 2,
  两: 2,
  三: 3,
  四: 4,
  五: 5,
  六: 6,
  七: 7,
  八: 8,
  九: 9,
};
const UNIT: Readonly<Record<string, number>> = { 十: 10, 百: 100, 千: 1000 };
/** Units that close a section: 一万二千 is (1)·10⁴ + 2000. */
const SECTION: Readonly<Record<string, number>> = { 万: 1e4, 亿: 1e8 };

const NUMERAL_RUN = /[零〇一二两三四五六七八九十百千万亿]{2,}/gu;
/** Digits alone, read one by one, from three on: 两三天, 七八个 are ranges, 一九九四 is a year. */
const MIN_DIGIT_RUN = 3;
/** Longer runs are not amounts anyone searches by (and stay within safe integers). */
const MAX_RUN = 20;

/** The value of one run of numerals, as digits, or undefined when it is no number. */
export function chineseNumeralValue(run: string): string | undefined {
  const chars = [...run];
  // 两 after a unit is the weight 两 (三百两 银子), never a last digit (twelve is 十二, not 十两).
  if (chars.length > 1 && chars[chars.length - 1] === "两" && !(chars[chars.length - 2]! in DIGIT)) chars.pop();
  if (chars.length < 2 || chars.length > MAX_RUN) return undefined;
  if (chars.every((c) => c in DIGIT)) {
    return chars.length >= MIN_DIGIT_RUN ? chars.map((c) => DIGIT[c]).join("") : undefined;
  }
  const first = chars[0]!;
  if (first !== "十" && !(first in DIGIT)) return undefined;
  let total = 0;
  let section = 0;
  let digit: number | undefined;
  let lastUnit = 0;
  let afterZero = false;
  for (const c of chars) {
    if (c in DIGIT) {
      if (digit !== undefined && digit !== 0) return undefined; // 三四十: a range, not a number
      digit = DIGIT[c]!;
      if (digit === 0) afterZero = true;
      continue;
    }
    const unit = UNIT[c];
    if (unit !== undefined) {
      // 十 opens with an implied one (十五, 一千零十); every other unit needs its digit (一百, not 百).
      const times = digit === 0 ? undefined : digit;
      if (times === undefined && unit !== 10) return undefined;
      if (lastUnit !== 0 && unit >= lastUnit) return undefined; // 十百, 百百: no number
      section += (times ?? 1) * unit;
      lastUnit = unit;
      digit = undefined;
      afterZero = false;
      continue;
    }
    const closing = SECTION[c]!;
    section += digit ?? 0;
    if (section === 0) return undefined;
    total += section * closing;
    section = 0;
    lastUnit = closing;
    digit = undefined;
    afterZero = false;
  }
  if (digit !== undefined && digit !== 0) {
    // A last digit right after a unit of a hundred or more counts one unit down (五千六 = 5600),
    // unless a zero stood before it (一千零六 = 1006).
    const colloquial = !afterZero && lastUnit >= 100;
    section += colloquial ? (digit * lastUnit) / 10 : digit;
  }
  const value = total + section;
  return value > 0 && Number.isSafeInteger(value) ? String(value) : undefined;
}

/** The digits of every number a (normalized) text writes in Chinese numerals, once each, in order. */
export function chineseNumeralValues(normalized: string): string[] {
  const out = new Set<string>();
  for (const [run] of normalized.matchAll(NUMERAL_RUN)) {
    const value = chineseNumeralValue(run);
    if (value !== undefined) out.add(value);
  }
  return [...out];
}
