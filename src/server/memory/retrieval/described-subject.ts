import { normalizeSearchText } from "~/server/text/segment";
import type { AnswerType } from "./answer-type";
import { lastSentence } from "./question-focus";

/**
 * A clause before 那 and a measure word ("有六百位客人的那次活动"), or 那个 / 那位 before a clause
 * ("我那个养猫的同事"): a Chinese question describing its subject rather than naming it. "那次婚礼" alone
 * refers to a thing by its name; "我结婚的那天" describes a time, which the describing line itself holds
 * (天 and 年 are no measure words here). A question describing its subject is hopped from even when it
 * holds rare words (the description's: evidence.ts, feature `namedNoHop`), and lifts no answer type
 * (feature `describedNoType`): the line that describes the subject holds no value of the kind asked for,
 * and lifting every line that holds one lifts other people's. Unless the question asks which event the
 * occasion it describes was: the describing line names it.
 */
const DESCRIPTION =
  /的那(?:个|位|次|场|家|件|台|只|条|辆|本|部|所|座|间|套|双|把|回|趟)|那(?:个|位)[^，。？！,.?!]{1,12}的/u;

/** A described occasion: 的那次, 的那场 ("张怡玲也去了的那次活动"). */
const DESCRIBED_OCCASION = /的那(?:次|场|回|趟)/u;

/** Whether a question (a query's last sentence, lastSentence) describes its subject (DESCRIPTION). */
export const describesSubject = (question: string) => DESCRIPTION.test(normalizeSearchText(question));

/**
 * Whether a question describing an occasion asks which event it was ("张怡玲也去了的那次活动叫什么？"): the
 * line describing it names it, so the answer type still lifts (evidence.ts).
 */
export const asksTheDescribedEvent = (question: string, asked: AnswerType | undefined) =>
  asked === "event" && DESCRIBED_OCCASION.test(normalizeSearchText(question));

/** Whether the question a query ends with describes its subject. */
export const describesItsSubject = (queryText: string) => describesSubject(lastSentence(queryText).sentence);
