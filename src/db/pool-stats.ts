import type { DbOrTx } from "./types";

/**
 * What a server-mode pool is doing, for /api/metrics: its size, the connections transactions hold,
 * and the transactions waiting for one. Statements outside a transaction share connections without
 * holding them (postgres.js pipelines them), so they are not counted as in use.
 */
export type PoolStats = { max: number; reserved: number; waiting: number };

// Shared on globalThis with the database handle (Next.js bundles route handlers separately).
const statsOf = ((globalThis as Record<symbol, unknown>)[Symbol.for("agent-memory.poolStats")] ??= new WeakMap<
  object,
  PoolStats
>()) as WeakMap<object, PoolStats>;

export const registerPoolStats = (db: DbOrTx, stats: PoolStats) => void statsOf.set(db, stats);

/** The pool figures of a server-mode handle; undefined for PGlite (one connection, no pool). */
export const poolStatsOf = (db: DbOrTx): PoolStats | undefined => statsOf.get(db);
