import { personName } from "~/server/text/chinese-names";

/**
 * Entity extraction for the cold path (docs/memory-tree.md): patterns (repo, url, version, date, money, project)
 * plus Chinese names and places found through word segmentation and cue words.
 */
export type EntityType = "repo" | "url" | "version" | "date" | "money" | "project" | "person" | "place";
export type Entity = { type: EntityType; value: string };

const PATTERNS: { type: EntityType; pattern: RegExp; pick?: (m: RegExpMatchArray) => string }[] = [
  {
    type: "repo",
    pattern: /github\.com\/([\w.-]+\/[\w.-]+)/gi,
    pick: (m) => m[1]!.replace(/\.git$/, "").toLowerCase(),
  },
  { type: "url", pattern: /https?:\/\/(?!github\.com\/)[^\s)>\]，。]+/gi },
  { type: "version", pattern: /\bv?\d+\.\d+\.\d+(?:-[\w.]+)?\b/g, pick: (m) => m[0].replace(/^v/i, "") },
  {
    type: "date",
    pattern: /\b\d{4}-\d{2}-\d{2}\b|\d{1,2}\s*月\s*\d{1,2}\s*[日号]/g,
    pick: (m) => m[0].replace(/\s+/g, ""),
  },
  {
    type: "money",
    pattern:
      /\d+(?:\.\d+)?\s*(?:万|千|亿)?\s*(?:元|块|美元|人民币)|\d+(?:\.\d+)?\s*(?:万|亿)|[$€¥£]\s?\d[\d,.]*(?:\s?[km])?/gi,
    pick: (m) => m[0].replace(/\s+/g, ""),
  },
  // "project Hermes", "Hermes 项目", "项目 yinmei": a name next to the word, not every Latin word.
  {
    type: "project",
    pattern: /\bproject\s+([A-Z][\w-]{1,40})|([A-Za-z][\w-]{1,40})\s*项目|项目\s*([A-Za-z][\w-]{1,40})/g,
    pick: (m) => (m[1] ?? m[2] ?? m[3] ?? "").toLowerCase(),
  },
];

// "我的经理是张三": an optional 是 between the cue and the name.
const CJK_NAME_CUE =
  /(?:我叫|叫做|名叫|同事|朋友|老板|经理|老师|医生|和|跟|给)(?:是)?([\u4e00-\u9fff]{2,3})(?=说|讲|聊|一起|商量|开会|打电话|的|是|，|。|\s|$)/g;
const PLACE_SUFFIX = /^[\u4e00-\u9fff]{1,6}(?:市|省|县|区|镇|村|路|街|湾|山|湖|岛|机场|大学)$/;
const KNOWN_PLACE_CUE =
  /(?:住在|搬到|去|来自|位于|在)([\u4e00-\u9fff]{2,4}?)(?:市|省)?(?=出差|旅游|工作|生活|上班|开会|，|。|\s|$)/g;

/** Where people are rather than places with a name ("在家工作", "在公司"); and a cue inside a word ("现在在公司"). */
const GENERIC_PLACES = new Set([
  "家",
  "家里",
  "公司",
  "单位",
  "学校",
  "办公室",
  "这里",
  "那里",
  "这儿",
  "那儿",
  "外面",
  "路上",
  "家乡",
  "老家",
  "国外",
  "附近",
  "楼下",
  "楼上",
]);
const PLACE_VERB_ENDING = /(?:出差|旅游|工作|生活|上班|开会)$/;

function placeName(candidate: string): string | null {
  if (/^[在去到住]/.test(candidate) || PLACE_VERB_ENDING.test(candidate)) return null;
  // A generic spot, or one with a particle after it ("公司里").
  return [...GENERIC_PLACES].some((generic) => candidate.startsWith(generic) && candidate.length <= generic.length + 1)
    ? null
    : candidate;
}

let segmenter: Intl.Segmenter | undefined;

export function extractEntities(text: string): Entity[] {
  const found = new Map<string, Entity>();
  const add = (type: EntityType, value: string) => {
    const v = value.trim();
    if (v.length < 2) return;
    found.set(`${type}:${v}`, { type, value: v });
  };
  for (const { type, pattern, pick } of PATTERNS)
    for (const m of text.matchAll(pattern)) add(type, pick ? pick(m) : m[0]);
  for (const m of text.matchAll(CJK_NAME_CUE)) {
    const name = personName(m[1]!);
    if (name) add("person", name);
  }
  for (const m of text.matchAll(KNOWN_PLACE_CUE)) {
    const place = placeName(m[1]!);
    if (place) add("place", place);
  }
  segmenter ??= new Intl.Segmenter("zh", { granularity: "word" });
  for (const { segment, isWordLike } of segmenter.segment(text))
    if (isWordLike && PLACE_SUFFIX.test(segment)) add("place", segment);
  return [...found.values()];
}

/**
 * The topic an entity is routed to (docs/memory-tree.md, topics): `repo:org/name`, `person:张三`; dates
 * and money stay entities only.
 */
export function topicForEntity(
  entity: Entity,
): { name: string; type: "project" | "person" | "place" | "tool" | "entity" } | null {
  switch (entity.type) {
    case "repo":
      return { name: `repo:${entity.value}`, type: "project" };
    case "project":
      return { name: `project:${entity.value}`, type: "project" };
    case "version":
      return { name: `version:${entity.value}`, type: "tool" };
    case "url":
      try {
        return { name: `site:${new URL(entity.value).host}`, type: "entity" };
      } catch {
        return null;
      }
    case "person":
      return { name: `person:${entity.value}`, type: "person" };
    case "place":
      return { name: `place:${entity.value}`, type: "place" };
    default:
      return null;
  }
}
