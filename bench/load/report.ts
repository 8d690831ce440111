// Percentiles and the printed table of the load benchmark.
import type { HttpResult, Op, SqlResult } from "./driver";

export type Summary = { n: number; p50: number; p95: number; p99: number; max: number; mean: number };

export function summarize(values: readonly number[]): Summary {
  if (values.length === 0) return { n: 0, p50: NaN, p95: NaN, p99: NaN, max: NaN, mean: NaN };
  const sorted = [...values].sort((a, b) => a - b);
  // Nearest rank: the smallest value with at least p% of the samples at or below it.
  const pct = (p: number) =>
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
  const r = (x: number) => Math.round(x * 100) / 100;
  return {
    n: sorted.length,
    p50: r(pct(50)),
    p95: r(pct(95)),
    p99: r(pct(99)),
    max: r(sorted.at(-1)!),
    mean: r(sorted.reduce((s, x) => s + x, 0) / sorted.length),
  };
}

export type OpReport = Summary & { rps: number; ok: number; failed: number; statuses: Record<string, number> };
export type FloorReport = Summary & { rps: number; failed: number; perLabel?: Record<string, Summary> };
export type LevelReport = {
  concurrency: number;
  loadavgBefore: number[];
  loadavgAfter: number[];
  throughputRps: number;
  ops: Record<Op, OpReport>;
  floor: { fullText?: FloorReport; path?: FloorReport };
  ratio: { searchP50OverFullTextP50?: number; searchP50OverPathP50?: number };
  errors: string[];
};

export function opReports(result: HttpResult): { ops: Record<Op, OpReport>; throughputRps: number } {
  const ops = {} as Record<Op, OpReport>;
  let total = 0;
  for (const [op, stats] of Object.entries(result.ops) as [Op, HttpResult["ops"][Op]][]) {
    total += stats.latencies.length;
    ops[op] = {
      ...summarize(stats.latencies),
      rps: Math.round((stats.latencies.length / result.elapsedS) * 10) / 10,
      ok: stats.ok,
      failed: stats.failed,
      statuses: stats.statuses,
    };
  }
  return { ops, throughputRps: Math.round((total / result.elapsedS) * 10) / 10 };
}

export function floorReport(result: SqlResult, withLabels: boolean): FloorReport {
  const report: FloorReport = {
    ...summarize(result.latencies),
    rps: Math.round((result.latencies.length / result.elapsedS) * 10) / 10,
    failed: result.failed,
  };
  if (withLabels)
    report.perLabel = Object.fromEntries(
      Object.entries(result.perLabel).map(([label, values]) => [label, summarize(values)]),
    );
  return report;
}

const cell = (value: string | number, width: number) => String(value).padStart(width);
const fmt = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : "-");

export function printTable(levels: LevelReport[], print: (line: string) => void) {
  print(
    `${"conc".padEnd(5)}${"operation".padEnd(22)}${cell("req/s", 8)}${cell("p50 ms", 9)}${cell("p95 ms", 9)}${cell("p99 ms", 9)}${cell("n", 7)}${cell("failed", 8)}`,
  );
  for (const level of levels) {
    const row = (name: string, s: Summary & { rps: number; failed: number }) =>
      print(
        `${String(level.concurrency).padEnd(5)}${name.padEnd(22)}${cell(s.rps, 8)}${cell(fmt(s.p50), 9)}${cell(fmt(s.p95), 9)}${cell(fmt(s.p99), 9)}${cell(s.n, 7)}${cell(s.failed, 8)}`,
      );
    for (const op of ["search", "context", "write", "forget"] as const) row(`memory_${op}`, level.ops[op]);
    if (level.floor.fullText) row("SQL floor: full text", level.floor.fullText);
    if (level.floor.path) row("SQL floor: whole path", level.floor.path);
    const ratios = [
      level.ratio.searchP50OverFullTextP50 !== undefined
        ? `search/full-text SQL p50 = ${level.ratio.searchP50OverFullTextP50}`
        : "",
      level.ratio.searchP50OverPathP50 !== undefined
        ? `search/whole-path SQL p50 = ${level.ratio.searchP50OverPathP50}`
        : "",
    ].filter(Boolean);
    print(
      `${"".padEnd(5)}total ${level.throughputRps} req/s; ${ratios.join("; ")}; load ${level.loadavgBefore.map((x) => x.toFixed(2)).join(" ")} → ${level.loadavgAfter.map((x) => x.toFixed(2)).join(" ")}`,
    );
  }
}
