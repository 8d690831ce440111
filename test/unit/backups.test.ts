import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { backupDataDir, pruneBackups } from "~/db/backups";

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
});

function dataDirWithBackups(stamps: string[], others: string[] = []) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "memory-backups-"));
  roots.push(root);
  const dataDir = path.join(root, "pglite");
  fs.mkdirSync(dataDir);
  fs.writeFileSync(path.join(dataDir, "PG_VERSION"), "17");
  for (const name of [...stamps.map((s) => `pglite-${s}`), ...others])
    fs.mkdirSync(path.join(root, "backups", name), { recursive: true });
  return { dataDir, backups: path.join(root, "backups") };
}

describe("embedded backups", () => {
  it("keeps the newest copies of this data directory and leaves everything else in backups/ alone", () => {
    const stamps = [
      "2026-01-05T10-00-00-000Z",
      "2026-03-01T09-00-00-000Z",
      "2025-12-31T23-59-59-999Z",
      "2026-02-10T00-00-00-000Z",
      "2026-03-01T09-00-01-000Z",
    ];
    const { dataDir, backups } = dataDirWithBackups(stamps, ["other-2020-01-01T00-00-00-000Z", "pglite-keep-me"]);
    const removed = pruneBackups(dataDir, 3);
    expect(removed.map((d) => path.basename(d)).sort()).toEqual([
      "pglite-2025-12-31T23-59-59-999Z",
      "pglite-2026-01-05T10-00-00-000Z",
    ]);
    expect(fs.readdirSync(backups).sort()).toEqual([
      "other-2020-01-01T00-00-00-000Z",
      "pglite-2026-02-10T00-00-00-000Z",
      "pglite-2026-03-01T09-00-00-000Z",
      "pglite-2026-03-01T09-00-01-000Z",
      "pglite-keep-me",
    ]);
  });

  it("keeps all with 0, and a fresh copy is the newest", () => {
    const { dataDir, backups } = dataDirWithBackups(["2020-01-01T00-00-00-000Z", "2021-01-01T00-00-00-000Z"]);
    expect(pruneBackups(dataDir, 0)).toEqual([]);
    const fresh = backupDataDir(dataDir);
    expect(fs.readFileSync(path.join(fresh, "PG_VERSION"), "utf8")).toBe("17");
    pruneBackups(dataDir, 1);
    expect(fs.readdirSync(backups)).toEqual([path.basename(fresh)]);
  });
});
