import fs from "node:fs";

/** USER_HZ on Linux: /proc reports CPU time in these ticks. */
const TICKS_PER_SECOND = 100;

/**
 * One process's command name and CPU seconds (user + system) from /proc/<pid>/stat; undefined when it
 * is gone (or this is not Linux).
 */
export function processCpu(pid: number): { comm: string; seconds: number } | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // The command name may hold spaces and parentheses: it ends at the last ")".
  const close = stat.lastIndexOf(")");
  const comm = stat.slice(stat.indexOf("(") + 1, close);
  const fields = stat.slice(close + 2).split(" ");
  // After "(comm) ": state is field 3, so utime (14) and stime (15) are at 11 and 12 here.
  return { comm, seconds: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND };
}
