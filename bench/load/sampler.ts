// What the soak benchmark samples while it runs: the resident memory of the process that actually
// serves HTTP (found by the listening socket, since `next start` may hand the server to a child
// process), and the Postgres backends. Linux only (reads /proc).
import fs from "node:fs";
import type postgres from "postgres";

/** Inodes of the sockets listening on `port` (IPv4 and IPv6). */
function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    if (!fs.existsSync(table)) continue;
    for (const line of fs.readFileSync(table, "utf8").split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      // local_address is "ADDR:PORT"; state 0A is LISTEN; column 9 is the inode.
      if (cols[1]?.endsWith(`:${hexPort}`) && cols[3] === "0A" && cols[9]) inodes.add(cols[9]);
    }
  }
  return inodes;
}

/** `pid` and all its descendants, parents first. */
function processTree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    const taskDir = `/proc/${out[i]}/task`;
    let tasks: string[] = [];
    try {
      tasks = fs.readdirSync(taskDir);
    } catch {
      continue; // gone
    }
    for (const tid of tasks) {
      try {
        for (const child of fs.readFileSync(`${taskDir}/${tid}/children`, "utf8").trim().split(/\s+/))
          if (child) out.push(Number(child));
      } catch {
        // thread gone, or a kernel without the children file
      }
    }
  }
  return out;
}

/**
 * The pid that owns the socket listening on `port`: `rootPid` itself or one of its descendants.
 * Falls back to `rootPid` when no owner is found (e.g. /proc/<pid>/fd not readable).
 */
export function servingPid(rootPid: number, port: number): number {
  if (!fs.existsSync("/proc/self/status")) throw new Error("the soak benchmark reads /proc (Linux only)");
  const inodes = listeningInodes(port);
  for (const pid of processTree(rootPid)) {
    let fds: string[] = [];
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const link = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
        const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
        if (inode && inodes.has(inode)) return pid;
      } catch {
        // fd closed meanwhile
      }
    }
  }
  return rootPid;
}

/** VmRSS of `pid` in MB (MiB), or null when the process is gone. */
export function rssMB(pid: number): number | null {
  try {
    const kb = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb ? Math.round((Number(kb) / 1024) * 10) / 10 : null;
  } catch {
    return null;
  }
}

export type Backends = { total: number; client: number; benchDb: number };

/** Postgres backends now: every row of pg_stat_activity, client backends, and connections to the run's database. */
export async function pgBackends(sql: postgres.Sql, database: string): Promise<Backends> {
  const [row] = await sql<{ total: number; client: number; bench: number }[]>`
    select count(*)::int as total,
           count(*) filter (where backend_type = 'client backend')::int as client,
           count(*) filter (where datname = ${database})::int as bench
    from pg_stat_activity`;
  return { total: row!.total, client: row!.client, benchDb: row!.bench };
}

/** Least-squares slope of y over x, and the fitted value at `at`; null with fewer than two distinct x. */
export function linearFit(
  points: readonly { x: number; y: number }[],
): { slope: number; at: (x: number) => number } | null {
  const n = points.length;
  if (n < 2) return null;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const sxx = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  if (sxx === 0) return null;
  const slope = points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0) / sxx;
  return { slope, at: (x) => my + slope * (x - mx) };
}
