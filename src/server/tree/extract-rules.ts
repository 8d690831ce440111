import { familyOperations } from "./rules";

/**
 * Extraction (docs/memory-tree.md), rule-based (no LLM): candidate memory operations from one user message.
 * Everything proposed still goes through memoryWrite's rules; an inferred fact never becomes an
 * explicit user-scope card because `explicit` is only set when the user used an explicit cue.
 */
export type ExtractedOperation = {
  op: "create" | "supersede";
  kind: string;
  itemKey?: string;
  explicit: boolean;
  /** Where it belongs when not the kind's default. */
  scopeHint?: "session" | "workspace";
  /** For supersede: the card to replace is the active one of this kind + item. */
  target?: { kind: string; itemKey: string };
  /** Only as a correction: without a current card to replace, nothing is written. */
  requiresTarget?: boolean;
  /** Said as a correction ("actually …", "不是…而是…"): it replaces the slot's card. */
  correction?: boolean;
  node: { title: string; content: string; valueJson?: unknown; tags?: string[]; entities?: string[] };
};

export const EXPLICIT_CUE =
  /记住|记下|以后|今后|从现在起|从今以后|一直都|永远|\bremember\b|\bfrom now on\b|\bgoing forward\b|\balways\b|\bnever\b|\bin (?:the )?future\b/i;
/**
 * The user asks for something to be forgotten or not kept: such a message is no fact to extract
 * ("忘掉我不吃香菜" holds "不吃香菜"), and what it names must not be extracted from earlier messages.
 * "别忘了…" / "don't forget…" ask the opposite and are not matched.
 */
export const FORGET_CUE =
  /(?<!别|不要|不能|千万别|千万不要|可别|不会|没有?)(?:忘掉|忘记)|忘了吧|别记|不要记|不用记|别再记|不必记|删掉|删除|清除|抹掉|(?<!\b(?:don'?t|do not|never|won'?t|not) )\bforget\b|\bdon'?t (?:remember|keep|store|save)\b|\bstop remembering\b|\bdelete\b|\berase\b/i;
const FOOD_CONTEXT =
  /做饭|做菜|菜谱|下厨|吃|食|饭|菜|口味|餐|\bcook|\brecipe|\bmeal|\bfood|\beat\b|\bdish|\bdinner|\blunch/i;
const CJK_ITEM = "[\\u4e00-\\u9fff]{1,4}?";
// "不讨厌" / "不再忌口" say the opposite of an avoidance: the lookbehind keeps them out.
const AVOID_ZH = new RegExp(
  `(?:别|不要|不想|不能|不吃|(?<!不|不再|没|没有)讨厌|(?<!不|不再|没|没有)忌口)(?:再)?(?:给我)?(?:推荐|放|加|吃|用|带)?(?:带)?(${CJK_ITEM})(?:了)?(?=[，。！!,.；;、]|的菜|$)`,
  "g",
);
const ALLERGY_ZH = new RegExp(`对(${CJK_ITEM})过敏`, "g");
const AVOID_EN =
  /\b(?:i (?:don'?t|do not|can'?t|cannot|won'?t) eat|no more|please avoid|avoid|allergic to|hold the|without)\s+([a-z][a-z-]{1,20}(?: [a-z][a-z-]{1,20})?)(?=[,.!;]|\s+(?:please|anymore|any more|in my|for me)\b|$)/gi;
const ACCEPT_ZH = new RegExp(`(${CJK_ITEM})现在(?:也)?(?:可以|能)(?:接受|吃)(?:一点|少量|一些|点)?`, "g");
const NO_LONGER_AVOID_ZH = new RegExp(`(?:不再|不)(?:讨厌|忌口)(${CJK_ITEM})了`, "g");
const ACCEPT_EN = /\bi can (?:eat|have) (?:a little |some )?([a-z][a-z-]{1,20}) (?:now|again)\b/gi;
const FLAVOR =
  /少油|少辣|不辣|微辣|中辣|特辣|重辣|多辣|清淡|少盐|少糖|少酸|重口|less oil|low oil|less spicy|not spicy|no spice|mild|extra spicy|low salt|less salt|less sugar|low sugar/gi;
// Words the avoid pattern must not take for an ingredient.
const NOT_INGREDIENTS = new Set([
  ...[
    "太多",
    "那么",
    "这个",
    "那个",
    "东西",
    "什么",
    "一点",
    "推荐",
    "给我",
    "了",
    "再",
    "很多",
    "太",
    "多",
    "菜",
    "饭",
  ],
  // "别忘了" / "别担心" / "不要客气": what follows 别 / 不要 is often no food at all.
  ...["忘", "忘记", "担心", "客气", "着急", "生气", "介意", "管", "说", "问", "想", "急", "怕", "麻烦", "打扰", "动"],
]);

function unique<T>(items: T[], key: (t: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => (seen.has(key(item)) ? false : (seen.add(key(item)), true)));
}

/** The user's word that an ingredient they avoided is fine now: it replaces the avoidance card of that item. */
const avoidanceCorrection = (item: string, card: ExtractedOperation["node"]): ExtractedOperation => ({
  op: "supersede",
  kind: "avoid_ingredient",
  itemKey: item,
  explicit: true,
  target: { kind: "avoid_ingredient", itemKey: item },
  node: card,
});

/** Whether a forget request names this candidate: its item, one of its entities or tags ("忘掉我的忌口"). */
export function forgetRequestNames(request: string, candidate: ExtractedOperation): boolean {
  const said = request.toLowerCase();
  const names = [candidate.itemKey, ...(candidate.node.entities ?? []), ...(candidate.node.tags ?? [])];
  return names.some((name) => name !== undefined && name.trim().length > 0 && said.includes(name.toLowerCase()));
}

export function extractOperations(text: string): ExtractedOperation[] {
  if (FORGET_CUE.test(text)) return [];
  const explicit = EXPLICIT_CUE.test(text);
  const food = FOOD_CONTEXT.test(text);
  const ops: ExtractedOperation[] = [];

  const accepted = new Set<string>();
  for (const m of [...text.matchAll(ACCEPT_ZH), ...text.matchAll(ACCEPT_EN)]) {
    const item = m[1]!.toLowerCase();
    accepted.add(item);
    const zh = /[\u4e00-\u9fff]/.test(item);
    ops.push(
      avoidanceCorrection(
        item,
        zh
          ? {
              title: `用户可接受少量${item}`,
              content: `${item}现在可以接受一点，但不要太多。`,
              valueJson: { ingredient: item, note: "少量可以" },
              tags: ["忌口", "菜谱推荐"],
              entities: [item],
            }
          : {
              title: `Can have a little ${item}`,
              content: `A little ${item} is fine now, just not too much.`,
              valueJson: { ingredient: item, note: "a little is fine" },
              tags: ["diet"],
              entities: [item],
            },
      ),
    );
  }

  for (const m of text.matchAll(NO_LONGER_AVOID_ZH)) {
    const item = m[1]!;
    if (accepted.has(item)) continue;
    accepted.add(item);
    ops.push({
      ...avoidanceCorrection(item, {
        title: `用户不再忌口${item}`,
        content: `${item}现在可以吃了，推荐菜谱时不必避开。`,
        valueJson: { ingredient: item, note: "不再忌口" },
        tags: ["忌口", "菜谱推荐"],
        entities: [item],
      }),
      requiresTarget: true,
    });
  }

  if (food) {
    const avoided = [...text.matchAll(AVOID_ZH), ...text.matchAll(ALLERGY_ZH)]
      .map((m) => m[1]!)
      .filter((w) => !NOT_INGREDIENTS.has(w) && !FLAVOR.test(w) && !accepted.has(w));
    FLAVOR.lastIndex = 0;
    for (const item of unique(avoided, (s) => s)) {
      ops.push({
        op: "create",
        kind: "avoid_ingredient",
        itemKey: item,
        explicit,
        node: {
          title: `用户不吃${item}`,
          content: `推荐菜谱时避免${item}。`,
          valueJson: item,
          tags: ["忌口", "菜谱推荐"],
          entities: [item],
        },
      });
    }
    for (const m of text.matchAll(AVOID_EN)) {
      const item = m[1]!.toLowerCase().trim();
      if (accepted.has(item)) continue;
      ops.push({
        op: "create",
        kind: "avoid_ingredient",
        itemKey: item,
        explicit,
        node: {
          title: `Avoids ${item}`,
          content: `Avoid ${item} in recipe suggestions.`,
          valueJson: item,
          tags: ["diet"],
          entities: [item],
        },
      });
    }
    const flavors = unique(
      [...text.matchAll(FLAVOR)].map((m) => m[0].toLowerCase()),
      (s) => s,
    );
    if (flavors.length) {
      const zh = flavors.some((f) => /[\u4e00-\u9fff]/.test(f));
      const phrase = flavors.join(zh ? "" : ", ");
      ops.push({
        op: "create",
        kind: "flavor_profile",
        explicit,
        node: zh
          ? {
              title: `用户偏好${phrase}`,
              content: `推荐菜谱时优先${phrase}。`,
              valueJson: phrase,
              tags: ["口味", "菜谱推荐"],
              entities: flavors,
            }
          : {
              title: `Prefers ${phrase}`,
              content: `Prefer ${phrase} dishes in recipe suggestions.`,
              valueJson: phrase,
              tags: ["taste"],
              entities: flavors,
            },
      });
    }
  }

  // Identity, relationships, work, places, plans, decisions, preferences, dates and amounts (rules/).
  ops.push(...familyOperations(text, { explicit, food }));
  return ops;
}
