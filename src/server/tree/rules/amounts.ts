import type { ExtractedOperation } from "../extract-rules";
import { fact, type Family } from "./common";

const BUDGET_ZH =
  /预算\s*(?:是|为|大概|约|在|改成|改为|调到|调整为|提高到|降到)?\s*(\d+(?:\.\d+)?\s*(?:万|千|百)?\s*(?:元|块|美元)?)/;
const BUDGET_EN =
  /\bbudget (?:is|of|at|to)\s*([$€¥£]?\s?\d[\d,.]*\s?(?:k|m|thousand|million)?(?:\s?(?:dollars|euros|usd|eur|rmb|yuan))?)/i;
const DEADLINE_ZH =
  /(\d{1,2}\s*月\s*\d{1,2}\s*[日号]|\d{4}-\d{1,2}-\d{1,2}|下周[一二三四五六日天]|月底|周[一二三四五六日])\s*(?:之前|以前|前)\s*(?:要)?(?:完成|交付|上线|提交|做完)?/;
const DEADLINE_EN =
  /\b(?:deadline is|due(?: by| on)?|finish(?:ed)? by|deliver(?:ed)? by|by)\s+((?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2}(?:st|nd|rd|th)?|\d{4}-\d{2}-\d{2}|next (?:week|month|monday|tuesday|wednesday|thursday|friday)|end of (?:the )?(?:week|month))/i;
const BIRTHDAY_EN =
  /\bmy birthday is (?:on )?((?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2}(?:st|nd|rd|th)?|\d{1,2}(?:st|nd|rd|th)? (?:of )?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*)/i;
const BIRTHDAY_ZH = /我的生日是?(\d{1,2}\s*月\s*\d{1,2}\s*[日号]?)/;

const squash = (s: string) => s.replace(/\s+/g, "");

/**
 * Dates and amounts: a budget, a deadline, a birthday. The budget and deadline are the project's
 * (workspace, else the session); the whole message is their content, as it states the context.
 */
export function amountOperations(text: string, explicit: boolean, correction: boolean): ExtractedOperation[] {
  const ops: ExtractedOperation[] = [];
  const sentence = { text: text.trim().slice(0, 500), explicit, food: false, correction };
  const budget = text.match(BUDGET_ZH) ?? text.match(BUDGET_EN);
  if (budget) {
    const amount = squash(budget[1]!);
    ops.push(
      fact(sentence, "custom_fact", {
        itemKey: "budget",
        title: `预算 ${amount}`,
        value: amount,
        tags: ["budget"],
        entities: [amount],
        scopeHint: "workspace",
      }),
    );
  }
  const deadline = text.match(DEADLINE_ZH) ?? text.match(DEADLINE_EN);
  if (deadline) {
    const when = squash(deadline[1]!);
    ops.push(
      fact(sentence, "custom_fact", {
        itemKey: "deadline",
        title: `截止 ${when}`,
        value: when,
        tags: ["deadline"],
        entities: [when],
        scopeHint: "workspace",
      }),
    );
  }
  return ops;
}

/** A birthday, sentence by sentence. */
export const birthdays: Family = (s) => {
  const m = s.text.match(BIRTHDAY_EN) ?? s.text.match(BIRTHDAY_ZH);
  if (!m) return [];
  const when = m[1]!.trim();
  return [
    fact(s, "custom_fact", {
      itemKey: "birthday",
      title: /[\u4e00-\u9fff]/.test(s.text) ? `生日：${when}` : `Birthday: ${when}`,
      value: when,
      tags: ["date"],
    }),
  ];
};
