/**
 * Offline study of a second ranking stage over the first stage's top 50 (bench:recall --candidates).
 * For every candidate it computes the features the service's second stage uses (second-stage.ts:
 * IDF-weighted coverage of the query's terms, proximity of the matched terms, the longest exact
 * multi-character match), grid-searches their weights on ONE dataset (--fit), and reports every
 * dataset with those weights next to the first stage alone. Never fit on the set you report as held out.
 *   npx tsx bench/second-stage-fit.ts --fit locomo --sets locomo,madial-zh,... [--dir /tmp/cand --prefix c]
 *     [--base final|lexical] [--drop FEATURE,…] [--weights JSON] [--categories]
 */
import fs from "node:fs";
import path from "node:path";
import { parseArgs, readDataset } from "./lib/eval-format";
import { queryTerms } from "~/server/memory/retrieval/query-terms";
import { secondStageFeatures, secondStageScore, type SecondStageWeights } from "~/server/memory/retrieval/second-stage";
import { segmentForSearch } from "~/server/text/segment";

type Candidate = { id: string; text: string; score: { fullText?: number; context?: number; final?: number } };
type Row = { id: string; category: string; question: string; gold: string[]; top: Candidate[] };

const args = parseArgs(process.argv.slice(2));
const dir = String(args.get("dir") ?? "/tmp/cand");
const prefix = String(args.get("prefix") ?? "c");
const sets = String(args.get("sets") ?? "")
  .split(",")
  .filter(Boolean);
const fitOn = String(args.get("fit") ?? sets[0]);
const dataDir = path.resolve(import.meta.dirname, "data");

/** Per conversation scope: document frequency of each indexed token and the row count. */
function corpusIndex(set: string) {
  const data = readDataset(path.join(dataDir, `${set}.json`));
  const byConversation = new Map<string, { n: number; df: Map<string, number>; tokens: Set<string>[] }>();
  for (const c of data.conversations) {
    const df = new Map<string, number>();
    const tokens: Set<string>[] = [];
    for (const m of c.messages) {
      const text = m.speaker ? `${m.speaker}: ${m.content}` : m.content;
      const set = new Set(segmentForSearch(text).split(" ").filter(Boolean));
      tokens.push(set);
      for (const t of set) df.set(t, (df.get(t) ?? 0) + 1);
    }
    byConversation.set(c.id, { n: c.messages.length, df, tokens });
  }
  const conversationOf = new Map(data.queries.map((q) => [q.id, q.conversationId]));
  return { byConversation, conversationOf };
}

function load(set: string) {
  const file = path.join(dir, `${prefix}-${set}.jsonl`);
  const rows = fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Row);
  const index = corpusIndex(set);
  const prefixDf = new Map<string, number>();
  return rows.map((row) => {
    const scope = index.byConversation.get(index.conversationOf.get(row.id) ?? "")!;
    const terms = queryTerms(row.question);
    const df = terms.map((t) => {
      if (!t.prefix) return scope.df.get(t.term) ?? 0;
      const key = `${index.conversationOf.get(row.id)}|${t.term}`;
      if (!prefixDf.has(key))
        prefixDf.set(key, scope.tokens.filter((s) => [...s].some((x) => x.startsWith(t.term))).length);
      return prefixDf.get(key)!;
    });
    const lexical = row.top.map((c) => (c.score.fullText ?? 0) + (c.score.context ?? 0));
    const maxLexical = Math.max(...lexical, 1e-9);
    const base = String(args.get("base") ?? "final");
    const candidates = row.top.map((c, rank) => ({
      id: c.id,
      rank,
      first: base === "lexical" ? lexical[rank]! / maxLexical : (c.score.final ?? 0),
      features: secondStageFeatures(row.question, terms, df, scope.n, c.text),
    }));
    return { category: row.category, gold: new Set(row.gold), candidates };
  });
}

type Loaded = ReturnType<typeof load>;

function evaluate(rows: Loaded, weights: SecondStageWeights | null, k = 10) {
  let hits = 0;
  let mrr = 0;
  let recall = 0;
  const byCategory = new Map<string, { n: number; hits: number; mrr: number }>();
  for (const row of rows) {
    const order = weights
      ? [...row.candidates].sort(
          (a, b) =>
            secondStageScore(b.first, b.features, weights) - secondStageScore(a.first, a.features, weights) ||
            a.rank - b.rank,
        )
      : row.candidates;
    const top = order.slice(0, k);
    const first = top.findIndex((c) => row.gold.has(c.id));
    const found = top.filter((c) => row.gold.has(c.id)).length;
    const hit = first >= 0 ? 1 : 0;
    const rr = first >= 0 ? 1 / (first + 1) : 0;
    hits += hit;
    mrr += rr;
    recall += found / row.gold.size;
    const cat = byCategory.get(row.category) ?? { n: 0, hits: 0, mrr: 0 };
    cat.n++;
    cat.hits += hit;
    cat.mrr += rr;
    byCategory.set(row.category, cat);
  }
  const n = Math.max(rows.length, 1);
  return { hit: hits / n, mrr: mrr / n, recall: recall / n, byCategory };
}

const loaded = new Map(sets.map((s) => [s, load(s)]));
// --drop FEATURE,…: fit with those features' weights held at 0 (an ablation of the fitted stage).
const dropped = new Set(
  String(args.get("drop") ?? "")
    .split(",")
    .filter(Boolean),
);
const steps = (feature: keyof SecondStageWeights) => (dropped.has(feature) ? [0] : [0, 0.25, 0.5, 1, 2, 4]);
const grid: SecondStageWeights[] = [];
for (const coverage of steps("coverage"))
  for (const proximity of steps("proximity"))
    for (const phrase of steps("phrase"))
      for (const answerType of steps("answerType")) grid.push({ coverage, proximity, phrase, answerType, join: 0 });
const fitRows = loaded.get(fitOn)!;
const scored = grid
  .map((w) => ({ w, m: evaluate(fitRows, w) }))
  .sort((a, b) => b.m.hit + b.m.mrr - (a.m.hit + a.m.mrr));
const best = scored[0]!.w;
console.log(
  `fitted on ${fitOn}: ${JSON.stringify(best)}  (top 5: ${scored
    .slice(0, 5)
    .map((s) => `${JSON.stringify(s.w)} ${s.m.hit.toFixed(3)}/${s.m.mrr.toFixed(3)}`)
    .join("; ")})`,
);
const fixed = args.get("weights");
const report = typeof fixed === "string" ? (JSON.parse(fixed) as SecondStageWeights) : best;
console.log(`reporting with ${JSON.stringify(report)}`);
console.log("| set | first stage hit@10 / R@10 / MRR | with second stage | Δ hit@10 | Δ MRR |");
console.log("|---|---|---|---|---|");
for (const [set, rows] of loaded) {
  const a = evaluate(rows, null);
  const b = evaluate(rows, report);
  console.log(
    `| ${set} | ${a.hit.toFixed(3)} / ${a.recall.toFixed(3)} / ${a.mrr.toFixed(3)} | ${b.hit.toFixed(3)} / ${b.recall.toFixed(3)} / ${b.mrr.toFixed(3)} | ${(b.hit - a.hit).toFixed(3)} | ${(b.mrr - a.mrr).toFixed(3)} |`,
  );
  if (args.has("categories")) {
    for (const [cat, x] of a.byCategory) {
      const y = b.byCategory.get(cat)!;
      console.log(
        `|   ${cat} (${x.n}) | ${(x.hits / x.n).toFixed(3)} / ${(x.mrr / x.n).toFixed(3)} | ${(y.hits / y.n).toFixed(3)} / ${(y.mrr / y.n).toFixed(3)} | ${((y.hits - x.hits) / x.n).toFixed(3)} | ${((y.mrr - x.mrr) / x.n).toFixed(3)} |`,
      );
    }
  }
}
