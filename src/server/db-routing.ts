import { isConnectionLost, isDatabaseError } from "~/db/connection-errors";
import { formatLsn, onReplicaStateChange, parseLsn, readReplicasOf, withTimeout } from "~/db/replicas";
import type { Database } from "~/db/types";
import { env } from "~/env";
import { ServiceError } from "~/server/errors";
import { describeError, log } from "~/server/log";
import { recordRead, recordReadFallback } from "~/server/metrics";

/**
 * Where a call's database work runs, decided from its kind alone: `read` (a read-only procedure or
 * tool) may run on a read replica, `write` (everything else: writes, the reads inside them, job
 * leasing, migrations) runs on the primary. Callers say which kind they are once, at the procedure
 * (src/server/api/trpc.ts) or the tool definition (src/server/tools/registry.ts); nothing below them
 * picks a database. Without replicas (embedded mode, or no DATABASE_READ_URL) every kind runs on
 * the primary handle it was given, exactly as before.
 *
 * Read your own writes: after a write, the principal's commit position (pg_current_wal_lsn() after
 * the commit) is kept for DATABASE_READ_YOUR_WRITES_MS; a read of the same principal in that time
 * goes to a replica only once that replica has replayed past it, else to the primary. The position
 * is also handed back as a consistency token (a write's `consistency` field) that a caller may send
 * with a later read (X-Memory-Consistency), for set-ups where the read reaches another instance.
 */

export type WorkKind = "read" | "write";

/** Who the work is for: an API key or a signed-in person (what read-your-writes is kept per). */
export type Principal = { type: "api_key" | "user"; id: string };

/** The header a caller sends a write's consistency token back in. */
export const CONSISTENCY_HEADER = "x-memory-consistency";

export type RoutedWork = { kind: WorkKind; principal: Principal | null; consistency?: string | null };

// One map per process: Next.js bundles route handlers apart from the agent listener (globalThis, as the database handle).
const shared = ((globalThis as Record<symbol, unknown>)[Symbol.for("agent-memory.dbRouting")] ??= {
  recentWrites: new Map(),
  logging: false,
}) as {
  recentWrites: Map<string, { lsn: bigint; until: number }>;
  logging: boolean;
};
const recentWrites = shared.recentWrites;
const principalKey = (p: Principal) => `${p.type}:${p.id}`;

function rememberWrite(principal: Principal, lsn: bigint) {
  const now = Date.now();
  if (recentWrites.size > 50_000)
    for (const [key, entry] of recentWrites) if (entry.until <= now) recentWrites.delete(key);
  const key = principalKey(principal);
  const previous = recentWrites.get(key);
  recentWrites.set(key, {
    lsn: previous && previous.lsn > lsn ? previous.lsn : lsn,
    until: now + env.DATABASE_READ_YOUR_WRITES_MS,
  });
}

/** The WAL position a read of `principal` must see: its recent write's, or the token's, whichever is later. */
function requiredLsn(work: RoutedWork): bigint | null {
  let need: bigint | null = null;
  if (work.principal) {
    const entry = recentWrites.get(principalKey(work.principal));
    if (entry && entry.until > Date.now()) need = entry.lsn;
  }
  const token = parseLsn(work.consistency ?? undefined);
  if (token !== null && (need === null || token > need)) need = token;
  return need;
}

/** A failure of the database itself (a SQLSTATE, a lost connection), not of the call's input or rights. */
export function isDatabaseFailure(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && typeof e === "object" && depth < 5; depth++) {
    if (e instanceof ServiceError) return false;
    e = (e as { cause?: unknown }).cause;
  }
  return isDatabaseError(error);
}

const warned = new Set<string>();
function warnOnce(key: string, message: string) {
  if (warned.has(key)) return;
  warned.add(key);
  log("warn", message);
}

export type Routed<T> = { value: T; db: Database; consistency?: string };

/**
 * Runs `work` on the database its kind calls for. A read that fails on a replica for a database
 * reason (the replica went away mid-read, a recovery conflict, a statement a standby cannot run) is
 * run again on the primary, so a replica never fails a request; a lost connection also takes the
 * replica out of rotation until the monitor finds it back. Service errors (bad input, no access)
 * are the answer and pass through.
 */
export async function routeWork<T>(
  primary: Database,
  work: RoutedWork,
  run: (db: Database) => Promise<T>,
): Promise<Routed<T>> {
  const replicas = readReplicasOf(primary);
  if (!replicas) return { value: await run(primary), db: primary };
  if (work.kind === "write") {
    const value = await run(primary);
    let lsn: bigint | null = null;
    try {
      lsn = await replicas.primaryLsn();
    } catch {
      // The write is committed; without its position the next reads of this principal go by lag alone.
    }
    if (lsn === null) return { value, db: primary };
    if (work.principal) rememberWrite(work.principal, lsn);
    return { value, db: primary, consistency: formatLsn(lsn) };
  }
  const replica = await replicas.pick(requiredLsn(work));
  if (!replica) {
    recordRead("primary");
    recordReadFallback("no_replica_ready");
    return { value: await run(primary), db: primary };
  }
  try {
    // Bounded: the replica's statement_timeout ends a slow read, this a standby that stopped answering.
    const value = await (replicas.readTimeoutMs
      ? withTimeout(run(replica.db), replicas.readTimeoutMs + 2000, `read on replica ${replica.name}`)
      : run(replica.db));
    recordRead(replica.name);
    return { value, db: replica.db };
  } catch (error) {
    if (!isDatabaseFailure(error)) throw error;
    if (isConnectionLost(error)) replicas.markDown(replica, error);
    else
      warnOnce(
        `${replica.name}:${(error as { code?: unknown }).code ?? describeError(error)}`,
        `read on replica ${replica.name} failed (${describeError(error)}); it ran again on the primary. Repeats of this reason are not logged.`,
      );
    recordReadFallback("replica_failed");
    recordRead("primary");
    return { value: await run(primary), db: primary };
  }
}

/** Forget every remembered write (tests). */
export const forgetRecentWrites = () => recentWrites.clear();

// Replica state changes, once each (and each replica's first state, so one down from the start is a
// warning too), in the server's log (subscribed once per process).
if (!shared.logging) {
  shared.logging = true;
  onReplicaStateChange((status, previous) => {
    if (status.state === "up")
      log(
        "info",
        `read replica ${status.name} takes reads (${previous ? `was ${previous}; ` : ""}lag ${status.lagMs ?? "?"} ms)`,
      );
    else if (status.state === "lagging")
      log(
        "warn",
        `read replica ${status.name} is ${status.lagMs} ms behind the primary (over its lag limit, DATABASE_READ_MAX_LAG_MS): its reads go to the primary until it catches up`,
      );
    else
      log(
        "warn",
        `read replica ${status.name} is down (${status.error ?? "unreachable"}): its reads go to the primary; retrying in the background`,
      );
  });
}
