/** Retrieval metrics over ranked id lists against gold evidence ids (memory-eval/v1). */

export type QueryOutcome = {
  category: string;
  gold: readonly string[];
  ranked: readonly string[];
  latencyMs: number;
  /** Process CPU time spent on the search: less sensitive than wall time to other load on the machine. */
  cpuMs?: number;
};

export type Metrics = {
  queries: number;
  "recall@1": number;
  "recall@5": number;
  "recall@10": number;
  "hit@10": number;
  mrr: number;
  latencyP50Ms: number;
  latencyP95Ms: number;
  cpuP50Ms?: number;
  cpuP95Ms?: number;
};

/** Share of gold ids found in the top k. */
export function recallAt(gold: readonly string[], ranked: readonly string[], k: number): number {
  if (gold.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return gold.filter((id) => top.has(id)).length / gold.length;
}

export function reciprocalRank(gold: readonly string[], ranked: readonly string[]): number {
  const wanted = new Set(gold);
  const index = ranked.findIndex((id) => wanted.has(id));
  return index < 0 ? 0 : 1 / (index + 1);
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

const r4 = (x: number) => Math.round(x * 10_000) / 10_000;

export function summarize(outcomes: readonly QueryOutcome[]): Metrics {
  const n = outcomes.length || 1;
  const mean = (f: (o: QueryOutcome) => number) => r4(outcomes.reduce((sum, o) => sum + f(o), 0) / n);
  const latencies = outcomes.map((o) => o.latencyMs);
  return {
    queries: outcomes.length,
    "recall@1": mean((o) => recallAt(o.gold, o.ranked, 1)),
    "recall@5": mean((o) => recallAt(o.gold, o.ranked, 5)),
    "recall@10": mean((o) => recallAt(o.gold, o.ranked, 10)),
    "hit@10": mean((o) => (recallAt(o.gold, o.ranked, 10) > 0 ? 1 : 0)),
    mrr: mean((o) => reciprocalRank(o.gold, o.ranked)),
    latencyP50Ms: r4(percentile(latencies, 50)),
    latencyP95Ms: r4(percentile(latencies, 95)),
    ...(outcomes.every((o) => o.cpuMs !== undefined) && outcomes.length > 0
      ? {
          cpuP50Ms: r4(
            percentile(
              outcomes.map((o) => o.cpuMs!),
              50,
            ),
          ),
          cpuP95Ms: r4(
            percentile(
              outcomes.map((o) => o.cpuMs!),
              95,
            ),
          ),
        }
      : {}),
  };
}

/** Overall, per category, and a headline over every category not excluded (LoCoMo: without adversarial). */
export function report(outcomes: readonly QueryOutcome[], headlineExclude: readonly string[]) {
  const categories = [...new Set(outcomes.map((o) => o.category))].sort();
  return {
    overall: summarize(outcomes),
    headline: {
      excludes: headlineExclude,
      ...summarize(outcomes.filter((o) => !headlineExclude.includes(o.category))),
    },
    byCategory: Object.fromEntries(categories.map((c) => [c, summarize(outcomes.filter((o) => o.category === c))])),
  };
}
