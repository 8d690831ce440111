import { sql } from "drizzle-orm";
import type { Database } from "~/db/types";
import { pruneSignInCounters } from "~/server/auth/sign-in-throttle";
import { log } from "~/server/log";
import { pruneExpiredRecords, retentionPolicyFromEnv, type RetentionPolicy } from "./retention";

/**
 * Periodic database maintenance in the server process: retention pruning (./retention.ts) and old
 * sign-in counters (auth/sign-in-throttle.ts) in both modes, and on the embedded database what autovacuum would do.
 *
 * Embedded Postgres (PGlite) has no autovacuum: dead rows from updates, forgets and the query log are
 * never reclaimed, and the planner never gets statistics (search reads the most common lexemes from
 * them to leave very common terms out of the match, and the correlated scope statistics). The server
 * process does what autovacuum would: `VACUUM (ANALYZE)` shortly after start and then periodically.
 * It holds PGlite's single connection while it runs (a fraction of a second to a few seconds).
 */
export const MAINTENANCE_EVERY_MS = 15 * 60_000;
const FIRST_RUN_AFTER_MS = 60_000;

export async function maintainEmbeddedDatabase(db: Database): Promise<number> {
  const started = performance.now();
  await db.execute(sql`vacuum (analyze)`);
  return performance.now() - started;
}

/**
 * One maintenance pass: prune what the retention policy lets go (both modes), then, on the embedded
 * database, vacuum and analyze (server mode has autovacuum).
 */
export async function runMaintenance(
  db: Database,
  options: { vacuum: boolean; policy?: RetentionPolicy },
): Promise<string> {
  const pruned = await pruneExpiredRecords(db, options.policy ?? retentionPolicyFromEnv());
  const counters = await pruneSignInCounters(db);
  const parts = [
    `pruned ${pruned.queryLog} query log rows, ${pruned.idempotencyKeys} idempotency replies, ${pruned.jobs} finished jobs, ${counters} old sign-in counters`,
  ];
  if (options.vacuum) parts.push(`vacuum + analyze took ${Math.round(await maintainEmbeddedDatabase(db))} ms`);
  return parts.join("; ");
}

/** Runs the maintenance on a timer until `signal` aborts; never keeps the process alive by itself. */
export function scheduleMaintenance(
  db: Database,
  options: { vacuum: boolean; signal?: AbortSignal; everyMs?: number; firstAfterMs?: number; policy?: RetentionPolicy },
) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const run = async () => {
    try {
      log("info", `database maintenance: ${await runMaintenance(db, options)}`);
    } catch (error) {
      log("warn", `database maintenance failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (!options.signal?.aborted) arm(options.everyMs ?? MAINTENANCE_EVERY_MS);
  };
  const arm = (ms: number) => {
    timer = setTimeout(() => void run(), ms);
    timer.unref?.();
  };
  options.signal?.addEventListener("abort", () => clearTimeout(timer), { once: true });
  arm(options.firstAfterMs ?? FIRST_RUN_AFTER_MS);
}
