/**
 * Value synonyms for the cooking kinds (controlled values: `少辣` → `{ spicy: "low" }`): the model
 * may say the same taste in many ways, and exact retrieval only works on one structured value.
 */

export const FLAVOR_LEVELS = ["none", "low", "medium", "high"] as const;
export type FlavorLevel = (typeof FLAVOR_LEVELS)[number];
export const FLAVOR_DIMENSIONS = ["spicy", "oil", "salt", "sugar", "sour"] as const;
export type FlavorDimension = (typeof FLAVOR_DIMENSIONS)[number];
/** Known dimensions carry a FlavorLevel; unknown ones an admin or model added keep their text. */
export type FlavorProfile = Record<string, string>;

type Phrase = { text: string; dimension: FlavorDimension; level: FlavorLevel };

const phrase = (dimension: FlavorDimension, level: FlavorLevel, texts: readonly string[]): Phrase[] =>
  texts.map((text) => ({ text, dimension, level }));

/** Longest phrase wins at a position, so `不太辣` (low) beats `不辣`-style prefixes and `辣`. */
const PHRASES: readonly Phrase[] = [
  ...phrase("spicy", "none", [
    "不辣",
    "不要辣",
    "不吃辣",
    "别放辣",
    "不放辣",
    "免辣",
    "去辣",
    "无辣",
    "no spice",
    "no spicy",
    "not spicy",
    "non spicy",
    "without spice",
    "spice free",
  ]),
  ...phrase("spicy", "low", [
    "少辣",
    "微辣",
    "小辣",
    "轻辣",
    "不太辣",
    "别太辣",
    "不要太辣",
    "少放辣",
    "less spicy",
    "less spice",
    "mild",
    "mildly spicy",
    "slightly spicy",
    "a little spicy",
    "not too spicy",
    "low spice",
  ]),
  ...phrase("spicy", "medium", ["中辣", "medium spicy", "medium spice"]),
  ...phrase("spicy", "high", [
    "特辣",
    "重辣",
    "超辣",
    "爆辣",
    "变态辣",
    "很辣",
    "多辣",
    "加辣",
    "very spicy",
    "extra spicy",
    "extra hot",
    "more spicy",
  ]),
  ...phrase("oil", "none", ["无油", "不放油", "不要油", "no oil", "oil free", "without oil"]),
  ...phrase("oil", "low", [
    "少油",
    "低油",
    "清淡",
    "少放油",
    "less oil",
    "low oil",
    "light oil",
    "not oily",
    "not greasy",
  ]),
  ...phrase("oil", "high", ["多油", "重油", "more oil", "oily"]),
  ...phrase("salt", "none", ["无盐", "不放盐", "不要盐", "no salt", "salt free", "without salt"]),
  ...phrase("salt", "low", ["少盐", "低盐", "少放盐", "less salt", "low salt", "low sodium", "less salty"]),
  ...phrase("salt", "high", ["多盐", "重盐", "咸一点", "more salt", "saltier"]),
  ...phrase("sugar", "none", ["无糖", "不放糖", "不要糖", "no sugar", "sugar free", "without sugar", "unsweetened"]),
  ...phrase("sugar", "low", ["少糖", "低糖", "少放糖", "less sugar", "low sugar", "less sweet"]),
  ...phrase("sugar", "high", ["多糖", "甜一点", "more sugar", "sweeter"]),
  ...phrase("sour", "none", ["不酸", "不要酸", "no sour", "not sour"]),
  ...phrase("sour", "low", ["少酸", "少醋", "微酸", "less sour", "less vinegar"]),
  ...phrase("sour", "high", ["多醋", "酸一点", "more sour", "more vinegar"]),
].sort((a, b) => b.text.length - a.text.length);

const DIMENSION_SYNONYMS: Readonly<Record<string, FlavorDimension>> = {
  spicy: "spicy",
  spice: "spicy",
  spiciness: "spicy",
  heat: "spicy",
  hot: "spicy",
  辣: "spicy",
  辣度: "spicy",
  辣味: "spicy",
  oil: "oil",
  oily: "oil",
  oiliness: "oil",
  grease: "oil",
  fat: "oil",
  油: "oil",
  油量: "oil",
  salt: "salt",
  salty: "salt",
  saltiness: "salt",
  sodium: "salt",
  盐: "salt",
  咸: "salt",
  咸度: "salt",
  sugar: "sugar",
  sweet: "sugar",
  sweetness: "sugar",
  糖: "sugar",
  甜: "sugar",
  甜度: "sugar",
  sour: "sour",
  sourness: "sour",
  acidity: "sour",
  vinegar: "sour",
  酸: "sour",
  醋: "sour",
  酸度: "sour",
};

const LEVEL_SYNONYMS: Readonly<Record<string, FlavorLevel>> = {
  none: "none",
  no: "none",
  zero: "none",
  free: "none",
  off: "none",
  0: "none",
  不: "none",
  无: "none",
  不要: "none",
  免: "none",
  low: "low",
  less: "low",
  little: "low",
  mild: "low",
  light: "low",
  slight: "low",
  1: "low",
  少: "low",
  低: "low",
  微: "low",
  轻: "low",
  淡: "low",
  少量: "low",
  一点: "low",
  medium: "medium",
  moderate: "medium",
  normal: "medium",
  regular: "medium",
  2: "medium",
  中: "medium",
  适中: "medium",
  正常: "medium",
  一般: "medium",
  high: "high",
  more: "high",
  extra: "high",
  heavy: "high",
  very: "high",
  strong: "high",
  3: "high",
  多: "high",
  重: "high",
  高: "high",
  特: "high",
  超: "high",
  很: "high",
};

const clean = (text: string) => text.normalize("NFKC").toLowerCase().replace(/[-_]+/g, " ").replace(/\s+/g, " ").trim();

const isLatinWordChar = (ch: string | undefined) => ch !== undefined && /[a-z0-9]/.test(ch);

/** Scans free text for known flavor phrases; a later mention of a dimension overrides an earlier one. */
function parseFlavorText(text: string): FlavorProfile {
  const source = clean(text);
  const profile: FlavorProfile = {};
  let i = 0;
  while (i < source.length) {
    const hit = PHRASES.find((p) => {
      if (!source.startsWith(p.text, i)) return false;
      // Latin phrases must sit on word boundaries ("mild" is not inside "mildew").
      if (!/[a-z]/.test(p.text)) return true;
      return !isLatinWordChar(source[i - 1]) && !isLatinWordChar(source[i + p.text.length]);
    });
    if (hit) {
      profile[hit.dimension] = hit.level;
      i += hit.text.length;
    } else {
      i += 1;
    }
  }
  return profile;
}

/** `"少"`, `"low"`, `"mild"`, `2` → a FlavorLevel; undefined when it is not a recognised level. */
export function normalizeFlavorLevel(raw: unknown, dimension?: FlavorDimension): FlavorLevel | undefined {
  if (typeof raw !== "string" && typeof raw !== "number") return undefined;
  const text = clean(String(raw));
  const direct = LEVEL_SYNONYMS[text];
  if (direct) return direct;
  // `{ spicy: "少辣" }`: the value is itself a phrase.
  const parsed = parseFlavorText(text);
  if (dimension && parsed[dimension]) return parsed[dimension] as FlavorLevel;
  const levels = Object.values(parsed);
  return levels.length === 1 ? (levels[0] as FlavorLevel) : undefined;
}

const normalizeDimensionName = (raw: string) => {
  const name = clean(raw).replace(/ /g, "_");
  return DIMENSION_SYNONYMS[name] ?? name;
};

function mergeObject(profile: FlavorProfile, input: Record<string, unknown>) {
  for (const [rawKey, rawValue] of Object.entries(input)) {
    const dimension = normalizeDimensionName(rawKey);
    if (!dimension) continue;
    const known = (FLAVOR_DIMENSIONS as readonly string[]).includes(dimension);
    const level = normalizeFlavorLevel(rawValue, known ? (dimension as FlavorDimension) : undefined);
    if (level) profile[dimension] = level;
    else if (!known && (typeof rawValue === "string" || typeof rawValue === "number") && String(rawValue).trim()) {
      profile[dimension] = String(rawValue).trim();
    }
  }
}

/**
 * One flavor profile from free text (`"少油少辣"`, `"mild, low oil"`), a list of phrases, or an
 * object with synonym keys/levels (`{ 辣: "少" }`). Later entries override earlier ones. Returns
 * `{}` when nothing is recognised, so the caller can reject the value instead of storing noise.
 */
export function normalizeFlavorProfile(input: string | readonly unknown[] | Record<string, unknown>): FlavorProfile {
  const profile: FlavorProfile = {};
  const merge = (part: unknown) => {
    if (typeof part === "string") Object.assign(profile, parseFlavorText(part));
    else if (Array.isArray(part)) part.forEach(merge);
    else if (part && typeof part === "object") mergeObject(profile, part as Record<string, unknown>);
  };
  merge(input);
  return profile;
}
