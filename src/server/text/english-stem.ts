/**
 * A deliberately light English stemmer: strips common inflections so "painting", "painted" and
 * "paints" share "paint". Used as a *prefix* (`paint:*`) by full-text queries and as a feature by
 * the local embedding, so over-stemming costs little and short words stay as they are.
 */

const SUFFIXES: readonly [string, string][] = [
  ["ational", "ate"],
  ["ization", "ize"],
  ["fulness", "ful"],
  ["iveness", "ive"],
  ["ousness", "ous"],
  ["ements", ""],
  ["ement", ""],
  ["ments", ""],
  ["ment", ""],
  ["ness", ""],
  ["ings", ""],
  ["ing", ""],
  ["ies", ""],
  ["ied", ""],
  ["ions", ""],
  ["ion", ""],
  ["edly", ""],
  ["ed", ""],
  ["ers", ""],
  ["er", ""],
  ["ly", ""],
  ["es", ""],
  ["s", ""],
];

const MIN_STEM = 3;
const LATIN_WORD = /^[a-z]+$/;

/** The stem of a lower-case Latin word, or the word itself when it is short or not plain Latin. */
export function englishStem(word: string): string {
  if (word.length < 4 || !LATIN_WORD.test(word)) return word;
  for (const [suffix, replacement] of word.length >= 5 ? SUFFIXES : []) {
    if (!word.endsWith(suffix)) continue;
    // "glass", "bus", "this": a final s that is no plural.
    if ((suffix === "s" || suffix === "es") && /(ss|us|is)$/.test(word)) return word;
    let stem = word.slice(0, -suffix.length) + replacement;
    if (stem.length < MIN_STEM || !/[aeiouy]/.test(stem)) return word;
    // "running" → "runn" → "run"; "stopped" → "stopp" → "stop".
    const last = stem.at(-1)!;
    if (stem.length > MIN_STEM && last === stem.at(-2) && !"lsz".includes(last)) stem = stem.slice(0, -1);
    return stem;
  }
  // "dance" → "danc" and "study" → "stud", as "danced" and "studies" become.
  if (word.endsWith("e") && !word.endsWith("ee")) return word.slice(0, -1);
  if (word.length >= 5 && word.endsWith("y") && !/[aeiou]y$/.test(word)) return word.slice(0, -1);
  return word;
}
