import { fact, type Family } from "./common";

const RELATIONS_EN =
  "wife|husband|partner|spouse|fianc[eé]e?|boyfriend|girlfriend|son|daughter|kids|children|child|baby|mom|mum|mother|dad|father|parents|brother|sister|siblings|grandma|grandmother|grandpa|grandfather|aunt|uncle|cousin|niece|nephew|best friend|friend|friends|roommate|neighbor|colleague|coworker|co-worker|boss|manager|mentor|teacher|dog|cat|puppy|kitten|pet|pets|horse|bird|rabbit|hamster|turtle";
// "my wife Anna", "my dog, Max,", "my two kids", "my best friend Sam"
const REL_EN = new RegExp(
  `\\b[Mm]y (?:(?:little|older|younger|big|new|old|two|three|four|late|dear|lovely|beloved)\\s+)*(${RELATIONS_EN})\\b(?:,?\\s+([A-Z][a-z]+)\\b)?`,
  "g",
);
const RELATIONS_ZH =
  "老婆|妻子|老公|丈夫|对象|男朋友|女朋友|儿子|女儿|孩子|宝宝|妈妈|母亲|爸爸|父亲|父母|哥哥|姐姐|弟弟|妹妹|爷爷|奶奶|外公|外婆|姥姥|姥爷|室友|邻居|同事|朋友|闺蜜|老板|领导|导师|老师|狗|猫|小狗|小猫|宠物";
const REL_ZH = new RegExp(
  `我(?:的|家)?(?:两个|三个|小|大)?(${RELATIONS_ZH})(?:叫|是|，|,)?([\\u4e00-\\u9fff]{2,3}(?=[，。！,.!\\s]|$))?`,
  "g",
);
// The same person said twice in one sentence is one card.
const NOT_NAMES = new Set([
  "And",
  "But",
  "So",
  "Is",
  "Was",
  "Has",
  "Had",
  "Are",
  "Were",
  "The",
  "Who",
  "Just",
  "Really",
  "Always",
  "Also",
  "Too",
  "Loves",
  "Likes",
]);

/** Relationships: family, partners, friends, colleagues and pets, with a name when one is given. */
export const relationships: Family = (s) => {
  const ops = [];
  const seen = new Set<string>();
  for (const m of [...s.text.matchAll(REL_EN), ...s.text.matchAll(REL_ZH)]) {
    const relation = m[1]!.toLowerCase();
    const name = m[2] && !NOT_NAMES.has(m[2]) ? m[2] : undefined;
    const item = name ?? relation;
    if (seen.has(item)) continue;
    seen.add(item);
    const zh = /[\u4e00-\u9fff]/.test(relation);
    ops.push(
      fact(s, "personal_relationship", {
        itemKey: item,
        title: zh
          ? `${relation}${name ? `：${name}` : ""}`
          : `${relation[0]!.toUpperCase()}${relation.slice(1)}${name ? `: ${name}` : ""}`,
        value: name ? { name, relation } : { relation },
        entities: name ? [name] : [],
        tags: ["relationship"],
      }),
    );
  }
  return ops;
};
