// `npm run bench:cpu -- [--cards 100000] [--mix search=70,context=10,write=15,forget=5 (or ping=100)] [--concurrency 8]
//                       [--duration 15] [--runs 2] [--reseed] [--label X] [--profile DIR]`
//
// What one request costs each process: the production server against a kept, already seeded database
// (`memory_cpu_<cards>`, seeded on first use and kept with its workload in bench/.cache/), driven by
// the load driver for a few short closed-loop runs, with the CPU time of the server, of Postgres (all
// its processes) and of everything else (the driver, this process) read from /proc before and after
// each run. Runs of two builds alternated on the same database are how a change is judged: single
// whole benchmark runs on a shared 2-core VM spread by ±10 %. Linux only. Prints one line per run and
// writes bench/results/cpu-<time>.json.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { type ForgetTarget, type HttpResult, type Mix } from "./load/driver";
import {
  BENCH_OPTIONS,
  MIX,
  reportHeader,
  runDriver,
  indexAfterLoad,
  seedTarget,
  serverEnv,
  timeStamp,
  workload,
  writeResult,
  type BenchTarget,
  type Workload,
} from "./load/harness";
import { opReports } from "./load/report";
import { ensureBuild, ROOT, startServers } from "./load/server";
import { benchClient } from "./load/pg-client";
import { processCpu } from "./lib/process-cpu";

const { values: args } = parseArgs({
  options: {
    ...BENCH_OPTIONS,
    cards: { type: "string", default: "100000" },
    mix: { type: "string" },
    concurrency: { type: "string", default: "8" },
    duration: { type: "string", default: "15" },
    warmup: { type: "string", default: "5" },
    runs: { type: "string", default: "2" },
    reseed: { type: "boolean", default: false },
    label: { type: "string" },
    /** Write a V8 CPU profile of the server to this folder (when it stops). */
    profile: { type: "string" },
    /** Searches without a turn session (the key's `session:*` grant applies), as MCP clients that name none send them. */
    turnless: { type: "boolean", default: false },
  },
});
const log = (line: string) => console.log(`[cpu] ${line}`);
const cards = Number(args.cards);

/** `search=100` or `search=70,context=10,…`: the operations not named get 0. */
function parseMix(text: string | undefined): Mix {
  if (!text) return MIX;
  const mix: Mix = { search: 0, context: 0, write: 0, forget: 0, ping: 0 };
  for (const part of text.split(",")) {
    const [op, share] = part.split("=");
    if (!op || !(op in mix) || !Number(share))
      throw new Error(`--mix: "${part}" is not op=share with op one of ${Object.keys(mix).join(", ")}`);
    mix[op as keyof Mix] = Number(share);
  }
  return mix;
}

/** CPU seconds (user + system) of every process, by pid, with its command name. */
function cpuByProcess(): Map<number, { comm: string; seconds: number }> {
  const out = new Map<number, { comm: string; seconds: number }>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const cpu = processCpu(Number(entry)); // undefined: exited meanwhile
    if (cpu) out.set(Number(entry), cpu);
  }
  return out;
}

/** CPU seconds spent between two snapshots by the server's processes, Postgres's, and everything else. */
function cpuSpent(
  before: ReturnType<typeof cpuByProcess>,
  after: ReturnType<typeof cpuByProcess>,
  serverPids: Set<number>,
) {
  const spent = { server: 0, postgres: 0, other: 0 };
  const others = new Map<string, number>();
  for (const [pid, now] of after) {
    const delta = now.seconds - (before.get(pid)?.seconds ?? 0);
    if (serverPids.has(pid)) spent.server += delta;
    else if (now.comm === "postgres") spent.postgres += delta;
    else {
      spent.other += delta;
      if (delta > 0) others.set(now.comm, (others.get(now.comm) ?? 0) + delta);
    }
  }
  /** The other processes that used the most CPU (the load driver shows as "node"), seconds. */
  const topOthers = [...others]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 4)
    .map(([comm, seconds]) => ({ comm, seconds: Math.round(seconds * 100) / 100 }));
  return { ...spent, topOthers };
}

/** The kept database and its workload file: seeded on first use (or with --reseed). */
async function keptTarget(): Promise<{
  target: BenchTarget;
  work: Workload & { forgetPool: ForgetTarget[]; userIds: string[] };
}> {
  const name = `memory_cpu_${cards}`;
  const dbUrl = new URL(args["database-url"]);
  dbUrl.pathname = `/${name}`;
  const cacheFile = path.join(ROOT, "bench", ".cache", `${name}.json`);
  const admin = benchClient(args["database-url"], { max: 1, onnotice: () => {} });
  try {
    const version = (await admin`select version() as v`)[0]!.v as string;
    const exists = (await admin`select 1 from pg_database where datname = ${name}`).length > 0;
    const target: BenchTarget = {
      embedded: false,
      url: dbUrl.toString(),
      dataDir: "",
      name,
      adminUrl: args["database-url"],
      postgresVersion: version,
      drop: async () => {},
    };
    if (exists && fs.existsSync(cacheFile) && !args.reseed)
      return { target, work: JSON.parse(fs.readFileSync(cacheFile, "utf8")) };
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.unsafe(`create database ${name}`);
    const seeded = await seedTarget(
      target,
      {
        cards,
        users: Number(args.users),
        seed: Number(args.seed),
        memoryWrites: Number(args["memory-writes"]),
        indexAfterLoad: indexAfterLoad(args["index-after-load"], cards),
      },
      log,
    );
    const work = {
      ...workload(seeded, { seed: Number(args.seed), searches: Number(args.searches) }),
      forgetPool: seeded.forgetPool,
      userIds: seeded.users.map((u) => u.id),
    };
    fs.mkdirSync(path.dirname(cacheFile), { recursive: true });
    fs.writeFileSync(cacheFile, JSON.stringify(work));
    log(`seeded ${name}; workload kept in ${path.relative(ROOT, cacheFile)}`);
    return { target, work };
  } finally {
    await admin.end();
  }
}

/** Cards earlier runs (or the seeding) wrote through the tool and that are still active: memory_forget's targets. */
async function forgetTargets(url: string, userIds: readonly string[]): Promise<ForgetTarget[]> {
  const byId = new Map(userIds.map((id, index) => [id, index]));
  const db = benchClient(url, { max: 1, onnotice: () => {} });
  try {
    const rows = await db<{ id: string; scope_id: string; revision: number }[]>`
      select id, scope_id, revision from memory_nodes
      where status = 'active' and scope_type = 'user' and (item_key like 'load\_%' or item_key like 'bench\_seed\_%')
      order by updated_at desc limit 5000`;
    return rows.flatMap((row) =>
      byId.has(row.scope_id) ? [{ id: row.id, user: byId.get(row.scope_id)!, revision: row.revision }] : [],
    );
  } finally {
    await db.end();
  }
}

const mix = parseMix(args.mix);
const concurrency = Number(args.concurrency);
const build = ensureBuild({ force: args.build, log });
if (build.sourcesNewerThanBuild)
  log(`note: sources changed after the production build (${build.builtAt}); pass --build to rebuild first`);
const { target, work } = await keptTarget();
const runDir = fs.mkdtempSync(path.join(os.tmpdir(), "memory-bench-cpu-"));
const stamp = timeStamp();
const startedAt = new Date().toISOString();
const loadStart = os.loadavg();
const servers = await startServers({
  count: 1,
  env: serverEnv(target, { runDir, stamp, poolMax: args["pool-max"], rateLimit: args["rate-limit"] }),
  logDir: runDir,
  nodeFlags: args.profile ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(args.profile)}`] : [],
});
const runs = [];
try {
  const serverPids = new Set(servers.pids);
  for (let i = 0; i <= Number(args.runs); i++) {
    const warm = i === 0; // the first run only warms the server up
    const pool = await forgetTargets(target.url!, work.userIds);
    const job = {
      mode: "http" as const,
      targets: servers.urls,
      concurrency,
      warmupS: 0,
      durationS: Number(warm ? args.warmup : args.duration),
      mix,
      users: work.users,
      searches: work.searches,
      queries: work.queries,
      forgetPool: pool,
      tag: `cpu${Date.now().toString(36)}_${i}`,
      seed: Number(args.seed) + i,
      turnlessSearches: args.turnless,
    };
    const before = cpuByProcess();
    const result = await runDriver<HttpResult>(job);
    const spent = cpuSpent(before, cpuByProcess(), serverPids);
    if (warm) continue;
    const { ops, throughputRps } = opReports(result);
    const requests = Object.values(result.ops).reduce((sum, op) => sum + op.latencies.length, 0);
    const perRequest = (seconds: number) => Math.round((seconds / requests) * 1e5) / 100;
    const cpuMs = {
      server: perRequest(spent.server),
      postgres: perRequest(spent.postgres),
      other: perRequest(spent.other),
    };
    const busy = Math.round(
      ((spent.server + spent.postgres + spent.other) / (result.elapsedS * os.cpus().length)) * 100,
    );
    const failed = Object.values(ops).reduce((sum, op) => sum + op.failed, 0);
    runs.push({
      requestsPerSecond: throughputRps,
      cpuMsPerRequest: cpuMs,
      busyPercent: busy,
      otherProcesses: spent.topOthers,
      failed,
      ops,
    });
    const latency = Object.entries(ops)
      .filter(([, op]) => op.n > 0)
      .map(([name, op]) => `${name} ${op.p50}/${op.p95}`)
      .join(", ");
    log(
      `run ${i}: ${throughputRps} req/s; CPU ms per request: server ${cpuMs.server}, postgres ${cpuMs.postgres}, other ${cpuMs.other} (${busy} % of ${os.cpus().length} cores; other: ${spent.topOthers.map((o) => `${o.comm} ${o.seconds} s`).join(", ")}); p50/p95 ${latency}${failed ? `; FAILED ${failed}` : ""}`,
    );
  }
} finally {
  await servers.stop();
  fs.rmSync(runDir, { recursive: true, force: true });
}
const file = writeResult(`cpu-${stamp}`, {
  ...reportHeader("cpu", {
    label: args.label,
    startedAt,
    embedded: false,
    postgresVersion: target.postgresVersion,
    loadStart,
  }),
  build,
  config: {
    cards,
    database: target.name,
    mix,
    concurrency,
    durationS: Number(args.duration),
    runs: Number(args.runs),
    turnlessSearches: args.turnless,
  },
  runs,
});
log(`report: ${path.relative(ROOT, file)}`);
