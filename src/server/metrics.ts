import { AsyncLocalStorage } from "node:async_hooks";
import { sql } from "drizzle-orm";
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { DatabaseHandle } from "~/db/client";
import { poolStatsOf } from "~/db/pool-stats";
import { queryRows } from "~/db/raw";
import type { Database } from "~/db/types";
import { describeError, log } from "~/server/log";

/**
 * Prometheus metrics of this process (GET /api/metrics, docs/operations.md "Metrics"). Request
 * counters are updated where the work happens (tRPC procedures, the tool registry, the rate limits,
 * read routing); database, queue and replica figures are read when Prometheus scrapes.
 */
export type Surface = "tool" | "dashboard" | "agent";

type Shared = { metrics?: ReturnType<typeof createMetrics>; database?: () => Promise<DatabaseHandle> };
// Next.js bundles route handlers apart from start-up code (instrumentation, the agent listener): one
// set of metrics per process, kept on globalThis as the database handle is.
const shared = ((globalThis as Record<symbol, unknown>)[Symbol.for("agent-memory.metrics")] ??= {}) as Shared;

/** The handle whose pools, queue and replicas the scrape reports (set at start-up; tests set their own). */
export function setMetricsDatabase(get: () => Promise<DatabaseHandle>) {
  shared.database = get;
}

function createMetrics() {
  const metricsRegistry = new Registry();

  const requests = new Counter({
    name: "memory_requests_total",
    help: "Calls answered, by surface (tool: agent tools over any transport; dashboard: tRPC procedures; agent: other agent procedures), name and outcome.",
    labelNames: ["surface", "name", "outcome"] as const,
    registers: [metricsRegistry],
  });
  const duration = new Histogram({
    name: "memory_request_duration_seconds",
    help: "Time to answer a call, by surface and name.",
    labelNames: ["surface", "name"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [metricsRegistry],
  });
  const errors = new Counter({
    name: "memory_request_errors_total",
    help: "Calls that failed, by surface, name and the reason callers get (rate_limited, invalid_input, database_unavailable, internal_error, …).",
    labelNames: ["surface", "name", "reason"] as const,
    registers: [metricsRegistry],
  });
  const rateLimited = new Counter({
    name: "memory_rate_limit_refusals_total",
    help: "Calls refused for being over a per-minute limit (agent: per API key; dashboard: per person).",
    labelNames: ["surface"] as const,
    registers: [metricsRegistry],
  });
  const reads = new Counter({
    name: "memory_db_reads_total",
    help: "Read-only calls by where they ran: primary or a replica (host:port/db).",
    labelNames: ["target"] as const,
    registers: [metricsRegistry],
  });
  const readFallbacks = new Counter({
    name: "memory_db_read_fallbacks_total",
    help: "Reads sent to the primary instead of a replica, by reason (no_replica_ready: none up and caught up; replica_failed: the replica failed the read, which was rerun on the primary).",
    labelNames: ["reason"] as const,
    registers: [metricsRegistry],
  });

  const handleOf = async () => shared.database?.();

  const poolGauge = (
    name: string,
    help: string,
    read: (stats: NonNullable<ReturnType<typeof poolStatsOf>>) => number,
  ) =>
    new Gauge({
      name,
      help,
      labelNames: ["pool"] as const,
      registers: [metricsRegistry],
      async collect() {
        this.reset();
        const handle = await handleOf().catch(() => undefined);
        if (!handle) return;
        const pools: [string, Database][] = [
          ["primary", handle.db],
          ...(handle.readReplicas?.replicas.map((r) => [r.name, r.db] as [string, Database]) ?? []),
        ];
        for (const [pool, db] of pools) {
          const stats = poolStatsOf(db);
          if (stats) this.set({ pool }, read(stats));
        }
      },
    });

  poolGauge("memory_db_pool_max_connections", "Connections a pool may open (DB_POOL_MAX).", (s) => s.max);
  poolGauge(
    "memory_db_pool_in_use",
    "Connections held by a transaction now (statements outside transactions share the pool's connections).",
    (s) => s.reserved,
  );
  poolGauge("memory_db_pool_waiting", "Transactions waiting for a free connection.", (s) => s.waiting);

  new Gauge({
    name: "memory_info",
    help: "1, labelled with the database mode (embedded or server) and how many read replicas are configured.",
    labelNames: ["mode", "replicas"] as const,
    registers: [metricsRegistry],
    async collect() {
      this.reset();
      const handle = await handleOf().catch(() => undefined);
      if (handle) this.set({ mode: handle.mode, replicas: String(handle.readReplicas?.replicas.length ?? 0) }, 1);
    },
  });

  new Gauge({
    name: "memory_db_replica_up",
    help: "1 while a read replica takes reads; 0 while it is down or lagging (see state).",
    labelNames: ["replica", "state"] as const,
    registers: [metricsRegistry],
    async collect() {
      this.reset();
      const handle = await handleOf().catch(() => undefined);
      for (const s of handle?.readReplicas?.statuses() ?? [])
        this.set({ replica: s.name, state: s.state }, s.state === "up" ? 1 : 0);
    },
  });

  new Gauge({
    name: "memory_db_replica_lag_seconds",
    help: "How far a read replica's replay is behind the primary (absent while it is unreachable).",
    labelNames: ["replica"] as const,
    registers: [metricsRegistry],
    async collect() {
      this.reset();
      const handle = await handleOf().catch(() => undefined);
      for (const s of handle?.readReplicas?.statuses() ?? [])
        if (s.lagMs !== null) this.set({ replica: s.name }, s.lagMs / 1000);
    },
  });

  type JobRow = { type: string; status: string; count: number; oldest: number | null };

  /** One statement per scrape, shared by the queue gauges (each gauge's collect awaits the same promise). */
  let jobScrape: { at: number; rows: Promise<JobRow[]> } | undefined;
  function jobRows(): Promise<JobRow[]> {
    const now = Date.now();
    if (jobScrape && now - jobScrape.at < 1000) return jobScrape.rows;
    const rows = (async () => {
      const handle = await handleOf().catch(() => undefined);
      if (!handle) return [];
      // Operator-wide on purpose: the queue is one table for every organisation.
      const found = await queryRows<{
        type: string;
        status: string;
        count: string | number;
        oldest: string | number | null;
      }>(
        handle.db,
        sql`select type, status, count(*) as count,
                   extract(epoch from now() - min(run_at) filter (where status = 'queued' and run_at <= now())) as oldest
              from memory_jobs where status in ('queued', 'running', 'dead') group by type, status`,
      ).catch((error: unknown) => {
        log("warn", `metrics: the job queue could not be read: ${describeError(error)}`);
        return [];
      });
      return found.map((r) => ({
        type: r.type,
        status: r.status,
        count: Number(r.count),
        oldest: r.oldest === null ? null : Number(r.oldest),
      }));
    })();
    jobScrape = { at: now, rows };
    return rows;
  }

  const jobGauge = (name: string, help: string, pick: (rows: JobRow[]) => [string, number][]) =>
    new Gauge({
      name,
      help,
      labelNames: ["type"] as const,
      registers: [metricsRegistry],
      async collect() {
        this.reset();
        for (const [type, value] of pick(await jobRows())) this.set({ type }, value);
      },
    });

  jobGauge("memory_jobs_queued", "Background jobs waiting (due or scheduled), by type.", (rows) =>
    rows.filter((r) => r.status === "queued").map((r) => [r.type, r.count]),
  );
  jobGauge("memory_jobs_running", "Background jobs leased by a worker now, by type.", (rows) =>
    rows.filter((r) => r.status === "running").map((r) => [r.type, r.count]),
  );
  jobGauge(
    "memory_jobs_oldest_due_seconds",
    "Age of the oldest job that is due and not yet leased, by type (0 absent: none due).",
    (rows) =>
      rows.filter((r) => r.status === "queued" && r.oldest !== null).map((r) => [r.type, Math.max(0, r.oldest!)]),
  );
  jobGauge(
    "memory_jobs_dead_letters",
    "Jobs that failed every attempt and wait for an operator (npm run memory -- jobs), by type.",
    (rows) => rows.filter((r) => r.status === "dead").map((r) => [r.type, r.count]),
  );

  return { metricsRegistry, requests, duration, errors, rateLimited, reads, readFallbacks };
}

const metrics = (shared.metrics ??= createMetrics());

// ---- recording ---------------------------------------------------------------------------------------

/** Set while an outer layer (a tRPC procedure) waits to hear whether an inner one counted its call. */
const counting = new AsyncLocalStorage<{ counted: boolean }>();

/**
 * Runs `run`, telling whether a recordRequest inside it counted the call already: tools.<name> over
 * tRPC is counted by the tool registry (surface `tool`), so the procedure counts only what was refused
 * before the tool ran (a rate limit, a missing key) and each call is counted once.
 */
export async function countingInside<T>(run: () => Promise<T>): Promise<{ value: T; counted: boolean }> {
  const state = { counted: false };
  const value = await counting.run(state, run);
  return { value, counted: state.counted };
}

/** One answered call: its time, and its failure reason when it failed. */
export function recordRequest(surface: Surface, name: string, seconds: number, failure?: string) {
  const scope = counting.getStore();
  if (scope) scope.counted = true;
  const { requests, duration, errors, rateLimited } = metrics;
  requests.inc({ surface, name, outcome: failure ? "error" : "ok" });
  duration.observe({ surface, name }, seconds);
  if (failure) {
    errors.inc({ surface, name, reason: failure });
    if (failure === "rate_limited") rateLimited.inc({ surface: surface === "dashboard" ? "dashboard" : "agent" });
  }
}

/** A dashboard call refused by the per-person limit before any procedure ran. */
export const recordDashboardRateLimited = () => metrics.rateLimited.inc({ surface: "dashboard" });

export const recordRead = (target: string) => metrics.reads.inc({ target });
export const recordReadFallback = (reason: "no_replica_ready" | "replica_failed") =>
  metrics.readFallbacks.inc({ reason });

/** The metrics in Prometheus' text format, and its content type. */
export async function metricsText(): Promise<{ body: string; contentType: string }> {
  return { body: await metrics.metricsRegistry.metrics(), contentType: metrics.metricsRegistry.contentType };
}
