import { fact, itemFrom, phrase, type Family } from "./common";

const DECIDED_EN =
  /\b(?:I|we)(?:'ve| have)? (?:decided|chose|chosen|agreed|settled) (?:to |on |that |upon )?(?!to be\b|(?:them|it|this|that|him|her|one)\b)(.{4,120})|\blet's go with (.{2,80})|\bwe(?:'ll| will) go with (.{2,80})/i;
const DECIDED_ZH =
  /(?:我|我们)?(?:决定了?|定下来了?|就定|选定了?|最后选了?|拍板)[：:，,]?\s*([\u4e00-\u9fffA-Za-z0-9]{2,40})/;
const CONSTRAINT_EN =
  /\b(?:I|we) (?:can't|cannot|can not|must not|mustn't|am not allowed to|'m not allowed to|must|have to|need to) (?!wait\b|stand\b|believe\b|imagine\b|thank\b|say\b|tell\b|stop thinking\b|help\b|forget\b)(.{4,100})/i;
const CONSTRAINT_ZH = /(?:必须|务必|一定要|不能|不可以|只能|不允许)([\u4e00-\u9fffA-Za-z0-9]{2,30})/;

/**
 * Decisions and constraints: what the user (or their team) decided, and the rules they must keep
 * to. A decision is one card per decision (its words name it); a constraint one per rule.
 */
export const decisions: Family = (s) => {
  const ops = [];
  const zh = /[\u4e00-\u9fff]/.test(s.text);
  const decided = s.text.match(zh ? DECIDED_ZH : DECIDED_EN);
  if (decided) {
    const what = phrase(decided[1] ?? decided[2] ?? decided[3] ?? "", 100);
    if (what.length > 1)
      ops.push(
        fact(s, "durable_decision", {
          title: zh ? `决定：${what}` : `Decided: ${what}`,
          value: what,
          tags: ["decision"],
          scopeHint: "workspace",
        }),
      );
  }
  // The cooking rules own "不能吃…" and the like.
  const constraint = s.food ? null : s.text.match(zh ? CONSTRAINT_ZH : CONSTRAINT_EN);
  if (constraint && !decided) {
    const what = phrase(constraint[1]!, 100);
    const item = itemFrom("constraint", what);
    const rule = phrase(constraint[0]!, 120);
    if (item && what.length > 2)
      ops.push(
        fact(s, "custom_fact", {
          itemKey: item,
          title: zh ? `约束：${rule}` : `Constraint: ${rule}`,
          value: rule,
          tags: ["constraint"],
        }),
      );
  }
  return ops;
};
