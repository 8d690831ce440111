/**
 * The kind of value a question asks for, and whether a text holds a value of that kind: "When did
 * Mel paint the sunrise?" wants a time, and "I painted that lake sunrise last year!" holds one while
 * "The sunrise painting is my favourite" does not. The question words that say so (when, 什么时候,
 * 多大) are left out of the query's terms (they match other people's questions in chit-chat), so a
 * term index cannot see the difference; the second stage (second-stage.ts) can. Only three kinds
 * whose values have a recognisable surface in any text: a time or date, an age, a number. Both sides
 * are read after normalizeSearchText (NFKC, lower case, simplified Han).
 */

export type AnswerType = "time" | "age" | "number";

/**
 * Questions asking when: Chinese interrogatives; English "when" opening the question or before its verb
 * ("When did…", "…and when is…": "What did she say when she left?" asks a thing), "what/which date,
 * day, year …".
 */
const ASKS_TIME =
  /什么时候|啥时候|哪天|哪一天|哪日|几号|几月|哪年|哪一年|哪个月|哪一个月|何时|几点|什么日子|^(?:(?:and|so|but|then|ok|okay|hey|oh|well)[,\s]+)?when\b|\bwhen\s+(?:did|does|do|is|was|were|will|would|are|am|has|have|had|can|could|should|shall)\b|\b(?:what|which)\s+(?:date|day|year|month|time|season|week|weekend)\b|\bhow\s+long\s+ago\b/u;
/** Questions asking how old. */
const ASKS_AGE = /多大了|多大年纪|多大岁数|今年多大|几岁|多少岁|年龄|年纪|岁数|\bhow\s+old\b|\bwhat\s+age\b/u;
/** Questions asking how many or how much (a count, an amount, a length, a price). */
const ASKS_NUMBER =
  /多少|几[个次位名本只辆套件条张家口天年月周遍回场种门双块元层台间部首]|几小时|几分钟|几公里|几岁|多久|多长|多高|多重|多远|多大|\bhow\s+(?:many|much|long|far|tall|often|big|heavy|old)\b|\bnumber\s+of\b/u;

const CN_NUMERAL = "[零〇一二两三四五六七八九十百千万半几]";
const MONTHS = "january|february|march|april|june|july|august|september|october|november|december";
const WEEKDAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday";

/** A time or date: calendar dates, weekdays, days and periods relative to now, parts of a day, holidays. */
const HOLDS_TIME = new RegExp(
  [
    `\\d+\\s*[年月日号]`,
    `${CN_NUMERAL}+[月日号]`,
    `(?:星期|礼拜|周)[一二三四五六日天末]`,
    `[昨前今明后]天|[去前今明]年|[上下这本][个]?(?:周|星期|礼拜|月)|[上下]半年|那天|当天`,
    `早上|上午|中午|下午|傍晚|晚上|凌晨|夜里|半夜`,
    `春节|元旦|国庆|中秋|端午|清明|除夕|元宵|七夕|圣诞|寒假|暑假|假期|周末|生日那天`,
    `\\b(?:${MONTHS})\\b|\\bmay\\s+\\d|\\d\\s+may\\b|\\b(?:${WEEKDAYS})s?\\b`,
    `\\b(?:yesterday|today|tonight|tomorrow|weekend|ago)\\b`,
    `\\b(?:last|next|this|past|previous|coming)\\s+(?:week|month|year|weekend|night|morning|evening|afternoon|summer|winter|spring|fall|autumn|semester|time)\\b`,
    `\\b(?:19|20)\\d\\d\\b|\\b\\d{1,2}(?:st|nd|rd|th)\\b|\\b\\d{1,2}[/.-]\\d{1,2}(?:[/.-]\\d{2,4})?\\b`,
    `\\b(?:christmas|thanksgiving|easter|halloween|new\\s+year)\\b`,
  ].join("|"),
  "u",
);
/** An age: "三十岁", "30 years old", "aged 30", "in her forties". */
const HOLDS_AGE = new RegExp(
  [
    `\\d+\\s*(?:周)?岁|${CN_NUMERAL}+(?:周)?岁`,
    `\\b\\d+[\\s-]*(?:years?|yrs?)[\\s-]*old\\b|\\baged?\\s+\\d+\\b|\\b\\d+(?:st|nd|rd|th)\\s+birthday\\b`,
    `\\b(?:teens|twenties|thirties|forties|fifties|sixties|seventies|eighties|nineties)\\b`,
  ].join("|"),
  "u",
);
/** A number: digits, a Chinese numeral before a measure word, an English number word. */
const HOLDS_NUMBER = new RegExp(
  [
    `\\d`,
    `${CN_NUMERAL}+(?:[个次位名本只辆套件条张家口天年岁月周遍回场种门双块元层台间部首倍斤米里]|小时|分钟|公里|公斤)`,
    `\\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|dozen|twice|couple)\\b`,
  ].join("|"),
  "u",
);

/**
 * The kind of value the question asks for, read from the query's last sentence, when the query is one
 * sentence or ends with a question (a pasted dialogue's last line is not necessarily what is asked).
 * `sentence`: that last sentence, `question`: whether the query ends with "?".
 */
export function askedAnswerType(sentence: string, question: boolean, single: boolean): AnswerType | undefined {
  if (!question && !single) return undefined;
  // Age before number ("多大" and "how old" ask both), time before number ("how long ago").
  if (ASKS_AGE.test(sentence)) return "age";
  if (ASKS_TIME.test(sentence)) return "time";
  if (ASKS_NUMBER.test(sentence)) return "number";
  return undefined;
}

/** Whether a (normalized) text holds a value of the kind asked for. */
export function holdsAnswerType(type: AnswerType, normalizedText: string): boolean {
  switch (type) {
    case "time":
      return HOLDS_TIME.test(normalizedText);
    case "age":
      return HOLDS_AGE.test(normalizedText);
    case "number":
      return HOLDS_NUMBER.test(normalizedText);
  }
}
