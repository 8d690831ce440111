import fs from "node:fs";
import path from "node:path";

/**
 * The embedded database's copies taken before a migration (002: copy the data directory aside before
 * changing its schema). They live next to it in `backups/<name>-<ISO stamp>`, so names sort by age.
 */
const backupsRoot = (dataDir: string) => path.join(path.dirname(path.resolve(dataDir)), "backups");

export function backupDataDir(dataDir: string): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const backupDir = path.join(backupsRoot(dataDir), `${path.basename(dataDir)}-${stamp}`);
  fs.mkdirSync(path.dirname(backupDir), { recursive: true });
  fs.cpSync(dataDir, backupDir, { recursive: true });
  return backupDir;
}

export function restoreDataDir(dataDir: string, backupDir: string) {
  const failedDir = `${path.resolve(dataDir)}.failed-${Date.now()}`;
  fs.renameSync(dataDir, failedDir);
  fs.cpSync(backupDir, dataDir, { recursive: true });
  fs.rmSync(failedDir, { recursive: true, force: true });
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
    .filter((entry) => entry.isDirectory() && entry.name.startsWith(prefix) && /^\d{4}-\d{2}-\d{2}T/.test(entry.name.slice(prefix.length)))
    .map((entry) => entry.name)
    .sort();
  const removed = copies.slice(0, Math.max(0, copies.length - keep)).map((name) => path.join(root, name));
  for (const dir of removed) fs.rmSync(dir, { recursive: true, force: true });
  return removed;
}
