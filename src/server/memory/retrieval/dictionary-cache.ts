import { randomBytes } from "node:crypto";
import { closeSync, constants, fstatSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";

/**
 * The bilingual word maps, kept on disk between processes (bilingual-dictionary.ts builds them in ~1 s;
 * read back they take tens of ms). The file lives in the shared temporary directory, so it is read only
 * when it is a plain file (no link followed) that this user owns, and only when it holds what was
 * written; anything else means one more build, never a failed search.
 */

/** `places`: Chinese place names (cities and provinces) the dictionary marks as such. */
export type WordMaps = { toEnglish: Map<string, string>; toChinese: Map<string, string>; places: Set<string> };

/** Fewer entries than this is not a whole dictionary. */
const MIN_ENTRIES = 1_000;

const isPairs = (value: unknown): value is [string, string][] =>
  Array.isArray(value) &&
  value.length >= MIN_ENTRIES &&
  value.every((p) => Array.isArray(p) && p.length === 2 && typeof p[0] === "string" && typeof p[1] === "string");

const isWords = (value: unknown): value is string[] =>
  Array.isArray(value) && value.length >= MIN_ENTRIES && value.every((w) => typeof w === "string");

export function readWordMaps(file: string): WordMaps | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    const stat = fstatSync(fd);
    if (!stat.isFile() || (process.getuid && stat.uid !== process.getuid())) return undefined;
    const cached = JSON.parse(readFileSync(fd, "utf8")) as { english?: unknown; chinese?: unknown; places?: unknown };
    if (!isPairs(cached.english) || !isPairs(cached.chinese) || !isWords(cached.places)) return undefined;
    return { toEnglish: new Map(cached.english), toChinese: new Map(cached.chinese), places: new Set(cached.places) };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Written to a new file of a random name (never through a link, readable by this user only), then
 * renamed into place: processes starting together never read half a file. A read-only disk only
 * costs the next start its build.
 */
export function writeWordMaps(file: string, maps: WordMaps): void {
  const partial = `${file}.${randomBytes(8).toString("hex")}.partial`;
  try {
    writeFileSync(
      partial,
      JSON.stringify({ english: [...maps.toEnglish], chinese: [...maps.toChinese], places: [...maps.places] }),
      {
        flag: "wx",
        mode: 0o600,
      },
    );
    renameSync(partial, file);
  } catch {
    rmSync(partial, { force: true });
  }
}
