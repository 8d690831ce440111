import { englishStem } from "~/server/text/english-stem";
import type { QueryTerm } from "./query-terms";

/**
 * A bridge between Chinese and English for the words people use about themselves, so that "我女儿喜欢
 * 什么" finds the card "Daughter Mia loves dinosaurs" and "what does my daughter like" finds "女儿小米
 * 喜欢恐龙": users of one memory mix both languages, and full text matches words, not meanings (a
 * multilingual embedding model does this in general; `EMBEDDING_PROVIDER=openai`). Small on purpose:
 * family, pets, health, food, pastimes, plans. Words common in any text (work, project, live, home,
 * name, like) are left out: each added term is read across the caller's cards, and on the bilingual
 * load benchmark "project" and "live" alone added ~12 % to a search's CPU. Each pair: Chinese words,
 * English words; a word under four letters lists its plural too (it is matched whole, not by stem:
 * 狗 found no card about "two dogs").
 */
const PAIRS: readonly (readonly [readonly string[], readonly string[]])[] = [
  [["女儿"], ["daughter"]],
  [["儿子"], ["son", "sons"]],
  [
    ["孩子", "小孩", "儿女"],
    ["child", "children", "kid", "kids"],
  ],
  [["妻子", "老婆", "太太"], ["wife"]],
  [["丈夫", "老公", "先生"], ["husband"]],
  [
    ["妈妈", "母亲"],
    ["mother", "mom", "mum"],
  ],
  [
    ["爸爸", "父亲"],
    ["father", "dad"],
  ],
  [["父母"], ["parents"]],
  [["哥哥", "弟弟", "兄弟"], ["brother"]],
  [["姐姐", "妹妹", "姐妹"], ["sister"]],
  [
    ["爷爷", "外公"],
    ["grandfather", "grandpa"],
  ],
  [
    ["奶奶", "外婆"],
    ["grandmother", "grandma"],
  ],
  [["朋友"], ["friend", "friends"]],
  [["同事"], ["colleague", "coworker"]],
  [
    ["老板", "上司"],
    ["boss", "manager"],
  ],
  [
    ["男朋友", "女朋友"],
    ["boyfriend", "girlfriend", "partner"],
  ],
  [["宠物"], ["pet"]],
  [
    ["狗", "小狗"],
    ["dog", "dogs", "puppy"],
  ],
  [
    ["猫", "小猫"],
    ["cat", "cats", "kitten"],
  ],
  [["生日"], ["birthday"]],
  [["城市"], ["city"]],
  [["职业"], ["occupation", "profession", "job"]],
  [["学校"], ["school"]],
  [["大学"], ["university", "college"]],
  [["过敏"], ["allergy", "allergic"]],
  [
    ["素食", "吃素"],
    ["vegetarian", "vegan"],
  ],
  [["辣"], ["spicy"]],
  [["花生"], ["peanut", "peanuts"]],
  [["香菜"], ["cilantro", "coriander"]],
  [["海鲜"], ["seafood"]],
  [["牛奶"], ["milk"]],
  [["鸡蛋"], ["egg", "eggs"]],
  [["咖啡"], ["coffee"]],
  [["茶"], ["tea"]],
  [["喜欢"], ["love", "loves"]],
  [["讨厌"], ["hate", "dislike"]],
  [
    ["爱好", "兴趣"],
    ["hobby", "hobbies"],
  ],
  [["运动"], ["sport", "sports", "exercise"]],
  [["游泳"], ["swimming", "swim"]],
  [["音乐"], ["music"]],
  [["电影"], ["movie", "movies", "film"]],
  [
    ["旅行", "旅游"],
    ["travel", "trip"],
  ],
  [["周末"], ["weekend"]],
  [
    ["假期", "度假"],
    ["vacation", "holiday"],
  ],
  [["恐龙"], ["dinosaur", "dinosaurs"]],
  [["预算"], ["budget"]],
  [["截止", "期限"], ["deadline"]],
  [["时区"], ["timezone"]],
];

/** A translated word means what the typed one does: it counts as much. */
const CROSS_LANGUAGE_WEIGHT = 1;

/** The stem an English word is indexed and queried by (query-terms.ts: 4+ letters → stem prefix). */
const englishTerm = (word: string): QueryTerm => {
  const stem = englishStem(word);
  return stem.length >= 4
    ? { term: stem, prefix: true, weight: CROSS_LANGUAGE_WEIGHT }
    : { term: word, prefix: false, weight: CROSS_LANGUAGE_WEIGHT };
};

const byChinese = new Map<string, QueryTerm[]>();
const byEnglish = new Map<string, QueryTerm[]>();
for (const [zh, en] of PAIRS) {
  const english = en.map(englishTerm);
  const chinese = zh.map((word): QueryTerm => ({ term: word, prefix: false, weight: CROSS_LANGUAGE_WEIGHT }));
  for (const word of zh) byChinese.set(word, [...(byChinese.get(word) ?? []), ...english]);
  for (const term of english) byEnglish.set(term.term, [...(byEnglish.get(term.term) ?? []), ...chinese]);
}

/** The other language's words for the query's terms, none of which the query already has. */
export function crossLanguageTerms(terms: readonly QueryTerm[]): QueryTerm[] {
  const have = new Set(terms.map((t) => t.term));
  const added = new Map<string, QueryTerm>();
  for (const term of terms) {
    if (term.weight < 1) continue; // single CJK characters (weighted lower) are not words of their own
    for (const other of byChinese.get(term.term) ?? byEnglish.get(term.term) ?? []) {
      if (!have.has(other.term) && !added.has(other.term)) added.set(other.term, other);
    }
  }
  return [...added.values()];
}
