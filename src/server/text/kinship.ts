/**
 * Chinese kinship terms under the words that group them. "我妈那边的亲戚都住在哪？" asks about 舅舅, 姨妈
 * and 表姐, and a line saying "我舅舅在昆明买了房" holds no word of the question. The grouping is the
 * language's (kin terms and the words that cover them: a side of the family, a generation, relatives,
 * the household), not any memory's; docs/retrieval.md, "Kinship words". Two-character terms only: the
 * index holds Chinese as characters and bigrams.
 */

/** 表 cousins are a father's sister's children as well as a mother's siblings': both sides. */
type Side = "paternal" | "maternal" | "both" | "none";
type Generation = "older" | "same" | "younger";
type Kin = {
  word: string;
  side: Side;
  generation: Generation;
  /** Parents, spouse, children and siblings: what 家人 means; the rest are 亲戚. */
  nuclear: boolean;
  /** A parent's sibling or that sibling's spouse (大伯, 姨妈), not a grandparent. */
  parentsSibling?: boolean;
  spouse?: boolean;
  cousin?: "堂" | "表";
};

const kin = (words: string, k: Omit<Kin, "word">): Kin[] => words.split(" ").map((word) => ({ word, ...k }));

/** Written in simplified characters (queries and texts are read that way, segment.ts). */
const KIN: readonly Kin[] = [
  ...kin("爷爷 奶奶 祖父 祖母 叔公", { side: "paternal", generation: "older", nuclear: false }),
  ...kin("大伯 伯伯 伯父 伯母 大娘 叔叔 叔父 婶婶 婶子 小叔 二叔 姑姑 姑妈 姑父 姑丈 大姑 小姑", {
    side: "paternal",
    generation: "older",
    nuclear: false,
    parentsSibling: true,
  }),
  ...kin("堂哥 堂姐 堂弟 堂妹 堂兄 堂姊", { side: "paternal", generation: "same", nuclear: false, cousin: "堂" }),
  ...kin("外公 外婆 姥姥 姥爷 舅公", { side: "maternal", generation: "older", nuclear: false }),
  ...kin("舅舅 舅妈 舅父 舅母 大舅 小舅 姨妈 小姨 大姨 姨父 姨夫", {
    side: "maternal",
    generation: "older",
    nuclear: false,
    parentsSibling: true,
  }),
  ...kin("表哥 表姐 表弟 表妹 表兄 表姊", { side: "both", generation: "same", nuclear: false, cousin: "表" }),
  ...kin("爸爸 妈妈 父亲 母亲 老爸 老妈 爸妈 父母", { side: "none", generation: "older", nuclear: true }),
  ...kin("哥哥 姐姐 弟弟 妹妹", { side: "none", generation: "same", nuclear: true }),
  ...kin("老公 老婆 丈夫 妻子 媳妇 爱人 太太", { side: "none", generation: "same", nuclear: true, spouse: true }),
  ...kin("儿子 女儿", { side: "none", generation: "younger", nuclear: true }),
  ...kin("侄子 侄女 外甥 孙子 孙女 外孙 女婿 儿媳", { side: "none", generation: "younger", nuclear: false }),
  ...kin("岳父 岳母 公公 婆婆 丈人", { side: "none", generation: "older", nuclear: false }),
  ...kin("姐夫 嫂子 弟媳 妹夫 连襟 妯娌", { side: "none", generation: "same", nuclear: false }),
];

type Test = (k: Kin) => boolean;

/** A parent, not as part of a longer word (姑妈, 婶妈) or of both parents (爸妈). */
const FATHER = "(?<![姑姨舅婶伯叔大干后继])(?:爸爸?|父亲|老爸)";
const MOTHER = "(?<![姑姨舅婶伯叔大干后继爸])(?:妈妈?|母亲|老妈)";
const SIDE_OF = "(?=那边|那一边|那头|家那边|的兄弟|的姐妹)";
const SIDES: [RegExp, Test][] = [
  [
    new RegExp(`${FATHER}${SIDE_OF}|(?:爷爷|奶奶)${SIDE_OF}|父系|父方`, "u"),
    (k) => k.side === "paternal" || k.side === "both",
  ],
  [
    new RegExp(`${MOTHER}${SIDE_OF}|(?:外公|外婆|姥姥|姥爷)${SIDE_OF}|母系|母方`, "u"),
    (k) => k.side === "maternal" || k.side === "both",
  ],
];
/** Generations narrow what else is named: 亲戚里的长辈 is the older relatives. */
const GENERATIONS: [RegExp, Test][] = [
  [/长辈|老一辈|上一辈/u, (k) => k.generation === "older"],
  [/晚辈|小辈|下一辈/u, (k) => k.generation === "younger"],
  [/同辈|平辈/u, (k) => k.generation === "same"],
];
/** A household word after a possessive or a companion word, not inside 国家人口 or 专家人数. */
const HOUSEHOLD = /(?:^|(?<=[我你他她们的和跟与同全一个位些]))(?:家人|家里人|家属|家里的人)/u;
const PARENTS_SIBLINGS = new RegExp(`(?:${FATHER}|${MOTHER}|爸妈|父母)(?:的|那边的)(?:兄弟姐妹|兄弟|姐妹)`, "u");
const GROUPS: [RegExp, Test][] = [
  [/堂兄弟|堂兄妹|堂姐妹|堂姐弟/u, (k) => k.cousin === "堂"],
  [/表兄弟|表兄妹|表姐妹|表姐弟/u, (k) => k.cousin === "表"],
  [PARENTS_SIBLINGS, (k) => k.parentsSibling === true],
  // One's own siblings; "我爸的兄弟姐妹" is a parent's (the group above).
  [/(?<![堂表])(?<![爸妈亲母边]的)兄弟姐妹/u, (k) => k.nuclear && k.generation === "same" && !k.spouse],
  [/亲戚/u, (k) => !k.nuclear],
  [/亲人|亲属|亲友|亲朋/u, () => true],
  [HOUSEHOLD, (k) => k.nuclear],
  // Both parents, not both parents' sides ("我爸妈那边的亲戚") or their siblings.
  [/(?:父母|爸妈|双亲)(?!那边|那一边|那头|的兄弟|的姐妹)/u, (k) => k.nuclear && k.generation === "older"],
  [/公婆|婆家/u, (k) => k.word === "公公" || k.word === "婆婆"],
];

/**
 * The kin terms the text's group words cover, not those it holds itself, in the table's order; none
 * when it names no group. A side or a generation alone covers the kin of that side or generation
 * (a side: outside the household); with a group it narrows it.
 */
export function kinshipTerms(text: string): string[] {
  const sides = SIDES.filter(([re]) => re.test(text)).map(([, test]) => test);
  const generations = GENERATIONS.filter(([re]) => re.test(text)).map(([, test]) => test);
  const groups = GROUPS.filter(([re]) => re.test(text)).map(([, test]) => test);
  if (sides.length === 0 && generations.length === 0 && groups.length === 0) return [];
  const out: string[] = [];
  for (const k of KIN) {
    if (text.includes(k.word)) continue;
    const onSide = sides.length === 0 || sides.some((test) => test(k));
    const ofGeneration = generations.length === 0 || generations.some((test) => test(k));
    const inGroup = groups.length > 0 ? groups.some((test) => test(k)) : generations.length > 0 || !k.nuclear;
    if (onSide && ofGeneration && inGroup) out.push(k.word);
  }
  return out;
}
