import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * Who holds the lock: the process id alone cannot tell a live owner from a recycled id (after a crash,
 * the same id may belong to another process), nor a process of another container sharing the folder
 * (its id means nothing in ours). So the lock also names the host, the kernel's boot and when the
 * process started (Linux; elsewhere those stay unknown and the id alone decides, as before).
 */
type LockOwner = { pid: number; host?: string; boot?: string; started?: string };

export class DataDirectoryLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly ownerPid: number,
    readonly lockPath?: string,
    readonly ownerHost?: string,
  ) {
    super(
      ownerHost
        ? `The embedded database at ${dataDir} is in use by process ${ownerPid} on host ${ownerHost} (another machine or container sharing this folder), or was, when it stopped without releasing ${lockPath}. ` +
            `Only one process may open it: stop that process; if it is gone for sure, delete ${lockPath}. Or set DATABASE_URL to share a Postgres server between processes.`
        : `The embedded database at ${dataDir} is already in use by process ${ownerPid}. ` +
            `Only one process may open it: stop that process, point MEMORY_DATA_DIR at another folder, ` +
            `or set DATABASE_URL to share a Postgres server between processes.`,
    );
    this.name = "DataDirectoryLockedError";
  }
}

const readText = (file: string): string | undefined => {
  try {
    return fs.readFileSync(file, "utf8").trim();
  } catch {
    return undefined;
  }
};

/** When a process started, in clock ticks since boot (field 22 of /proc/<pid>/stat); undefined off Linux. */
function processStart(pid: number): string | undefined {
  const stat = readText(`/proc/${pid}/stat`);
  // The command name (field 2) is parenthesised and may hold spaces: count fields after its closing paren.
  return stat?.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
}

function thisProcess(): LockOwner {
  return {
    pid: process.pid,
    host: os.hostname(),
    boot: readText("/proc/sys/kernel/random/boot_id"),
    started: processStart(process.pid),
  };
}

/** The lock file's owner: JSON, or a bare pid as written before. */
function parseOwner(text: string): LockOwner | null {
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed === "number") return { pid: parsed };
    if (parsed && typeof parsed === "object" && Number.isInteger((parsed as LockOwner).pid)) return parsed as LockOwner;
  } catch {
    // not JSON
  }
  return null;
}

/** The pid a lock file names (either format), or null: for operators' checks and the fault tests. */
export function lockOwnerPid(lockPath: string): number | null {
  return parseOwner(readText(lockPath) ?? "")?.pid ?? null;
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

/** "mine" (an earlier open of this process), "live", "elsewhere" (another host: cannot be checked from here) or "stale". */
function ownerState(owner: LockOwner, me: LockOwner): "mine" | "live" | "elsewhere" | "stale" {
  if (owner.host !== undefined && owner.host !== me.host) return "elsewhere";
  // Same host, another boot: whatever held it is gone.
  if (owner.boot !== undefined && me.boot !== undefined && owner.boot !== me.boot) return "stale";
  if (owner.pid === me.pid && (owner.started === undefined || owner.started === me.started)) return "mine";
  if (!processIsAlive(owner.pid)) return "stale";
  // A live process with that id that started at another time is not the owner: the id was reused.
  if (owner.started !== undefined) {
    const started = processStart(owner.pid);
    if (started !== undefined && started !== owner.started) return "stale";
  }
  return "live";
}

/**
 * PGlite has no cross-process locking, and two processes writing one data directory corrupt it.
 * An exclusive lock file (O_EXCL) naming its owner guards it; a lock whose owner is gone is taken over.
 */
export function acquireDataDirLock(dataDir: string): () => void {
  const lockPath = path.join(path.dirname(path.resolve(dataDir)), `${path.basename(dataDir)}.lock`);
  fs.mkdirSync(path.dirname(lockPath), { recursive: true });
  const me = thisProcess();
  const text = JSON.stringify(me);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = fs.openSync(lockPath, "wx");
      fs.writeSync(fd, text);
      fs.closeSync(fd);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        process.off("exit", release);
        try {
          if (fs.readFileSync(lockPath, "utf8").trim() === text) fs.unlinkSync(lockPath);
        } catch {
          // already gone
        }
      };
      process.on("exit", release);
      return release;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const owner = parseOwner(readText(lockPath) ?? "");
      const state = owner ? ownerState(owner, me) : "stale";
      if (owner && state === "live") throw new DataDirectoryLockedError(path.resolve(dataDir), owner.pid);
      if (owner && state === "elsewhere")
        throw new DataDirectoryLockedError(path.resolve(dataDir), owner.pid, lockPath, owner.host);
      // Stale: a crashed process (or our own from an earlier open that was not released).
      fs.rmSync(lockPath, { force: true });
    }
  }
  throw new Error(`Could not acquire the lock for ${dataDir}`);
}
