import { toSimplifiedHan } from "~/server/text/han-variants";

/**
 * List-all phrasing ("列出所有记忆", "show all my memories") is a request to enumerate, not a text
 * search: searching for the words "all memories" would find nothing and wrongly suggest that memory
 * is empty. Patterns are anchored, so a topical request such as
 * "show all my memories about cooking" stays a search.
 */

const ZH_PATTERNS: readonly RegExp[] = [
  // 列出所有记忆 / 我的全部记忆 / 请帮我列一下你记住的所有东西 / 显示全部的记录
  /^(请|麻烦)?(你)?(帮我)?(列出|列一下|列举|显示|展示|查看|看看|看一下|告诉我|给我看看?|输出|导出)?(一下)?(我的|我|你的|你对我的|关于我的|你记住的|你记得的|你保存的)?(所有|全部|一切)(的)?(记忆|回忆|记录|东西|内容|事情|信息)(吧|吗|呢)?$/u,
  // 把我的记忆都列出来 / 把你记住的东西全部告诉我
  /^(请|麻烦)?(你)?(帮我)?把(我的|你记住的|你记得的|关于我的)?(所有|全部)?(的)?(记忆|回忆|记录|东西|内容|信息)(都|全|全部)?(列出来|列一下|列举出来|显示出来|展示出来|给我看看?|告诉我|说一下)(吧|吗|呢)?$/u,
  // 我的记忆 / 我的全部记忆
  /^(我的|关于我的)(所有|全部)?(记忆|回忆)$/u,
  /^(请|麻烦)?(你)?(帮我)?(列出|列一下|列举|显示|展示|查看|看看|告诉我|给我看看?)(你)?(记住|记得|保存|存)(的|了)(所有|全部)?(关于我的)?(记忆|东西|内容|事情|信息|事)(吧|吗|呢)?$/u,
  // 你都记得我什么 / 你记住了我哪些事 / 你对我有哪些记忆
  /^(你)?(还|都)?(都|还)?(记得|记住了|记住|保存了)(关于)?(我的?)?(什么|哪些)(事情?|东西|内容|信息)?(吗|呢)?$/u,
  /^(你)?(对我)?(都)?有(哪些|什么)(关于我的)?(记忆|记录)(吗|呢)?$/u,
];

const EN_PATTERNS: readonly RegExp[] = [
  // show all my memories / list everything you remember / show me everything you know about me
  /^(please )?((can|could|would|will) you )?(list|show|display|give|tell|print|dump|export|enumerate|see)( me)?( all| every| everything| each)( of)?( the| my| your)?( (memories|memory|things|stuff|facts|notes|records))?( (that )?you( have)?( (remember|remembered|know|stored|saved|keep|kept)))?( about me)?( please)?$/,
  // list my memories / show me your notes
  /^(please )?((can|could|would|will) you )?(list|show|display|give|print|dump|export|enumerate|see)( me)?( my| your| the)? (memories|memory|records|notes)( about me)?( please)?$/,
  // what memories do you have about me / what facts do you keep on me
  /^what (memories|memory|facts|things|records|information|info|notes) (do|did|have) you (have|got|keep|kept|hold|store|stored|save|saved|remember|remembered|know)( about me| of me| on me| for me)?$/,
  // all memories / all my memories / every memory
  /^(all|every)( of)?( the| my| your)? (memories|memory|records|facts)$/,
  // what do you remember about me / what do you know about me / what have you stored about me
  /^what (do|did|have) you (remember(ed)?|know|stored|saved|kept)( about me)?$/,
];

const normalizeZh = (text: string) => toSimplifiedHan(text.normalize("NFKC")).replace(/[\s\p{P}\p{S}]+/gu, "");
const normalizeEn = (text: string) =>
  text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/['’]/g, "")
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();

/** Whether the query asks for every memory rather than for a topic. */
export function isListAllQuery(text: string | undefined | null): boolean {
  if (!text) return false;
  if (text.length > 200) return false;
  const zh = normalizeZh(text);
  if (ZH_PATTERNS.some((re) => re.test(zh))) return true;
  const en = normalizeEn(text);
  // "show everything you remember": a bare "everything" with a memory verb needs no noun.
  if (en.split(" ").length < 2 && !/^(memories|everything)$/.test(en)) return false;
  return (
    EN_PATTERNS.some((re) => re.test(en)) &&
    /memor|remember|know|stored|saved|kept|records|facts|notes|things|stuff/.test(en)
  );
}
