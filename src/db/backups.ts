import fs from "node:fs";
import path from "node:path";

/**
 * The embedded database's copies taken before a migration (the data directory is copied aside before
 * its schema changes: docs/operations.md). They live next to it in `backups/<name>-<ISO stamp>`, so names sort by age.
 */
const backupsRoot = (dataDir: string) => path.join(path.dirname(path.resolve(dataDir)), "backups");

export function backupDataDir(dataDir: string): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const backupDir = path.join(backupsRoot(dataDir), `${path.basename(dataDir)}-${stamp}`);
  fs.mkdirSync(path.dirname(backupDir), { recursive: true });
  fs.cpSync(dataDir, backupDir, { recursive: true });
  return backupDir;
}

/**
 * Puts the copy back: copied next to the directory first, then swapped in by two renames, so a copy that
 * fails (a full disk) leaves the directory as it was instead of half restored. The copy is then removed:
 * it is the directory now, and a service restarted in a loop on a failing migration would otherwise
 * add a full copy per attempt.
 */
export function restoreDataDir(dataDir: string, backupDir: string) {
  const target = path.resolve(dataDir);
  const staging = `${target}.restoring-${Date.now()}`;
  try {
    fs.cpSync(backupDir, staging, { recursive: true });
  } catch (error) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  const failedDir = `${target}.failed-${Date.now()}`;
  fs.renameSync(target, failedDir);
  fs.renameSync(staging, target);
  fs.rmSync(failedDir, { recursive: true, force: true });
  fs.rmSync(backupDir, { recursive: true, force: true });
}

/**
 * Why this data directory must not be opened as a new, empty database: it holds no database, yet copies
 * of one exist (taken before a migration, or left by a restore that did not finish). PGlite would
 * create an empty database there and the service would start on it as if nothing had been lost.
 */
export function missingDatabaseWithCopies(dataDir: string): string | null {
  const target = path.resolve(dataDir);
  if (fs.existsSync(path.join(target, "PG_VERSION"))) return null;
  const base = path.basename(target);
  const parent = path.dirname(target);
  const leftovers = fs.existsSync(parent)
    ? fs
        .readdirSync(parent)
        .filter((name) => name.startsWith(`${base}.failed-`) || name.startsWith(`${base}.restoring-`))
    : [];
  const root = backupsRoot(dataDir);
  const copies = fs.existsSync(root) ? fs.readdirSync(root).filter((name) => name.startsWith(`${base}-`)) : [];
  if (!leftovers.length && !copies.length) return null;
  const found = [...leftovers.map((name) => path.join(parent, name)), ...copies.map((name) => path.join(root, name))];
  return `The embedded database at ${target} is missing or empty, but copies of it exist (${found.join(", ")}). Nothing was opened, so no empty database replaced it: restore the newest copy into ${target} (docs/operations.md, Restore), or move these copies away to start a new, empty database.`;
}

/**
 * Keeps the newest `keep` copies of this data directory (each is a full copy of the database) and
 * removes the older ones; 0 keeps all. Called only after a migration succeeded. Returns what it removed.
 */
export function pruneBackups(dataDir: string, keep: number): string[] {
  if (keep <= 0) return [];
  const root = backupsRoot(dataDir);
  if (!fs.existsSync(root)) return [];
  const prefix = `${path.basename(dataDir)}-`;
  const copies = fs
    .readdirSync(root, { withFileTypes: true })
    .filter(
      (entry) =>
        entry.isDirectory() &&
        entry.name.startsWith(prefix) &&
        /^\d{4}-\d{2}-\d{2}T/.test(entry.name.slice(prefix.length)),
    )
    .map((entry) => entry.name)
    .sort();
  const removed = copies.slice(0, Math.max(0, copies.length - keep)).map((name) => path.join(root, name));
  for (const dir of removed) fs.rmSync(dir, { recursive: true, force: true });
  return removed;
}
