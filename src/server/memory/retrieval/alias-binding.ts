import { surnameAt } from "~/server/text/chinese-names";
import { normalizeSearchText } from "~/server/text/segment";

/**
 * Alias binding: a log names a person once and then speaks of them by their relation alone, or the
 * other way round. "我的牙医全名是周强" ties 牙医 to 周强; "哦对，我的牙医九月二十七号过生日" then answers
 * "周强哪天生日？" without naming him, and "我堂姐养了什么宠物？" is answered by "李怡霞家里有只仓鼠" once
 * "我堂姐叫李怡霞" was said. Where a relation is bound to one name only in the scope, each stands for the
 * other in the question (evidence.ts adds the other as a term, as a kin term stands for its group word).
 * A relation bound to several names ("我有个同事叫…", "…是我同事" for ten people) ties nothing.
 *
 * Chinese only: the forms read are "我(的)R(的)(全名|名字|大名)(是|叫)N", "我(有个)R叫N" and "N(其实)是我(的)R", one
 * clause each; after 叫 or 是, N must read as a person's name (readsAsName). Pure: the caller reads the rows
 * (bound-alias.ts).
 */

export type Binding = { relation: string; name: string };

/** A clause: the text between punctuation (normalizeSearchText turns full-width marks into ASCII ones). */
const CLAUSE = /[^,.!?;:，。！？；：、…~～()（）"“”'‘’\s]+/gu;
/** "我的牙医全名是周强", "我发小的名字是侯俊杰", "我姨妈大名郑丽": a relation, then a word for the name. */
const NAMED =
  /^[^我]{0,6}我(?:的)?(?:有(?:一)?(?:个|位))?(?<relation>\p{Script=Han}{1,8}?)的?(?:全名|名字|大名|真名|本名)(?:是|叫做|叫)?(?<name>\p{Script=Han}{2,4})$/u;
/** "我大伯叫徐晨斌", "我有个朋友叫张飞". */
const CALLED =
  /^[^我]{0,6}我(?:的)?(?:有(?:一)?(?:个|位))?(?<relation>\p{Script=Han}{1,8}?)(?:叫做|叫)(?<name>\p{Script=Han}{2,4})$/u;
/**
 * "孙斌磊是我同事", "李平其实是我堂哥". A relation with 的 in it is a thing of theirs ("盐城是我堂姐的老家"); and
 * the name must read as a person's (a surname, or 老/小/阿 and one): "北京是我老家", "周末是我休息日" bind nothing.
 */
const IS_MY = /^(?<name>\p{Script=Han}{2,4}?)(?:其实|就|也|正)?是我(?:的)?(?<relation>[^的\P{Script=Han}]{1,6})$/u;
/** A name is no pronoun, question word or time word, and ends with no particle or adverb. */
const NOT_A_NAME =
  /^(?:他|她|它|你|我|这|那|谁|哪|啥|今|明|昨|每|大家|自己|其实)|什么|多少|几|(?:[的了呢吧啊呀吗嘛啦哦哈也都才就还曾]|来着|曾经|已经|现在|以前|之前|原来|一直)$/u;
/**
 * A relation asks nothing and lists nothing ("我大学同学里有个叫张娟的"); "我的名字是李明" has none (的 is no
 * relation). One of a single character is a close relative's (SINGLE_KIN) only.
 */
const NOT_A_RELATION = /什么|哪|谁|啥|几|有个|有位|里有|^[的们]|[吗吧呢了啦哦嘛哈]$/u;
/** The relations of one character: a parent, a sibling, a grandparent ("我妈叫刘梅", "我哥叫张伟"). */
const SINGLE_KIN = /^[妈爸哥姐弟妹爷奶]$/u;
/** What makes a one-character relation another word in a question: 我姐夫, 我嫂, 我哥们. */
const LONGER_KIN = /^[夫嫂们]/u;
/** A denial binds nothing: "张三不是我同事". */
const DENIAL = /不是|不叫|没/u;
const PERSON_PREFIX = /^[老小阿]/u;
/** Words that start with a surname's character and name no one ("我小姨周末…", "我叔叔全名…"). */
const NO_NAME_AFTER =
  /^(?:全名|全家|全都|周[末一二三四五六日天]|明[天年早晚明白]|高[兴中考]|马上|常常|常去|时候|时不时|小时|曾经|毕业|向来|应该|安排|单位|和|跟)/u;
const HAN_START = /^\p{Script=Han}/u;

/**
 * Whether a word reads as a person's name: two or three characters (four with a compound surname), a
 * surname first, or 老/小/阿 first ("老王", "小美", "阿强"). "我同事叫外卖" and "我同事叫车去机场" name no one.
 */
function readsAsName(word: string): boolean {
  const length = [...word].length;
  const surname = surnameAt(word);
  if (length === 4) return surname !== undefined && surname.length === 2;
  return length <= 3 && (surname !== undefined || PERSON_PREFIX.test(word));
}

/** The bindings a text states, in order. */
export function bindingsIn(text: string): Binding[] {
  const found: Binding[] = [];
  for (const [clause] of normalizeSearchText(text.slice(0, BINDING_CHARS)).matchAll(CLAUSE)) {
    if (DENIAL.test(clause)) continue;
    const byName = NAMED.exec(clause);
    const m = byName ?? CALLED.exec(clause) ?? IS_MY.exec(clause);
    const relation = m?.groups?.relation;
    const name = m?.groups?.name;
    if (!relation || !name || NOT_A_NAME.test(name) || NOT_A_RELATION.test(relation)) continue;
    if ([...relation].length < 2 && !SINGLE_KIN.test(relation)) continue;
    // A 名字 or 全名 form says N is a name; 叫 and 是 do not.
    if (NO_NAME_AFTER.test(name) || (!byName && !readsAsName(name))) continue;
    if (relation.includes(name) || name.includes(relation)) continue;
    found.push({ relation, name });
  }
  return found;
}

/** Characters of a text read for bindings: one is stated in a line, and a long message's tail is other matters. */
export const BINDING_CHARS = 2000;

/** What the question holds of a binding: the name, or the relation as the asker's ("我堂姐", "我的牙医"). */
function heldBy(question: string, binding: Binding): "name" | "relation" | undefined {
  const name = question.includes(binding.name);
  const relation = [`我${binding.relation}`, `我的${binding.relation}`].some((mine) => {
    const at = question.indexOf(mine);
    return at >= 0 && !(binding.relation.length === 1 && LONGER_KIN.test(question.slice(at + mine.length)));
  });
  if (name === relation) return undefined;
  return name ? "name" : "relation";
}

/** A relation the question holds, or that a name it holds is bound to, with the alias it stands for. */
export type AliasCandidate = Binding & { held: "name" | "relation"; alias: string };

/**
 * The bindings (from the rows the first stage read) that a question's last sentence holds one side of,
 * the other side as the alias, each pair once. A name inside a longer bound name the question holds is
 * not read ("周强" in "周强杰").
 */
export function aliasCandidates(question: string, bindings: readonly Binding[]): AliasCandidate[] {
  const normalized = normalizeSearchText(question);
  const seen = new Set<string>();
  const candidates: AliasCandidate[] = [];
  for (const binding of bindings) {
    const held = heldBy(normalized, binding);
    if (!held) continue;
    const longer = (b: Binding) =>
      b.name !== binding.name && b.name.includes(binding.name) && normalized.includes(b.name);
    if (held === "name" && bindings.some(longer)) continue;
    const key = `${binding.relation}\u0000${binding.name}`;
    if (seen.has(key)) continue;
    seen.add(key);
    candidates.push({ ...binding, held, alias: held === "name" ? binding.relation : binding.name });
  }
  return candidates;
}

/**
 * Whether a text speaks of someone other than `name` as the asker's relation: "我大学同学李东…" when
 * 杨佳丽 is bound to 大学同学 says that the relation is shared, though only one binding was stated; so do
 * "我同事老王…", "我同事们…" and "另一个同事", "两个同事".
 */
function namesAnother(normalized: string, relation: string, name: string): boolean {
  if (new RegExp(`(?:另一|好几|[两几三四五])[个位]${relation}`, "u").test(normalized)) return true;
  for (const mine of [`我${relation}`, `我的${relation}`]) {
    for (let at = normalized.indexOf(mine); at >= 0; at = normalized.indexOf(mine, at + 1)) {
      const after = normalized.slice(at + mine.length);
      if (after.startsWith("们")) return true;
      if (after.startsWith(name) || NO_NAME_AFTER.test(after)) continue;
      const prefix = PERSON_PREFIX.test(after) ? 1 : 0;
      const surname = surnameAt(after.slice(prefix));
      if (surname && HAN_START.test(after.slice(prefix + surname.length))) return true;
    }
  }
  return false;
}

/**
 * The one name the scope binds a relation to, read from every row holding the relation (`texts`, as
 * normalizeSearchText leaves them); none when it binds several or none, or when a row calls someone
 * else by it.
 */
export function boundName(relation: string, texts: readonly string[]): string | undefined {
  const names = new Set<string>();
  // A longer relation ending with this one ("大堂姐", "另一个同事") is another person by the same word.
  for (const text of texts) for (const b of bindingsIn(text)) if (b.relation.endsWith(relation)) names.add(b.name);
  const [name] = names;
  if (names.size !== 1 || name === undefined) return undefined;
  return texts.some((text) => namesAnother(text, relation, name)) ? undefined : name;
}
