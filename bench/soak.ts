// `npm run bench:soak -- [--minutes 10] [--cards 10000] [--concurrency 8] [--interval 5] [--embedded] …`
// (see bench/README.md)
//
// Soak benchmark: the load benchmark's mixed workload (search 70 %, context 10 %, write 15 %, forget 5 %)
// at one fixed concurrency for many minutes against one production server (scripts/server.mjs, as `npm start`) on a freshly
// seeded database, after a warm-up that lasts until the server's memory stops climbing (the V8 heap
// grows for a minute or two under load before it settles). It reads the serving process's resident
// memory (/proc) every second and, every interval, samples the Postgres backends and the requests
// done / failed with their p50 / p95. Garbage collection can make RSS a saw-tooth (±90 MB seen here),
// so the leak signal is its floor: the lowest reading of a trailing window. At the end: the slope of
// that floor over the second half of the run (least squares, MB per minute), its growth over that half,
// the first- vs last-quartile RSS, the failures, and a verdict. Writes
// bench/results/soak-<mode>-<time>.json, prints a short table, exits 1 when the verdict is `fail`.
import path from "node:path";
import { parseArgs } from "node:util";
import type postgres from "postgres";
import type { HttpJob, HttpResult, IntervalReport } from "./load/driver";
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
import { opReports, summarize } from "./load/report";
import { linearFit, pgBackends, rssMB, servingPid, type Backends } from "./load/sampler";
import { ensureBuild, ROOT, startServers } from "./load/server";
import { benchClient } from "./load/pg-client";

const { values: args } = parseArgs({
  options: {
    minutes: { type: "string", default: "10" },
    cards: { type: "string", default: "10000" },
    concurrency: { type: "string", default: "8" },
    interval: { type: "string", default: "5" },
    "rss-every": { type: "string", default: "1" },
    "floor-window": { type: "string", default: "60" },
    warmup: { type: "string", default: "30" },
    "max-warmup": { type: "string", default: "300" },
    ...BENCH_OPTIONS,
    "max-slope": { type: "string", default: "1" },
    "max-growth": { type: "string", default: "10" },
    label: { type: "string" },
  },
});

const embedded = args.embedded;
const minutes = Number(args.minutes);
const durationS = Math.round(minutes * 60);
const cards = Number(args.cards);
const concurrency = Number(args.concurrency);
const intervalS = Number(args.interval);
const rssEveryS = Number(args["rss-every"]);
// The floor needs a window that spans a few collections, but much shorter than the half it is fitted over.
const floorWindowS = Math.min(Number(args["floor-window"]), durationS / 8);
const warmupS = Number(args.warmup);
const maxWarmupS = Math.max(warmupS, Number(args["max-warmup"]));
/** Warm-up runs in steps of this long; it ends once two steps in a row peak within WARM_SETTLED of the step before. */
const WARM_STEP_S = 15;
const WARM_SETTLED = 0.02;
const maxSlope = Number(args["max-slope"]);
const maxGrowthPct = Number(args["max-growth"]);
/**
 * The slope is judged only when the second half spans at least this long: over a shorter span the limit
 * (1 MB/min: 0.5 MB in 30 s) is below the jitter of single readings (±2 MB at steady state, ±90 MB while
 * the heap still saw-tooths), so the sign of the slope would be chance. Shorter runs are judged on growth.
 */
const MIN_SLOPE_SPAN_MIN = 2;
const log = (line: string) => console.log(`[bench:soak] ${line}`);
for (const [name, value] of Object.entries({
  minutes,
  cards,
  concurrency,
  interval: intervalS,
  "rss-every": rssEveryS,
  "floor-window": floorWindowS,
}))
  if (!(value > 0)) throw new Error(`--${name} must be a positive number`);
if (durationS < 4 * intervalS)
  throw new Error(`--minutes ${minutes} gives fewer than four samples at --interval ${intervalS}`);

const run = startRun({ name: "soak", keep: args.keep });
const { runDir, stamp } = run;

type Sample = {
  index: number;
  /** Minutes since measuring began (the end of this interval). */
  tMin: number;
  seconds: number;
  /** RSS when the interval ended, and the lowest / highest per-second reading within it. */
  rssMB: number | null;
  rssMinMB: number | null;
  rssMaxMB: number | null;
  /** The lowest per-second RSS reading of the trailing `--floor-window` seconds: what the verdict fits. */
  rssFloorMB: number | null;
  backends: Backends | null;
  done: number;
  failed: number;
  rps: number;
  p50: number;
  p95: number;
  searchP95: number;
  loadavg1: number;
};

const r1 = (x: number) => Math.round(x * 10) / 10;
const r2 = (x: number) => Math.round(x * 100) / 100;
const mean = (xs: number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : NaN);

/** Least-squares fit of one RSS series over the second half: slope, and growth across the half in MB and %. */
function secondHalfFit(samples: Sample[], value: (s: Sample) => number | null) {
  const totalMin = durationS / 60;
  const points = samples
    .filter((s) => s.tMin >= totalMin / 2 && value(s) !== null)
    .map((s) => ({ x: s.tMin, y: value(s)! }));
  const fit = linearFit(points);
  const from = points[0]?.x ?? totalMin / 2;
  const to = points.at(-1)?.x ?? totalMin;
  const growthMB = fit ? fit.slope * (to - from) : NaN;
  return {
    samples: points.length,
    fromMin: r2(from),
    toMin: r2(to),
    slopeMBPerMin: fit ? r2(fit.slope) : null,
    growthMB: fit ? r1(growthMB) : null,
    growthPct: fit ? r2((growthMB / fit.at(from)) * 100) : null,
    minMB: points.length ? Math.min(...points.map((p) => p.y)) : null,
    maxMB: points.length ? Math.max(...points.map((p) => p.y)) : null,
  };
}

/** The verdict's numbers (the RSS floor over the second half), the same fit of the raw readings, first- vs last-quartile RSS. */
function analyse(samples: Sample[]) {
  const totalMin = durationS / 60;
  const quartile = (keep: (tMin: number) => boolean) =>
    mean(samples.filter((s) => s.rssMB !== null && keep(s.tMin)).map((s) => s.rssMB!));
  const q1 = quartile((t) => t <= totalMin / 4);
  const q4 = quartile((t) => t > (3 * totalMin) / 4);
  return {
    secondHalf: secondHalfFit(samples, (s) => s.rssFloorMB),
    secondHalfRaw: secondHalfFit(samples, (s) => s.rssMB),
    quartiles: {
      firstMeanMB: r1(q1),
      lastMeanMB: r1(q4),
      changeMB: r1(q4 - q1),
      changePct: r2(((q4 - q1) / q1) * 100),
    },
  };
}

/** At most `rows` lines: consecutive intervals merged (RSS and backends as at the group's end, the most backends seen). */
function printTable(samples: Sample[], latencies: number[][], rows: number) {
  const per = Math.max(1, Math.ceil(samples.length / rows));
  const cell = (v: string | number, w: number) => String(v).padStart(w);
  const fmt = (x: number | null) => (x === null || !Number.isFinite(x) ? "-" : x.toFixed(1));
  console.log(
    `${cell("t min", 6)}${cell("RSS MB", 9)}${cell("floor MB", 10)}${cell("PG backends", 13)}${cell("done", 7)}${cell("failed", 8)}${cell("req/s", 8)}${cell("p50 ms", 9)}${cell("p95 ms", 9)}`,
  );
  for (let i = 0; i < samples.length; i += per) {
    const group = samples.slice(i, i + per);
    const last = group.at(-1)!;
    const lat = summarize(latencies.slice(i, i + per).flat());
    const seconds = group.reduce((s, g) => s + g.seconds, 0);
    const done = group.reduce((s, g) => s + g.done, 0);
    const backends = last.backends
      ? `${Math.max(...group.map((g) => g.backends!.total))}/${Math.max(...group.map((g) => g.backends!.benchDb))}`
      : "-";
    console.log(
      `${cell(last.tMin.toFixed(2), 6)}${cell(fmt(last.rssMB), 9)}${cell(fmt(last.rssFloorMB), 10)}${cell(backends, 13)}${cell(done, 7)}${cell(
        group.reduce((s, g) => s + g.failed, 0),
        8,
      )}${cell(fmt(done / seconds), 8)}${cell(fmt(lat.p50), 9)}${cell(fmt(lat.p95), 9)}`,
    );
  }
}

async function main() {
  const startedAt = new Date().toISOString();
  const loadStart = loadavg();
  log(
    `mode ${embedded ? "embedded (PGlite)" : "server (Postgres)"}, ${cards} cards, concurrency ${concurrency}, ${minutes} min after a warm-up of ${warmupS}–${maxWarmupS} s, sample every ${intervalS} s, load average ${loadStart.join(" ")}`,
  );
  const build = ensureBuild({ force: args.build, log });
  if (build.sourcesNewerThanBuild)
    log(`note: sources changed after the production build (${build.builtAt}); pass --build to rebuild first`);

  let monitor: postgres.Sql | undefined;
  try {
    const target = (run.target = await createTarget({
      embedded,
      databaseUrl: args["database-url"],
      runDir,
      stamp,
      keep: args.keep,
      log,
    }));
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
    const load = workload(seeded, { seed: Number(args.seed), searches: Number(args.searches) });

    log("starting the server");
    const servers = (run.servers = await startServers({
      count: 1,
      env: serverEnv(target, { runDir, stamp, poolMax: args["pool-max"], rateLimit: args["rate-limit"] }),
      logDir: runDir,
    }));
    const url = servers.urls[0]!;
    const pid = servingPid(servers.pids[0]!, Number(new URL(url).port));
    log(`server ${url}: started as pid ${servers.pids[0]}, serving pid ${pid}`);
    // The monitor connects to the maintenance database, so the run's database shows only the server's pool.
    if (!embedded) monitor = benchClient(target.adminUrl, { max: 1, onnotice: () => {} });
    const sampleBackends = async () => (monitor ? pgBackends(monitor, target.name) : null);
    const idle = { rssMB: rssMB(pid), backends: await sampleBackends() };
    log(
      `idle: RSS ${idle.rssMB} MB${idle.backends ? `, Postgres backends ${idle.backends.total} (run's database ${idle.backends.benchDb})` : ""}`,
    );

    // RSS every second (a reading is cheap); each interval keeps its lowest and highest, and the trailing floor.
    const readings: { at: number; mb: number }[] = [];
    const readRss = () => {
      const mb = rssMB(pid);
      if (mb !== null) readings.push({ at: performance.now(), mb });
      while (
        readings.length &&
        readings[0]!.at < performance.now() - Math.max(floorWindowS, intervalS, WARM_STEP_S) * 1000 - 1000
      )
        readings.shift();
    };
    const rssTimer = setInterval(readRss, rssEveryS * 1000);
    let lastIntervalAt = 0;
    let measureStart: number | undefined;
    const since = (from: number, fallback: number | null, pick: (...xs: number[]) => number) => {
      const xs = readings.filter((r) => r.at > from).map((r) => r.mb);
      return xs.length ? pick(...xs) : fallback;
    };

    // Each interval report is sampled the moment it arrives; the Postgres query is chained so samples stay in order.
    const samples: Sample[] = [];
    const latencies: number[][] = [];
    let pending = Promise.resolve();
    const logEvery = Math.max(1, Math.round(60 / intervalS));
    const onInterval = (interval: IntervalReport) => {
      readRss();
      const now = performance.now();
      const rss = rssMB(pid);
      // The floor looks back no further than the start of the measured time (the warm-up starts from the idle RSS).
      measureStart ??= now - interval.seconds * 1000;
      const from = Math.max(lastIntervalAt, measureStart);
      const rssWindow = {
        min: since(from, rss, Math.min),
        max: since(from, rss, Math.max),
        floor: since(Math.max(measureStart, now - floorWindowS * 1000), rss, Math.min),
      };
      lastIntervalAt = now;
      const ops = Object.values(interval.ops);
      const all = ops.flatMap((o) => o.latencies);
      const lat = summarize(all);
      pending = pending.then(async () => {
        const backends = await sampleBackends().catch(() => null);
        const sample: Sample = {
          index: interval.index,
          tMin: r2(interval.endS / 60),
          seconds: interval.seconds,
          rssMB: rss,
          rssMinMB: rssWindow.min,
          rssMaxMB: rssWindow.max,
          rssFloorMB: rssWindow.floor,
          backends,
          done: all.length,
          failed: ops.reduce((s, o) => s + o.failed, 0),
          rps: r1(all.length / interval.seconds),
          p50: lat.p50,
          p95: lat.p95,
          searchP95: summarize(interval.ops.search.latencies).p95,
          loadavg1: loadavg()[0]!,
        };
        samples.push(sample);
        latencies.push(all);
        if ((interval.index + 1) % logEvery === 0)
          log(
            `${sample.tMin.toFixed(1)} min: RSS ${rss} MB (floor ${sample.rssFloorMB}), ${sample.rps} req/s, p95 ${sample.p95} ms, failed so far ${samples.reduce((s, x) => s + x.failed, 0)}`,
          );
      });
    };

    const job = (tag: string, seconds: number, forgetPool: HttpJob["forgetPool"], seed: number): HttpJob => ({
      mode: "http",
      targets: [url],
      concurrency,
      warmupS: 0,
      durationS: seconds,
      mix: MIX,
      ...load,
      forgetPool,
      tag,
      seed,
    });

    // ---- warm-up: at least --warmup seconds, then until the RSS stops climbing (or --max-warmup) ----------
    const warmup = { seconds: 0, settled: false, failed: 0, steps: [] as { endS: number; rssMaxMB: number | null }[] };
    let forgetPool = seeded.forgetPool;
    for (let step = 0, calm = 0; warmup.seconds < maxWarmupS; step++) {
      const startedStep = performance.now();
      const stepResult = await runDriver<HttpResult>(
        job(`warm${step}`, WARM_STEP_S, forgetPool, Number(args.seed) + step),
      );
      forgetPool = stepResult.forgetPool;
      warmup.failed += Object.values(stepResult.ops).reduce((n, o) => n + o.failed, 0);
      warmup.seconds = r1(warmup.seconds + (performance.now() - startedStep) / 1000);
      const rssMaxMB = since(startedStep, rssMB(pid), Math.max);
      const previous = warmup.steps.at(-1)?.rssMaxMB;
      warmup.steps.push({ endS: warmup.seconds, rssMaxMB });
      log(`warm-up ${warmup.seconds} s: RSS up to ${rssMaxMB} MB`);
      calm = previous && rssMaxMB !== null && rssMaxMB <= previous * (1 + WARM_SETTLED) ? calm + 1 : 0;
      if (warmup.seconds >= warmupS && calm >= 2) {
        warmup.settled = true;
        break;
      }
    }
    if (!warmup.settled) log(`warm-up: RSS still climbing after ${warmup.seconds} s (--max-warmup); measuring anyway`);

    log(`measuring ${minutes} min`);
    const result = await runDriver<HttpResult>(
      { ...job("soak", durationS, forgetPool, Number(args.seed) + concurrency), intervalS },
      onInterval,
    ).finally(() => clearInterval(rssTimer));
    await pending;
    const final = { rssMB: rssMB(pid), backends: await sampleBackends() };
    await servers.stop();
    const serverErrors = serverErrorLines(servers);

    // ---- verdict ---------------------------------------------------------------------------------------
    const analysis = analyse(samples);
    const failed = samples.reduce((s, x) => s + x.failed, 0);
    const done = samples.reduce((s, x) => s + x.done, 0);
    const { secondHalf } = analysis;
    const reasons: string[] = [];
    if (failed > 0) reasons.push(`${failed} request(s) failed`);
    if (warmup.failed > 0) reasons.push(`${warmup.failed} request(s) failed during the warm-up`);
    if (final.rssMB === null) reasons.push("the serving process was gone at the end");
    const slopeJudged = secondHalf.toMin - secondHalf.fromMin >= MIN_SLOPE_SPAN_MIN;
    if (secondHalf.slopeMBPerMin === null || secondHalf.samples < 3)
      reasons.push(`too few RSS samples in the second half (${secondHalf.samples})`);
    else {
      if (slopeJudged && secondHalf.slopeMBPerMin >= maxSlope)
        reasons.push(`RSS floor slope ${secondHalf.slopeMBPerMin} MB/min ≥ ${maxSlope}`);
      if (secondHalf.growthPct! >= maxGrowthPct)
        reasons.push(`RSS floor growth over the second half ${secondHalf.growthPct} % ≥ ${maxGrowthPct} %`);
    }
    const verdict = reasons.length ? "fail" : "pass";
    const { ops, throughputRps } = opReports(result);

    const report = {
      ...reportHeader("soak", {
        label: args.label,
        startedAt,
        embedded,
        postgresVersion: target.postgresVersion,
        loadStart,
      }),
      build,
      config: {
        cards,
        users: Number(args.users),
        minutes,
        concurrency,
        intervalS,
        rssEveryS,
        floorWindowS,
        warmupS,
        maxWarmupS,
        mix: MIX,
        dbPoolMax: reportedPoolMax(args["pool-max"], embedded),
        searches: load.searches.length,
        rateLimit: "off (RATE_LIMIT_PER_MINUTE=0)",
        inlineWorker: false,
      },
      thresholds: {
        maxSlopeMBPerMin: maxSlope,
        maxSecondHalfGrowthPct: maxGrowthPct,
        failedRequests: 0,
        slopeJudgedFromSpanMin: MIN_SLOPE_SPAN_MIN,
        slopeJudged,
      },
      verdict,
      reasons,
      seed: { counts: seeded.counts, seconds: seeded.seconds },
      warmup,
      server: { startedPid: servers.pids[0], servingPid: pid, idle, final },
      totals: { done, failed, throughputRps },
      analysis,
      ops,
      samples,
      errors: result.errors,
      serverErrors,
      definitions: {
        rssMB:
          "VmRSS of the process that owns the server's listening socket (/proc/<pid>/status), MiB, read every rssEveryS seconds; per interval: at its end, lowest and highest within it",
        rssFloorMB:
          "the lowest RSS reading of the trailing floorWindowS seconds (the troughs after garbage collection): what a leak raises; the verdict fits it",
        backends:
          "pg_stat_activity rows: total (all backends, background processes included), client backends, and connections to the run's database (the server's pool; the monitor itself connects to the maintenance database)",
        warmup:
          "driver runs of 15 s each at the soak's concurrency: at least warmupS seconds, then until two steps in a row peak within 2 % of the step before (settled) or maxWarmupS; not measured",
        intervals:
          "requests that completed within the interval (warm-up excluded); p50/p95 over every operation, failed requests included",
        secondHalf:
          "least-squares fit of the RSS floor over time for the samples at or after half the measured time; growth = slope × the half's span, in MB and as a share of the fitted value at its start (secondHalfRaw: the same fit of the end-of-interval readings, for comparison; noisy)",
        quartiles:
          "mean RSS of the samples in the first and the last quarter of the measured time (the first quarter still includes caches filling up)",
        ops: "the whole measured run by request start time (as in the load benchmark)",
      },
    };
    const file = writeResult(`soak-${report.mode}-${stamp}`, report);

    console.log("");
    printTable(samples, latencies, 12);
    console.log("");
    for (const op of ["search", "context", "write", "forget"] as const)
      console.log(
        `memory_${op.padEnd(8)} ${String(ops[op].rps).padStart(6)} req/s  p50 ${ops[op].p50} ms  p95 ${ops[op].p95} ms  n ${ops[op].n}  failed ${ops[op].failed}`,
      );
    console.log(
      `\nRSS: idle ${idle.rssMB} MB, first quartile ${analysis.quartiles.firstMeanMB} MB, last quartile ${analysis.quartiles.lastMeanMB} MB (${analysis.quartiles.changePct} %), final ${final.rssMB} MB`,
    );
    console.log(
      `second half (${secondHalf.fromMin}–${secondHalf.toMin} min, ${secondHalf.samples} samples), RSS floor: slope ${secondHalf.slopeMBPerMin} MB/min (${slopeJudged ? `limit ${maxSlope}` : `not judged: the half is under ${MIN_SLOPE_SPAN_MIN} min`}), growth ${secondHalf.growthMB} MB = ${secondHalf.growthPct} % (limit ${maxGrowthPct} %); raw readings: slope ${analysis.secondHalfRaw.slopeMBPerMin} MB/min`,
    );
    console.log(`requests: ${done} done, ${failed} failed; ${throughputRps} req/s`);
    if (serverErrors.length) console.log(`server logged ${serverErrors.length} error line(s), e.g. ${serverErrors[0]}`);
    console.log(`verdict: ${verdict.toUpperCase()}${reasons.length ? ` (${reasons.join("; ")})` : ""}`);
    log(`report: ${path.relative(ROOT, file)}`);
    return verdict === "pass" ? 0 : 1;
  } finally {
    await monitor?.end({ timeout: 5 });
    await run.cleanup();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(2);
  },
);
