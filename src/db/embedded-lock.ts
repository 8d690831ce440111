import fs from "node:fs";
import path from "node:path";

export class DataDirectoryLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly ownerPid: number,
  ) {
    super(
      `The embedded database at ${dataDir} is already in use by process ${ownerPid}. ` +
        `Only one process may open it: stop that process, point MEMORY_DATA_DIR at another folder, ` +
        `or set DATABASE_URL to share a Postgres server between processes.`,
    );
    this.name = "DataDirectoryLockedError";
  }
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * PGlite has no cross-process locking, and two processes writing one data directory corrupt it.
 * An exclusive lock file (O_EXCL) with the owner's pid guards it; a lock left by a dead process is taken over.
 */
export function acquireDataDirLock(dataDir: string): () => void {
  const lockPath = path.join(path.dirname(path.resolve(dataDir)), `${path.basename(dataDir)}.lock`);
  fs.mkdirSync(path.dirname(lockPath), { recursive: true });
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = fs.openSync(lockPath, "wx");
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        process.off("exit", release);
        try {
          if (fs.readFileSync(lockPath, "utf8").trim() === String(process.pid)) fs.unlinkSync(lockPath);
        } catch {
          // already gone
        }
      };
      process.on("exit", release);
      return release;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const ownerPid = Number.parseInt(fs.readFileSync(lockPath, "utf8").trim(), 10);
      if (Number.isFinite(ownerPid) && ownerPid !== process.pid && processIsAlive(ownerPid)) {
        throw new DataDirectoryLockedError(path.resolve(dataDir), ownerPid);
      }
      // Stale lock from a crashed process (or our own from an earlier open that was not released).
      fs.rmSync(lockPath, { force: true });
    }
  }
  throw new Error(`Could not acquire the lock for ${dataDir}`);
}
