import type { KindDefinition } from "./definition";
import { CJK_CHAR_CLASS } from "~/server/text/segment";

/**
 * Server-made canonical keys (docs/memory-model.md): the model names a kind and, for itemized kinds, a short stable
 * item ("香菜", "hermes_studio"); the server turns that into `slot.key:item`. The item must be a
 * concept, never a sentence, a timestamp or a random id, or the same fact would get a new slot
 * every time and never be superseded.
 */

export const MAX_ITEM_KEY_LENGTH = 64;
const MAX_ITEM_TOKENS = 6;
const MAX_CJK_RUN = 16;

export type ItemKeyRejection = "empty" | "sentence" | "timestamp" | "random_id" | "too_long";
export type ItemKeyResult = { ok: true; itemKey: string } | { ok: false; reason: ItemKeyRejection; message: string };

export type CanonicalKeyRejection = ItemKeyRejection | "item_key_required" | "item_key_not_allowed";
export type CanonicalKeyResult =
  { ok: true; key: string; itemKey: string | null } | { ok: false; reason: CanonicalKeyRejection; message: string };

/** Whitespace touching a CJK character is dropped: Chinese has no spaces, so " 香 菜 " is "香菜". */
const SPACE_NEAR_CJK = new RegExp(`(?<=[${CJK_CHAR_CLASS}])\\s+|\\s+(?=[${CJK_CHAR_CLASS}])`, "gu");
const CJK_RUN = new RegExp(`[${CJK_CHAR_CLASS}]+`, "gu");
const APOSTROPHES = /['’‘`]/g;
/** Anything that is not a letter, combining mark, digit or `_` separates words. */
const SEPARATORS = /[^\p{L}\p{M}\p{N}_]+/gu;
/** Ends or joins clauses: a key containing them is a sentence or a list, not one concept. */
const SENTENCE_PUNCTUATION = /[。！？!?；;，,、]/u;

const DATE_PATTERNS: readonly RegExp[] = [
  /(?:19|20)\d{2}\s*[-/.年]\s*\d{1,2}\s*[-/.月]\s*\d{1,2}/u, // 2024-05-01, 2024/5/1, 2024年5月1日
  /\d{4}\s*年\s*\d{1,2}\s*月/u,
  /\d{1,2}[/.]\d{1,2}[/.](?:19|20)\d{2}/, // 05/01/2024
  /(?<!\d)\d{1,2}:\d{2}(?::\d{2})?(?!\d)/, // 10:30, 10:30:00
];

const looksLikeCompactDate = (digits: string) =>
  /^(19|20)\d{2}(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])$/.test(digits) || // 20240501
  /^(19|20)\d{2}(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])([01]\d|2[0-3])[0-5]\d([0-5]\d)?$/.test(digits); // 202405011030

/** Unix epoch seconds (10 digits, 2001–2286) or milliseconds (13 digits). */
const looksLikeEpoch = (digits: string) => /^1\d{9}$/.test(digits) || /^1\d{12}$/.test(digits);

/** Dashed UUIDs; undashed ones fall to the long-hex rule. */
const UUID = /[0-9a-f]{8}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{12}/i;

/** Share of adjacent characters that switch class (lower/upper/digit): high in random tokens, low in words. */
function classSwitchRatio(token: string): number {
  const cls = (ch: string) => (/[0-9]/.test(ch) ? "d" : ch === ch.toUpperCase() && ch !== ch.toLowerCase() ? "u" : "l");
  let switches = 0;
  for (let i = 1; i < token.length; i++) if (cls(token[i]!) !== cls(token[i - 1]!)) switches++;
  return switches / Math.max(1, token.length - 1);
}

/** Base64/base62-like random strings: long, mixing letters and digits with frequent class switches. */
const looksRandom = (token: string) =>
  token.length >= 16 && /[a-z]/i.test(token) && /[0-9]/.test(token) && classSwitchRatio(token) >= 0.35;

const reject = (reason: ItemKeyRejection, message: string): ItemKeyResult => ({ ok: false, reason, message });

function rejectRaw(raw: string): ItemKeyResult | undefined {
  if (SENTENCE_PUNCTUATION.test(raw))
    return reject("sentence", "itemKey must be a short concept, not a sentence or a list");
  if (DATE_PATTERNS.some((re) => re.test(raw))) return reject("timestamp", "itemKey must not contain a date or time");
  if (UUID.test(raw)) return reject("random_id", "itemKey must not be a random id");
  if ((raw.match(/[A-Za-z0-9+/=]{16,}/g) ?? []).some(looksRandom))
    return reject("random_id", "itemKey must not be a random id");
  return undefined;
}

function rejectNormalized(itemKey: string): ItemKeyResult | undefined {
  const tokens = itemKey.split("_");
  for (const token of tokens) {
    if (/^\d+$/.test(token)) {
      if (looksLikeCompactDate(token) || looksLikeEpoch(token))
        return reject("timestamp", "itemKey must not contain a date or timestamp");
      if (token.length >= 9) return reject("random_id", "itemKey must not be a long number or id");
    }
    if (token.length >= 12 && /^[0-9a-f]+$/.test(token) && /\d/.test(token) && /[a-f]/.test(token)) {
      return reject("random_id", "itemKey must not be a hex id");
    }
    if (looksRandom(token)) return reject("random_id", "itemKey must not be a random token");
  }
  if (/(?:^|_)(19|20)\d{2}_\d{1,2}_\d{1,2}(?:_|$)/.test(itemKey))
    return reject("timestamp", "itemKey must not contain a date");
  if (tokens.length > MAX_ITEM_TOKENS) return reject("sentence", `itemKey must be at most ${MAX_ITEM_TOKENS} words`);
  if ((itemKey.match(CJK_RUN) ?? []).some((run) => [...run].length > MAX_CJK_RUN)) {
    return reject("sentence", `itemKey must be a short concept (at most ${MAX_CJK_RUN} CJK characters)`);
  }
  if ([...itemKey].length > MAX_ITEM_KEY_LENGTH)
    return reject("too_long", `itemKey must be at most ${MAX_ITEM_KEY_LENGTH} characters`);
  return undefined;
}

/**
 * A stable item key: NFKC, lower case, whitespace next to CJK removed, every other run of
 * separators/punctuation → `_`, apostrophes dropped. "Hermes Studio", "hermes-studio",
 * "ＨＥＲＭＥＳ　ＳＴＵＤＩＯ" → "hermes_studio"; " 香 菜 " → "香菜".
 */
export function normalizeItemKey(raw: string): ItemKeyResult {
  if (typeof raw !== "string") return reject("empty", "itemKey must be a non-empty string");
  const nfkc = raw.normalize("NFKC").trim();
  // Cheap bound before the regexes below: nothing this long is a short concept.
  if (nfkc.length > MAX_ITEM_KEY_LENGTH * 8)
    return reject("too_long", `itemKey must be at most ${MAX_ITEM_KEY_LENGTH} characters`);
  const early = rejectRaw(nfkc);
  if (early) return early;
  const itemKey = nfkc
    .toLowerCase()
    .replace(SPACE_NEAR_CJK, "")
    .replace(APOSTROPHES, "")
    .replace(SEPARATORS, "_")
    .replace(/_+/g, "_")
    .replace(/^_|_$/g, "");
  if (!itemKey) return reject("empty", "itemKey has no letters or digits");
  return rejectNormalized(itemKey) ?? { ok: true, itemKey };
}

/**
 * An item made from a card's title, for kinds told apart by what they say (a decision): its first
 * words, punctuation dropped ("No Friday deploys." → "No Friday deploys"), cut to what an item may
 * hold; normalizeItemKey still refuses what is no concept (a date). Undefined when nothing is left.
 */
export function itemKeyFromTitle(title: string): string | undefined {
  const words = title
    .normalize("NFKC")
    .replace(/[^\p{L}\p{M}\p{N}'’]+/gu, " ")
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, MAX_ITEM_TOKENS)
    .map((word) => [...word].slice(0, MAX_CJK_RUN).join(""));
  return words.length ? words.join(" ") : undefined;
}

/** `def.key` for single-slot kinds, `def.key:<normalized item>` for itemized ones. */
export function canonicalKey(
  def: Pick<KindDefinition, "kind" | "key" | "itemized">,
  itemKey?: string | null,
): CanonicalKeyResult {
  const given = typeof itemKey === "string" && itemKey.trim() !== "";
  if (!def.itemized) {
    if (given)
      return {
        ok: false,
        reason: "item_key_not_allowed",
        message: `kind ${def.kind} is a single slot (one per scope) and takes no itemKey: leave itemKey out, and update or supersede the existing card to change it`,
      };
    return { ok: true, key: def.key, itemKey: null };
  }
  if (!given)
    return { ok: false, reason: "item_key_required", message: `kind ${def.kind} is itemized and needs an itemKey` };
  const item = normalizeItemKey(itemKey);
  if (!item.ok) return item;
  return { ok: true, key: `${def.key}:${item.itemKey}`, itemKey: item.itemKey };
}

/** Splits a canonical key into its slot key and item (`custom.fact:wifi_ssid` → `custom.fact`, `wifi_ssid`). */
export function parseCanonicalKey(key: string): { slotKey: string; itemKey: string | null } {
  const at = key.indexOf(":");
  return at < 0 ? { slotKey: key, itemKey: null } : { slotKey: key.slice(0, at), itemKey: key.slice(at + 1) };
}
