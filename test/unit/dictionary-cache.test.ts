import { mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readWordMaps, writeWordMaps } from "~/server/memory/retrieval/dictionary-cache";

const maps = () => {
  const toEnglish = new Map(Array.from({ length: 1_200 }, (_, i) => [`词${i}`, `word${i}`] as [string, string]));
  const toChinese = new Map(Array.from({ length: 1_200 }, (_, i) => [`word${i}`, `词${i}`] as [string, string]));
  const places = new Set(Array.from({ length: 1_200 }, (_, i) => `地${i}`));
  return { toEnglish, toChinese, places };
};

describe("the bilingual word maps' cache file", () => {
  it("reads back what it wrote, in a file only its user can read", () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), "dict-cache-")), "maps.json");
    writeWordMaps(file, maps());
    expect(statSync(file).mode & 0o077).toBe(0);
    const read = readWordMaps(file);
    expect(read?.toEnglish.get("词7")).toBe("word7");
    expect(read?.toChinese.size).toBe(1_200);
    expect(read?.places.has("地7")).toBe(true);
  });

  it("ignores a file that is not a whole dictionary, and never follows a link", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "dict-cache-"));
    const empty = path.join(dir, "empty.json");
    writeFileSync(empty, JSON.stringify({ english: [], chinese: [] }));
    expect(readWordMaps(empty)).toBeUndefined();
    const wrongTypes = path.join(dir, "wrong.json");
    writeFileSync(
      wrongTypes,
      JSON.stringify({ english: Array(1_200).fill(["狗", 5]), chinese: Array(1_200).fill(["a", "b"]) }),
    );
    expect(readWordMaps(wrongTypes)).toBeUndefined();
    expect(readWordMaps(path.join(dir, "missing.json"))).toBeUndefined();
    const real = path.join(dir, "real.json");
    writeWordMaps(real, maps());
    const link = path.join(dir, "link.json");
    symlinkSync(real, link);
    expect(readWordMaps(link)).toBeUndefined();
    // Writing over a link replaces the link, not the file it points at.
    const target = path.join(dir, "victim.txt");
    writeFileSync(target, "keep me");
    const trap = path.join(dir, "trap.json");
    symlinkSync(target, trap);
    writeWordMaps(trap, maps());
    expect(readFileSync(target, "utf8")).toBe("keep me");
  });
});
