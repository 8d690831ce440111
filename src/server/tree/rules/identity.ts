import { captures, fact, type Family } from "./common";

// "My name is Ada Lovelace", "I'm Ada." (a capitalised name closing the clause), "call me Ada".
const NAME_EN = [
  /\b[Mm]y name is ([A-Z][a-z]+(?: [A-Z][a-z]+)?)\b/,
  /\b(?:I'm|I am) ([A-Z][a-z]{2,})(?=\s*[,.!]|\s*$)/,
  /\bcall me ([A-Z][a-z]{2,})\b/,
];
const NAME_ZH = [
  /我叫([\u4e00-\u9fff]{2,4}?)(?=[，。！,.!\s]|$)/,
  /我的名字(?:是|叫)([\u4e00-\u9fff]{2,4}?)(?=[，。！,.!\s]|$)/,
];
// What someone is: identity, beliefs, family status, age.
const WHO_EN =
  /\b(?:I'm|I am|I identify as)(?: a| an| now)? (trans(?:gender)? (?:woman|man|person)|transgender|gay|lesbian|bisexual|queer|non-?binary|christian|muslim|jewish|buddhist|hindu|atheist|vegan|vegetarian|single|married|divorced|engaged|widowed|retired|pregnant|an? (?:only child|introvert|extrovert)|\d{1,3} years old)\b/i;
const AGE_ZH = /我(?:今年)?(\d{1,3})岁/;
const WHO_ZH = /我是(素食者|独生子女|基督徒|佛教徒|穆斯林|单身|已婚|离异|退休人员|内向的人|外向的人)/;

/** Identity: the user's name, age and who they are (beliefs, family status). */
export const identity: Family = (s) => {
  const ops = [];
  for (const m of captures(s.text, [...NAME_EN, ...NAME_ZH])) {
    const name = m[1]!.trim();
    if (/^(?:Not|Sure|Fine|Good|Okay|Sorry|Glad|Here|Back|Home|Done|Ready|Happy|Sad|Tired)$/.test(name)) continue;
    ops.push(
      fact(s, "profile_name", {
        title: s.text.match(/[\u4e00-\u9fff]/) ? `名字：${name}` : `Name: ${name}`,
        value: name,
        entities: [name],
        tags: ["identity"],
      }),
    );
    break;
  }
  const who = s.text.match(WHO_EN) ?? s.text.match(WHO_ZH);
  if (who) {
    const what = who[1]!.toLowerCase();
    ops.push(
      fact(s, "custom_fact", {
        itemKey: "identity",
        title: /[\u4e00-\u9fff]/.test(what) ? `身份：${what}` : `Identity: ${what}`,
        value: what,
        tags: ["identity"],
      }),
    );
  }
  const age = s.text.match(AGE_ZH);
  if (age)
    ops.push(
      fact(s, "custom_fact", { itemKey: "age", title: `年龄：${age[1]}岁`, value: Number(age[1]), tags: ["identity"] }),
    );
  return ops;
};
