// What the load and soak benchmarks share: the run's database (a fresh Postgres database or a PGlite
// directory), seeding it, the workload every driver run sends, the servers' environment, forking the
// driver process, and writing the JSON report.
import { fork } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDatabase } from "~/db/client";
import { defaultDbPoolMax } from "~/db/pool-size";
import { queryBank, rng } from "./corpus";
import type { HttpJob, HttpResult, IntervalReport, Mix, SqlJob, SqlResult } from "./driver";
import { seed, type SeedResult } from "./seed";
import { ROOT, type Servers } from "./server";
import { benchClient } from "./pg-client";

/** Command-line options both benchmarks take (node:util parseArgs). */
export const BENCH_OPTIONS = {
  users: { type: "string", default: "200" },
  "database-url": { type: "string", default: "postgres://postgres@127.0.0.1:5432/postgres" },
  embedded: { type: "boolean", default: false },
  keep: { type: "boolean", default: false },
  build: { type: "boolean", default: false },
  "pool-max": { type: "string" },
  /** Calls per minute per key on the server (RATE_LIMIT_PER_MINUTE); 0 (default) turns the limiter off. */
  "rate-limit": { type: "string", default: "0" },
  searches: { type: "string", default: "300" },
  "memory-writes": { type: "string", default: "300" },
  seed: { type: "string", default: "42" },
  /** yes / no / auto (yes from 500,000 cards): build the card indexes after the bulk insert, as a restore does. */
  "index-after-load": { type: "string", default: "auto" },
} as const;

/** Whether seeding builds the card indexes after its bulk insert (see bench/load/index-after-load.ts). */
export function indexAfterLoad(option: string, cards: number): boolean {
  if (option !== "auto" && option !== "yes" && option !== "no")
    throw new Error(`--index-after-load must be yes, no or auto, not ${option}`);
  return option === "yes" || (option === "auto" && cards >= 500_000);
}

/** The server's pool size for the report: `--pool-max`, else the server's own default; embedded has none. */
export const reportedPoolMax = (option: string | undefined, embedded: boolean): number | null =>
  embedded ? null : Number(option ?? defaultDbPoolMax());

/** The mixed workload of both benchmarks (percent of requests). */
export const MIX: Mix = { search: 70, context: 10, write: 15, forget: 5, ping: 0 };

export const loadavg = () => os.loadavg().map((x) => Math.round(x * 100) / 100);

export const timeStamp = () => new Date().toISOString().replace(/[:.]/g, "-");

export function machineInfo(postgresVersion: string | null) {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpuModel: cpus[0]?.model ?? "?",
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    postgres: postgresVersion,
  };
}

/** The first fields of every report: what ran, when, where, and how busy the machine was. */
export function reportHeader(
  benchmark: string,
  params: { label?: string; startedAt: string; embedded: boolean; postgresVersion: string | null; loadStart: number[] },
) {
  return {
    benchmark,
    label: params.label ?? null,
    startedAt: params.startedAt,
    finishedAt: new Date().toISOString(),
    mode: params.embedded ? ("embedded" as const) : ("server" as const),
    machine: machineInfo(params.postgresVersion),
    loadavg: { start: params.loadStart, end: loadavg() },
  };
}

export type BenchTarget = {
  embedded: boolean;
  /** Server mode: the run's own database (null in embedded mode). */
  url: string | null;
  /** Embedded mode: the PGlite directory (under the run's temporary folder). */
  dataDir: string;
  /** The database's name on the server (server mode). */
  name: string;
  /** The maintenance database the run's database was created from. */
  adminUrl: string;
  postgresVersion: string | null;
  /** Drops the run's database (server mode) unless it is to be kept. */
  drop: () => Promise<void>;
};

/** Server mode: creates `memory_bench_<time>` next to `databaseUrl`'s database; embedded: a PGlite directory in `runDir`. */
export async function createTarget(params: {
  embedded: boolean;
  databaseUrl: string;
  runDir: string;
  stamp: string;
  keep: boolean;
  log: (line: string) => void;
}): Promise<BenchTarget> {
  const name = `memory_bench_${params.stamp.toLowerCase().replace(/[^a-z0-9]/g, "_")}`.slice(0, 60);
  const dataDir = path.join(params.runDir, "pglite");
  if (params.embedded)
    return {
      embedded: true,
      url: null,
      dataDir,
      name,
      adminUrl: params.databaseUrl,
      postgresVersion: null,
      drop: async () => {},
    };
  const dbUrl = new URL(params.databaseUrl);
  dbUrl.pathname = `/${name}`;
  const admin = benchClient(params.databaseUrl, { max: 1, onnotice: () => {} });
  const postgresVersion = (await admin`select version() as v`)[0]!.v as string;
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const drop = async () => {
    if (params.keep) return params.log(`kept database ${dbUrl.toString()}`);
    const again = benchClient(params.databaseUrl, { max: 1, onnotice: () => {} });
    try {
      await again.unsafe(`drop database if exists ${name} with (force)`);
    } catch (error) {
      params.log(`could not drop ${name}: ${String(error)}`);
    } finally {
      await again.end();
    }
  };
  return { embedded: false, url: dbUrl.toString(), dataDir, name, adminUrl: params.databaseUrl, postgresVersion, drop };
}

/** Migrates and seeds the target in this process (the server is not running yet). */
export async function seedTarget(
  target: BenchTarget,
  params: Omit<Parameters<typeof seed>[1], "log">,
  log: (line: string) => void,
): Promise<SeedResult> {
  log(`seeding ${target.url ?? target.dataDir}`);
  const handle = await openDatabase(target.url ? { url: target.url, poolMax: 8 } : { dataDir: target.dataDir });
  try {
    return await seed(handle.db, { ...params, log });
  } finally {
    await handle.close();
  }
}

export type Workload = Pick<HttpJob, "users" | "searches" | "queries">;

/** The searches the drivers send ((member, question) pairs, deterministic for the seed) and every member's key and session. */
export function workload(seeded: SeedResult, params: { seed: number; searches: number }): Workload {
  const r = rng(params.seed + 1);
  const queries = queryBank();
  const searches = Array.from({ length: params.searches }, () => ({
    user: r.int(seeded.users.length),
    queryText: r.pick(queries),
  }));
  const users = seeded.users.map((u) => ({ secret: u.secret, session: u.sessions[0]! }));
  return { users, searches, queries };
}

/** The production server's environment for a benchmark: no rate limit, no inline worker, quiet logs. */
export function serverEnv(
  target: BenchTarget,
  params: { runDir: string; stamp: string; poolMax?: string; rateLimit: string },
): Record<string, string> {
  return {
    RATE_LIMIT_PER_MINUTE: params.rateLimit,
    MEMORY_INLINE_WORKER: "false",
    LOG_LEVEL: "warn",
    NEXTAUTH_SECRET: `bench-${params.stamp}-secret-value`,
    MEMORY_DATA_DIR: params.runDir,
    DATABASE_URL: target.url ?? "",
    ...(params.poolMax ? { DB_POOL_MAX: params.poolMax } : {}),
  };
}

/** Runs one job in a separate driver process; `onInterval` hears each interval report of an http job with `intervalS`. */
export function runDriver<T extends HttpResult | SqlResult>(
  job: HttpJob | SqlJob,
  onInterval?: (interval: IntervalReport) => void,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(ROOT, "bench", "load", "driver.ts"), [], {
      cwd: ROOT,
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    let settled = false;
    child.on("message", (message: { type: string; result?: T; interval?: IntervalReport; error?: string }) => {
      if (message.type === "interval") return onInterval?.(message.interval!);
      settled = true;
      if (message.type === "result") resolve(message.result!);
      else reject(new Error(`load driver failed: ${message.error}`));
    });
    child.once("exit", (code) => {
      if (!settled) reject(new Error(`load driver exited with code ${code} before reporting`));
    });
    child.send({ type: "run", job });
  });
}

export type Run = {
  runDir: string;
  stamp: string;
  target?: BenchTarget;
  servers?: Servers;
  cleanup: () => Promise<void>;
};

/** A run's temporary folder and clean-up (stop the servers, drop the database, remove the folder), also on Ctrl+C. */
export function startRun(params: { name: string; keep: boolean }): Run {
  const run: Run = {
    runDir: fs.mkdtempSync(path.join(os.tmpdir(), `memory-bench-${params.name}-`)),
    stamp: timeStamp(),
    cleanup: async () => {
      await run.servers?.stop();
      await run.target?.drop();
      if (!params.keep) fs.rmSync(run.runDir, { recursive: true, force: true });
    },
  };
  process.once("SIGINT", () => void run.cleanup().finally(() => process.exit(130)));
  return run;
}

/** Error lines the servers logged (at most 50). */
export function serverErrorLines(servers: Servers): string[] {
  return servers.logs
    .flatMap((file) =>
      fs
        .readFileSync(file, "utf8")
        .split("\n")
        .filter((line) => / ERROR |Error:/.test(line)),
    )
    .slice(0, 50);
}

/** Writes `bench/results/<name>.json` and returns its path. */
export function writeResult(name: string, report: unknown): string {
  fs.mkdirSync(path.join(ROOT, "bench", "results"), { recursive: true });
  const file = path.join(ROOT, "bench", "results", `${name}.json`);
  fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  return file;
}
