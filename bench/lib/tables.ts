import type { Metrics, report } from "./metrics";

type Report = ReturnType<typeof report>;
type Named = { name: string } & Report;

const METRICS = ["recall@1", "recall@5", "recall@10", "hit@10", "mrr"] as const;

/** Metric by metric, the better of the baselines (and which one it was), overall, headline and per category. */
export function bestOf(baselines: readonly Named[]) {
  const best = (pick: (r: Report) => Metrics | undefined) => {
    const out: Record<string, number | string> = {};
    for (const metric of METRICS) {
      let top: { value: number; name: string } | undefined;
      for (const b of baselines) {
        const value = pick(b)?.[metric];
        if (value !== undefined && (!top || value > top.value)) top = { value, name: b.name };
      }
      if (top) {
        out[metric] = top.value;
        out[`${metric}By`] = top.name;
      }
    }
    return out;
  };
  const categories = [...new Set(baselines.flatMap((b) => Object.keys(b.byCategory)))].sort();
  return {
    overall: best((r) => r.overall),
    headline: best((r) => r.headline),
    byCategory: Object.fromEntries(categories.map((c) => [c, best((r) => r.byCategory[c])])),
  };
}

/** Where the service is judged: below the best baseline by more than this is a loss. */
export const SLACK = 0.01;

const f = (x: number | undefined) => (x === undefined ? "–" : x.toFixed(3));

/** One Markdown table per dataset: service vs the best in-run baseline, overall, headline and per category. */
export function markdownTables(
  runs: readonly {
    name: string;
    out: { service: Report; bestBaseline: ReturnType<typeof bestOf>; config: { queries: number } };
  }[],
): string {
  const lines: string[] = [];
  for (const { name, out } of runs) {
    lines.push(
      `#### ${name}`,
      "",
      "| part | n | service hit@10 | R@10 | MRR | best baseline hit@10 | R@10 | MRR | Δ hit@10 | Δ MRR |",
      "|---|---|---|---|---|---|---|---|---|---|",
    );
    const rows: [string, Metrics, Record<string, number | string> | undefined][] = [
      ["overall", out.service.overall, out.bestBaseline.overall],
      ["headline", out.service.headline, out.bestBaseline.headline],
      ...Object.entries(out.service.byCategory).map(
        ([c, m]): [string, Metrics, Record<string, number | string> | undefined] => [
          c,
          m,
          out.bestBaseline.byCategory[c],
        ],
      ),
    ];
    for (const [part, s, b] of rows) {
      const num = (key: string) => (typeof b?.[key] === "number" ? (b[key] as number) : undefined);
      const dHit = s["hit@10"] - (num("hit@10") ?? 0);
      const dMrr = s.mrr - (num("mrr") ?? 0);
      const mark = (d: number) => `${d >= 0 ? "+" : ""}${d.toFixed(3)}${d < -SLACK ? " ✗" : ""}`;
      lines.push(
        `| ${part} | ${s.queries} | ${f(s["hit@10"])} | ${f(s["recall@10"])} | ${f(s.mrr)} | ${f(num("hit@10"))} | ${f(num("recall@10"))} | ${f(num("mrr"))} | ${mark(dHit)} | ${mark(dMrr)} |`,
      );
    }
    lines.push("");
  }
  return lines.join("\n");
}
