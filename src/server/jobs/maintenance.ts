import { sql } from "drizzle-orm";
import type { Database } from "~/db/types";
import { log } from "~/server/log";

/**
 * Embedded Postgres (PGlite) has no autovacuum: dead rows from updates, forgets and the query log are
 * never reclaimed, and the planner never gets statistics (search reads the most common lexemes from
 * them to leave very common terms out of the match, and the correlated scope statistics). The server
 * process does what autovacuum would: `VACUUM (ANALYZE)` shortly after start and then periodically.
 * It holds PGlite's single connection while it runs (a fraction of a second to a few seconds).
 */
export const EMBEDDED_MAINTENANCE_EVERY_MS = 15 * 60_000;
const FIRST_RUN_AFTER_MS = 60_000;

export async function maintainEmbeddedDatabase(db: Database): Promise<number> {
  const started = performance.now();
  await db.execute(sql`vacuum (analyze)`);
  return performance.now() - started;
}

/** Runs the maintenance on a timer until `signal` aborts; never keeps the process alive by itself. */
export function scheduleEmbeddedMaintenance(db: Database, options: { signal?: AbortSignal; everyMs?: number; firstAfterMs?: number } = {}) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const run = async () => {
    try {
      const ms = await maintainEmbeddedDatabase(db);
      log("info", `embedded database maintenance (vacuum, analyze) took ${Math.round(ms)} ms`);
    } catch (error) {
      log("warn", `embedded database maintenance failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (!options.signal?.aborted) arm(options.everyMs ?? EMBEDDED_MAINTENANCE_EVERY_MS);
  };
  const arm = (ms: number) => {
    timer = setTimeout(() => void run(), ms);
    timer.unref?.();
  };
  options.signal?.addEventListener("abort", () => clearTimeout(timer), { once: true });
  arm(options.firstAfterMs ?? FIRST_RUN_AFTER_MS);
}
