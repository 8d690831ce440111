/**
 * Chinese kinship terms under the words that group them. "我妈那边的亲戚都住在哪？" asks about 舅舅, 姨妈
 * and 表姐, and a line saying "我舅舅在昆明买了房" holds no word of the question. The grouping is the
 * language's (a closed set of kin terms and the group words that cover them: side of the family,
 * generation, relatives, family), not any memory's; docs/retrieval.md, "Kinship words".
 */

type Side = "paternal" | "maternal" | "none";
type Generation = "older" | "same" | "younger";
/** `nuclear`: parents, spouse, children and siblings, what 家人 means; the rest are 亲戚. */
type Kin = { side: Side; generation: Generation; nuclear: boolean; spouse?: boolean; inLaw?: boolean };

const kin = (words: string, k: Kin): [string, Kin][] => words.split(" ").map((w) => [w, k]);

/** Written in simplified characters (queries and texts are read that way, segment.ts). */
const KIN_TERMS = new Map<string, Kin>([
  ...kin("爷爷 奶奶 祖父 祖母 大伯 伯伯 伯父 伯母 大娘 叔叔 叔父 婶婶 婶子 姑姑 姑妈 姑父 姑丈", {
    side: "paternal",
    generation: "older",
    nuclear: false,
  }),
  ...kin("堂哥 堂姐 堂弟 堂妹 堂兄 堂姊", { side: "paternal", generation: "same", nuclear: false }),
  ...kin("外公 外婆 姥姥 姥爷 舅舅 舅妈 舅父 舅母 姨妈 小姨 大姨 姨父 姨夫", {
    side: "maternal",
    generation: "older",
    nuclear: false,
  }),
  ...kin("表哥 表姐 表弟 表妹 表兄 表姊", { side: "maternal", generation: "same", nuclear: false }),
  ...kin("爸爸 妈妈 父亲 母亲 老爸 老妈", { side: "none", generation: "older", nuclear: true }),
  ...kin("哥哥 姐姐 弟弟 妹妹", { side: "none", generation: "same", nuclear: true }),
  ...kin("老公 老婆 丈夫 妻子 媳妇", { side: "none", generation: "same", nuclear: true, spouse: true }),
  ...kin("儿子 女儿", { side: "none", generation: "younger", nuclear: true }),
  ...kin("侄子 侄女 外甥 孙子 孙女 外孙", { side: "none", generation: "younger", nuclear: false }),
  ...kin("岳父 岳母 公公 婆婆 丈人", { side: "none", generation: "older", nuclear: false, inLaw: true }),
  ...kin("姐夫 嫂子 弟媳 妹夫 连襟 妯娌", {
    side: "none",
    generation: "same",
    nuclear: false,
    inLaw: true,
  }),
]);

type Test = (k: Kin) => boolean;

/** Group words, each with the kin it covers. Sides narrow the others: "我爸那边的亲戚" is the paternal ones. */
const SIDES: [RegExp, Test][] = [
  [/(?:爸爸?|父亲|老爸)(?:那边|那一边|那头|家那边)|父系|父方/u, (k) => k.side === "paternal"],
  [/(?:妈妈?|母亲|老妈)(?:那边|那一边|那头|家那边)|母系|母方/u, (k) => k.side === "maternal"],
];
const GROUPS: [RegExp, Test][] = [
  [/长辈/u, (k) => k.generation === "older"],
  [/晚辈/u, (k) => k.generation === "younger"],
  [/同辈|平辈/u, (k) => k.generation === "same"],
  [/堂兄弟|堂兄妹|堂姐妹|堂姐弟|堂亲/u, (k) => k.side === "paternal" && k.generation === "same"],
  [/表兄弟|表兄妹|表姐妹|表姐弟|表亲/u, (k) => k.side === "maternal" && k.generation === "same"],
  [/(?<![堂表])兄弟姐妹/u, (k) => k.nuclear && k.generation === "same" && !k.spouse],
  [/亲戚|亲属|亲人/u, (k) => !k.nuclear],
  [/家人|家里人|家属|家里的人/u, (k) => k.nuclear],
];

/**
 * The kin terms the text's group words cover, not those it holds itself, in the table's order; none
 * when it has no group word. A side alone ("我妈那边的人") covers that side; a side with a group
 * covers what both say.
 */
export function kinshipTerms(text: string): string[] {
  const sides = SIDES.filter(([re]) => re.test(text)).map(([, test]) => test);
  const groups = GROUPS.filter(([re]) => re.test(text)).map(([, test]) => test);
  if (sides.length === 0 && groups.length === 0) return [];
  const out: string[] = [];
  for (const [term, k] of KIN_TERMS) {
    if (text.includes(term)) continue;
    const onSide = sides.length === 0 || sides.some((test) => test(k));
    const inGroup = groups.length === 0 ? !k.nuclear : groups.some((test) => test(k));
    if (onSide && inGroup) out.push(term);
  }
  return out;
}
