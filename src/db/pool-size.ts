import { availableParallelism } from "node:os";

/**
 * Connections per process when DB_POOL_MAX is not set: twice the cores, at least 4 and at most 10. On
 * a 2-core machine running Postgres too, 4 served 7–9 % more requests than 10 at 8 and 32 concurrent
 * callers (fewer backends competing for the cores, and statements queued behind a busy connection
 * share its socket writes) and the same at 1 (docs/history/performance-rounds.md, round 9).
 */
export const defaultDbPoolMax = (cores = availableParallelism()) => Math.min(10, Math.max(4, 2 * cores));
