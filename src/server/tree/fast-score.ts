import type { ScoreReason } from "~/db/schema";

/**
 * The fourteen fast-score rules of the hot path (docs/memory-tree.md; no LLM), in Chinese and English.
 * Each rule that matches adds its weight and records a reason; short texts are halved. Scores are
 * capped at 1.
 */
type Rule = { rule: string; delta: number; pattern: RegExp };

const RULES: Rule[] = [
  {
    rule: "explicit_remember",
    delta: 0.25,
    pattern:
      /记住|记下|记一下|帮我记|保存|别忘|不要忘|\bremember\b|\bmemori[sz]e\b|\bsave this\b|\bnote (?:that|this)\b|\bdon'?t forget\b|\bkeep in mind\b/i,
  },
  {
    rule: "preference",
    delta: 0.25,
    pattern:
      /喜欢|讨厌|偏好|不爱|爱吃|不吃|忌口|口味|\bprefer(?:s|red|ence)?\b|\b(?:i|we) (?:really )?(?:like|love|hate|dislike|enjoy)\b|\bfavou?rite\b|\bdon'?t (?:eat|like)\b|\bcan'?t stand\b/i,
  },
  {
    rule: "money",
    delta: 0.2,
    pattern:
      /\d+(?:\.\d+)?\s*(?:万|千|百|亿)?\s*(?:元|块|美元|美金|欧元|英镑|人民币|rmb|usd|eur|gbp)|\d+(?:\.\d+)?\s*(?:万|亿)|[$€¥£]\s?\d|\b\d+(?:\.\d+)?\s?(?:k|m|bn)?\s?(?:dollars|euros|pounds|yuan)\b/i,
  },
  {
    rule: "importance",
    delta: 0.2,
    pattern:
      /重要|必须|务必|一定要|关键|千万|\bimportant\b|\bmust\b|\bcritical\b|\bcrucial\b|\bessential\b|\bmandatory\b/i,
  },
  {
    rule: "need",
    delta: 0.15,
    pattern:
      /需要|想要|希望|要求|打算|\bneed(?:s|ed)?\b|\bwant(?:s|ed)?\b|\bwould like\b|\brequire[sd]?\b|\bplan(?:ning)? to\b/i,
  },
  {
    rule: "error",
    delta: 0.15,
    pattern:
      /bug|报错|错误|异常|失败|崩溃|故障|\berror\b|\bexception\b|\bcrash(?:ed|es)?\b|\bfail(?:s|ed|ure)?\b|\bbroken\b|\btraceback\b/i,
  },
  { rule: "version", delta: 0.1, pattern: /\bv?\d+\.\d+\.\d+\b|版本|\bversion\b|\brelease\b/i },
  { rule: "project", delta: 0.1, pattern: /项目|工程|仓库|\bproject\b|\brepo(?:sitory)?\b|github\.com\//i },
  {
    rule: "config",
    delta: 0.1,
    pattern: /配置|设置|参数|环境变量|\bconfig(?:uration)?\b|\bsettings?\b|\benv\b|\.ya?ml\b|\.json\b|\.toml\b/i,
  },
  { rule: "first_mention", delta: 0.1, pattern: /第一次|首次|头一回|\bfirst time\b|\bfor the first\b/i },
  {
    rule: "success",
    delta: 0.1,
    pattern:
      /完成|成功|搞定|解决了|通过了|上线|\bdone\b|\bcompleted?\b|\bsucceed(?:ed|s)?\b|\bsuccess(?:ful)?\b|\bfixed\b|\bresolved\b|\bshipped\b/i,
  },
  {
    rule: "credentials",
    delta: 0.05,
    pattern: /密码|密钥|令牌|凭证|\bapi[ _-]?key\b|\btoken\b|\bpassword\b|\bcredentials?\b|\bsecret\b/i,
  },
  {
    rule: "time",
    delta: 0.05,
    pattern:
      /\d{4}-\d{1,2}-\d{1,2}|\d{1,2}\s*月\s*\d{1,2}\s*[日号]|\d{1,2}:\d{2}|今天|明天|后天|昨天|下周|本周|月底|截止|\bdeadline\b|\btomorrow\b|\byesterday\b|\bnext (?:week|month)\b|\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2}\b/i,
  },
];

/** Below this many characters (CJK count one each) a text is halved: "ok" and "好的" say little. */
export const SHORT_TEXT_CHARS = 20;
const SHORT_TEXT_FACTOR = 0.5;

export type FastScore = { score: number; reasons: ScoreReason[] };

export function fastScore(text: string, options: { firstMention?: boolean } = {}): FastScore {
  const reasons: ScoreReason[] = [];
  let score = 0;
  for (const { rule, delta, pattern } of RULES) {
    const matched = rule === "first_mention" ? options.firstMention || pattern.test(text) : pattern.test(text);
    if (!matched) continue;
    score += delta;
    const detail = rule === "first_mention" && options.firstMention ? "new entity" : text.match(pattern)?.[0];
    reasons.push({ rule, delta, ...(detail ? { detail } : {}) });
  }
  const length = [...text.replace(/\s+/g, "")].length;
  if (length < SHORT_TEXT_CHARS) {
    reasons.push({ rule: "short_text", delta: -score * (1 - SHORT_TEXT_FACTOR), detail: `${length} chars` });
    score *= SHORT_TEXT_FACTOR;
  }
  return { score: Math.min(1, Math.round(score * 1000) / 1000), reasons };
}
