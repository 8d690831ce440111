import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { acquireDataDirLock, DataDirectoryLockedError } from "~/db/embedded-lock";

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
});

function lockedBy(owner: unknown) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "memory-lock-"));
  roots.push(root);
  const dataDir = path.join(root, "pglite");
  fs.writeFileSync(path.join(root, "pglite.lock"), typeof owner === "string" ? owner : JSON.stringify(owner));
  return { dataDir, lockPath: path.join(root, "pglite.lock") };
}

const startOf = (pid: number) => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
};
const here = {
  host: os.hostname(),
  boot: fs.existsSync("/proc/sys/kernel/random/boot_id")
    ? fs.readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim()
    : undefined,
};

describe("the embedded database's lock", () => {
  it("refuses while its owner runs, and names it", () => {
    const { dataDir } = lockedBy({ pid: process.ppid, ...here, started: startOf(process.ppid) });
    expect(() => acquireDataDirLock(dataDir)).toThrow(DataDirectoryLockedError);
    expect(() => acquireDataDirLock(dataDir)).toThrow(`in use by process ${process.ppid}`);
  });

  it.runIf(fs.existsSync("/proc/self/stat"))(
    "takes over a lock whose process id now belongs to another process (a crash, then the id reused)",
    () => {
      const { dataDir, lockPath } = lockedBy({ pid: process.ppid, ...here, started: "1" });
      const release = acquireDataDirLock(dataDir);
      expect(JSON.parse(fs.readFileSync(lockPath, "utf8"))).toMatchObject({ pid: process.pid, host: os.hostname() });
      release();
      expect(fs.existsSync(lockPath)).toBe(false);
    },
  );

  it("refuses a lock held on another host (a container sharing the folder), saying how to clear it", () => {
    const { dataDir, lockPath } = lockedBy({ pid: 1, host: "other-container", boot: "x", started: "5" });
    expect(() => acquireDataDirLock(dataDir)).toThrow(`process 1 on host other-container`);
    expect(() => acquireDataDirLock(dataDir)).toThrow(`delete ${lockPath}`);
    expect(fs.existsSync(lockPath)).toBe(true);
  });

  it("takes over the bare pid of a process that is gone (the format written before)", () => {
    const { dataDir, lockPath } = lockedBy("2147483646");
    acquireDataDirLock(dataDir)();
    expect(fs.existsSync(lockPath)).toBe(false);
  });
});
