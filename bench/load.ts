// `npm run bench:load -- [--cards 10000] [--concurrency 1,8,32] [--duration 20] [--database-url URL]
//                        [--instances 1|2] [--embedded] [--keep] [--build] [--read-replica [--read-replica-url URL]] …`
//                        (see docs/performance.md)
//
// Load benchmark of the agent tool endpoint. Seeds a fresh database (server mode: a new
// `memory_bench_<time>` database on the Postgres server, dropped afterwards unless --keep; embedded:
// a PGlite directory in a temporary folder), starts the production server (scripts/server.mjs as `npm start` runs it, one or two
// instances), drives POST /api/trpc/tools.<tool> with a mixed workload from a separate process at
// fixed concurrency levels, and replays the same searches' SQL straight against the database (the
// floor). Writes bench/results/load-<mode>-<time>.json and prints a table. --read-replica: the servers
// also get DATABASE_READ_URL, the bench database on a hot standby of the server
// (scripts/setup-postgres.sh --standby), and the report counts where their reads ran.
import path from "node:path";
import { parseArgs } from "node:util";
import { captureSearch, explainPlan, openCapture } from "./load/capture";
import type { HttpJob, HttpResult, SqlJob, SqlResult, Stmt } from "./load/driver";
import { isLocalSetting } from "./load/local-setting";
import {
  BENCH_OPTIONS,
  createTarget,
  reportedPoolMax,
  loadavg,
  MIX,
  reportHeader,
  runDriver,
  indexAfterLoad,
  seedTarget,
  serverEnv,
  serverErrorLines,
  startRun,
  workload,
  writeResult,
} from "./load/harness";
import { floorReport, opReports, printTable, summarize, type LevelReport } from "./load/report";
import { ensureBuild, ROOT, startServers } from "./load/server";
import { benchReplicaUrl, readsByTarget, waitForReplay } from "./load/replica";

const { values: args } = parseArgs({
  options: {
    cards: { type: "string" },
    concurrency: { type: "string", default: "1,8,32" },
    duration: { type: "string", default: "20" },
    warmup: { type: "string", default: "3" },
    "sql-duration": { type: "string" },
    instances: { type: "string", default: "1" },
    "read-replica": { type: "boolean", default: false },
    /** The standby's URL (any database name: the bench database's name replaces it). */
    "read-replica-url": { type: "string", default: "postgres://postgres@127.0.0.1:5433/postgres" },
    ...BENCH_OPTIONS,
    label: { type: "string" },
  },
});

const embedded = args.embedded;
const cards = Number(args.cards ?? 10_000);
const users = Number(args.users);
const levels = args.concurrency
  .split(",")
  .map(Number)
  .filter((n) => n > 0);
const durationS = Number(args.duration);
const warmupS = Number(args.warmup);
const sqlDurationS = Number(args["sql-duration"] ?? Math.max(5, Math.round(durationS / 2)));
const instances = embedded ? 1 : Math.max(1, Number(args.instances));
const log = (line: string) => console.log(`[bench:load] ${line}`);
if (embedded && Number(args.instances) > 1)
  log("--embedded runs one instance (PGlite is single-process); ignoring --instances");
if (embedded && args["read-replica"])
  throw new Error("--read-replica needs server mode: embedded mode has no replicas");

const run = startRun({ name: "load", keep: args.keep });
const { runDir, stamp } = run;

/** The embedded floor: PGlite runs one statement at a time, so the floor is measured in this process, sequentially. */
async function floorInProcess(
  raw: (text: string, params: unknown[]) => Promise<unknown>,
  plans: Stmt[][],
  seconds: number,
): Promise<SqlResult> {
  const latencies: number[] = [];
  const perLabel: Record<string, number[]> = {};
  const warmUntil = performance.now() + warmupS * 1000;
  const stopAt = warmUntil + seconds * 1000;
  for (let i = 0; performance.now() < stopAt; i++) {
    const plan = plans[i % plans.length]!;
    const t0 = performance.now();
    const sums = new Map<string, number>();
    for (let i = 0; i < plan.length; i++) {
      const stmt = plan[i]!;
      const s0 = performance.now();
      if (isLocalSetting(stmt.text) && plan[i + 1]) {
        const next = plan[++i]!;
        await raw("begin", []);
        await raw(stmt.text, []);
        await raw(next.text, next.params);
        await raw("commit", []);
      } else {
        await raw(stmt.text, stmt.params);
      }
      sums.set(stmt.label, (sums.get(stmt.label) ?? 0) + performance.now() - s0);
    }
    if (t0 >= warmUntil) {
      latencies.push(performance.now() - t0);
      for (const [label, ms] of sums) (perLabel[label] ??= []).push(ms);
    }
  }
  return { mode: "sql", elapsedS: seconds, latencies, perLabel, failed: 0, errors: [] };
}

async function main() {
  const startedAt = new Date().toISOString();
  const loadStart = loadavg();
  log(
    `mode ${embedded ? "embedded (PGlite)" : "server (Postgres)"}, ${cards} cards, ${users} users, concurrency ${levels.join("/")}, ${durationS} s per level, load average ${loadStart.join(" ")}`,
  );
  const build = ensureBuild({ force: args.build, log });
  if (build.sourcesNewerThanBuild)
    log(`note: sources changed after the production build (${build.builtAt}); pass --build to rebuild first`);

  try {
    // ---- database ----------------------------------------------------------------------------------
    const target = (run.target = await createTarget({
      embedded,
      databaseUrl: args["database-url"],
      runDir,
      stamp,
      keep: args.keep,
      log,
    }));
    const { dataDir, postgresVersion } = target;
    const dbUrl = target.url ?? "";
    const seeded = await seedTarget(
      target,
      {
        cards,
        users,
        seed: Number(args.seed),
        memoryWrites: Number(args["memory-writes"]),
        indexAfterLoad: indexAfterLoad(args["index-after-load"], cards),
      },
      log,
    );

    // The searches both sides run: (user, question) pairs, the same list for HTTP and for SQL.
    const {
      searches,
      users: driverUsers,
      queries: bank,
    } = workload(seeded, { seed: Number(args.seed), searches: Number(args.searches) });

    log(`capturing the SQL of ${searches.length} searches`);
    const capture = await openCapture(embedded ? { dataDir } : { url: dbUrl });
    const paths: Stmt[][] = [];
    const inProcess = { coldMs: [] as number[], warmMs: [] as number[] };
    for (const s of searches) {
      const captured = await captureSearch(capture, {
        secret: driverUsers[s.user]!.secret,
        queryText: s.queryText,
        sessionId: driverUsers[s.user]!.session,
        rateLimit: Number(args["rate-limit"]),
      });
      paths.push(captured.statements);
      inProcess.coldMs.push(captured.coldMs);
      inProcess.warmMs.push(captured.warmMs);
    }
    const fullText = paths.map((statements) => statements.filter((st) => st.label === "search.full_text"));
    const statementCounts = summarize(paths.map((p) => p.length));
    const labels = Object.fromEntries(
      [...new Set(paths.flat().map((s) => s.label))].map((label) => [
        label,
        paths.filter((p) => p.some((s) => s.label === label)).length,
      ]),
    );
    log(
      `statements per search: p50 ${statementCounts.p50}, max ${statementCounts.max}; stages ${JSON.stringify(labels)}`,
    );
    log(
      `in-process search (no HTTP): cold p50 ${summarize(inProcess.coldMs).p50} ms, warm p50 ${summarize(inProcess.warmMs).p50} ms / p95 ${summarize(inProcess.warmMs).p95} ms`,
    );

    // EXPLAIN ANALYZE of a few searches: an English one, a Chinese one, and one per optional stage (trigram, vector…).
    const cjk = (i: number) => /[\u4e00-\u9fff]/.test(searches[i]!.queryText);
    const samples = new Set([searches.findIndex((_, i) => !cjk(i)), searches.findIndex((_, i) => cjk(i))]);
    for (const label of Object.keys(labels))
      if (!paths.every((p) => p.some((s) => s.label === label)))
        samples.add(paths.findIndex((p) => p.some((s) => s.label === label)));
    const explain = [];
    for (const i of [...samples].filter((i) => i >= 0))
      explain.push({ queryText: searches[i]!.queryText, statements: await explainPlan(capture, paths[i]!) });

    let embeddedFloor: { fullText: SqlResult; path: SqlResult } | undefined;
    if (embedded) {
      log(`embedded SQL floor (sequential, ${sqlDurationS} s each)`);
      const withTerms = fullText.filter((p) => p.length > 0);
      embeddedFloor = {
        fullText: await floorInProcess(capture.raw, withTerms, sqlDurationS),
        path: await floorInProcess(capture.raw, paths, sqlDurationS),
      };
    }
    await capture.close();

    // ---- server ------------------------------------------------------------------------------------
    const env = serverEnv(target, { runDir, stamp, poolMax: args["pool-max"], rateLimit: args["rate-limit"] });
    const replicaUrl = args["read-replica"] ? benchReplicaUrl(args["read-replica-url"], target.name) : null;
    if (replicaUrl) {
      log(`read replica ${new URL(replicaUrl).host}: waiting for it to replay the seed`);
      log(`replica caught up after ${await waitForReplay(dbUrl, replicaUrl)} ms`);
      env.DATABASE_READ_URL = replicaUrl;
    }
    log(`starting ${instances} server instance(s)`);
    const servers = (run.servers = await startServers({ count: instances, env, logDir: runDir }));
    log(`servers ${servers.urls.join(", ")} (pids ${servers.pids.join(", ")})`);

    const httpJob = (
      concurrency: number,
      seconds: number,
      warm: number,
      pool: HttpJob["forgetPool"],
      tag: string,
    ): HttpJob => ({
      mode: "http",
      targets: servers.urls,
      concurrency,
      warmupS: warm,
      durationS: seconds,
      mix: MIX,
      users: driverUsers,
      searches,
      queries: bank,
      forgetPool: pool,
      tag,
      seed: Number(args.seed) + concurrency,
    });

    // Warm every route and code path on every instance before measuring anything.
    let pool = (await runDriver<HttpResult>(httpJob(2 * instances, 6, 0, seeded.forgetPool, "warm"))).forgetPool;

    // The fixed cost of the HTTP stack (Next route, tRPC, key lookup, JSON) on a trivial agent call.
    const baselineMs: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t0 = performance.now();
      const res = await fetch(`${servers.urls[i % servers.urls.length]}/api/trpc/me.agent`, {
        headers: { authorization: `Bearer ${driverUsers[i % driverUsers.length]!.secret}` },
      });
      await res.text();
      if (i >= 20) baselineMs.push(performance.now() - t0);
    }
    const httpBaseline = summarize(baselineMs);
    log(`HTTP baseline (me.agent, sequential): p50 ${httpBaseline.p50} ms, p95 ${httpBaseline.p95} ms`);

    const reports: LevelReport[] = [];
    for (const concurrency of levels) {
      const before = loadavg();
      log(`concurrency ${concurrency}: HTTP ${warmupS}+${durationS} s`);
      const result = await runDriver<HttpResult>(httpJob(concurrency, durationS, warmupS, pool, `c${concurrency}`));
      pool = result.forgetPool;
      const { ops, throughputRps } = opReports(result);
      const floor: LevelReport["floor"] = {};
      if (embedded) {
        if (concurrency === 1) {
          floor.fullText = floorReport(embeddedFloor!.fullText, false);
          floor.path = floorReport(embeddedFloor!.path, true);
        }
      } else {
        log(`concurrency ${concurrency}: SQL floor ${warmupS}+${sqlDurationS} s (full text, then whole path)`);
        const sql = (plans: Stmt[][]): SqlJob => ({
          mode: "sql",
          url: dbUrl,
          concurrency,
          warmupS,
          durationS: sqlDurationS,
          plans,
        });
        floor.fullText = floorReport(await runDriver<SqlResult>(sql(fullText.filter((p) => p.length > 0))), false);
        floor.path = floorReport(await runDriver<SqlResult>(sql(paths)), true);
      }
      const ratio = (a: number, b: number | undefined) =>
        b && Number.isFinite(a) && Number.isFinite(b) ? Math.round((a / b) * 100) / 100 : undefined;
      reports.push({
        concurrency,
        loadavgBefore: before,
        loadavgAfter: loadavg(),
        throughputRps,
        ops,
        floor,
        ratio: {
          searchP50OverFullTextP50: ratio(ops.search.p50, floor.fullText?.p50),
          searchP50OverPathP50: ratio(ops.search.p50, floor.path?.p50),
        },
        errors: result.errors,
      });
    }
    const reads = replicaUrl ? await readsByTarget(servers.urls) : null;
    if (reads) log(`reads by target (all levels, warm-up included): ${JSON.stringify(reads)}`);
    await servers.stop();
    const serverErrors = serverErrorLines(servers);

    // ---- report ------------------------------------------------------------------------------------
    const at8 = reports.find((l) => l.concurrency === 8);
    const targets = at8
      ? {
          note: "reference targets: 2-core machine, 100k cards, concurrency 8",
          searchP95: { target: 25, measured: at8.ops.search.p95, met: at8.ops.search.p95 <= 25 },
          writeP95: { target: 20, measured: at8.ops.write.p95, met: at8.ops.write.p95 <= 20 },
          contextP95: { target: 40, measured: at8.ops.context.p95, met: at8.ops.context.p95 <= 40 },
          ratioP50: {
            target: 2,
            measured: at8.ratio.searchP50OverFullTextP50,
            met: (at8.ratio.searchP50OverFullTextP50 ?? Infinity) <= 2,
          },
        }
      : null;
    const report = {
      ...reportHeader("load", { label: args.label, startedAt, embedded, postgresVersion: postgresVersion, loadStart }),
      build,
      readReplica: replicaUrl
        ? { url: `${new URL(replicaUrl).host}${new URL(replicaUrl).pathname}`, readsByTarget: reads }
        : null,
      config: {
        cards,
        users,
        instances,
        concurrency: levels,
        durationS,
        warmupS,
        sqlDurationS,
        mix: MIX,
        dbPoolMax: reportedPoolMax(args["pool-max"], embedded),
        searches: searches.length,
        rateLimit: "off (RATE_LIMIT_PER_MINUTE=0)",
        inlineWorker: false,
      },
      seed: { counts: seeded.counts, seconds: seeded.seconds, memoryWriteInProcessMs: summarize(seeded.writePathMs) },
      searchPath: {
        statementsPerSearch: statementCounts,
        searchesWithStage: labels,
        stageExamples: Object.fromEntries(
          Object.keys(labels).map((label) => [
            label,
            paths
              .flat()
              .find((st) => st.label === label)!
              .text.replace(/\s+/g, " ")
              .slice(0, 400),
          ]),
        ),
        note: "in-process: the same tool call (key check, scopes, search, query log) run in the bench process without HTTP, sequentially; cold = first call for that key (per-process corpus statistics not cached yet)",
        inProcessColdMs: summarize(inProcess.coldMs),
        inProcessWarmMs: summarize(inProcess.warmMs),
      },
      httpBaseline: {
        call: "GET /api/trpc/me.agent with a Bearer key, sequential, keep-alive (fetch from the bench process)",
        ...httpBaseline,
      },
      levels: reports,
      targets,
      explain,
      serverErrors,
      floorDefinition: {
        fullText:
          "the full-text candidate statement(s) the search ran (captured from the product's own Drizzle calls): tenant + readable scopes + status + search_vector @@ to_tsquery, one per search",
        path: "every statement of the request in order as the endpoint ran it (API key lookup and touch, owner/key grants, full text, corpus statistics when not cached, trigram, card rows, query log), sequentially on one connection",
      },
    };
    const file = writeResult(`load-${report.mode}-${stamp}`, report);
    console.log("");
    printTable(reports, (line) => console.log(line));
    if (targets) console.log(`\ntargets at concurrency 8: ${JSON.stringify(targets)}`);
    if (serverErrors.length)
      console.log(`\nserver logged ${serverErrors.length} error line(s), e.g. ${serverErrors[0]}`);
    log(`report: ${path.relative(ROOT, file)}`);
  } finally {
    await run.cleanup();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
