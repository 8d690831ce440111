/**
 * Recall benchmark on memory-eval/v1 data (../shared/bench/README.md), through the real service:
 * each conversation is appended to its own session and user scope with appendMessages, its turns are
 * embedded with the configured provider functions (synchronously, instead of via the job queue),
 * the planner statistics are refreshed (as a memory in use has them), and every query runs through
 * memorySearch({queryText, includeEvidence: true}) as an agent whose
 * only readable scope is that conversation's. A MiniSearch BM25 baseline ranks the same texts in
 * the same run, and so does a plain Okapi BM25 over words and CJK bigrams; the service is judged against
 * the better of the two. Writes a JSON report to bench/results/: one per dataset, or with --all one
 * `recall-all-…` file holding every dataset's report.
 *
 *   npm run bench:recall -- --dataset bench/data/locomo.json [--limit-conversations N]
 *     [--embeddings local|none|configured] [--vector-weight W] [--dims 256] [--k 10] [--no-speaker]
 *     [--ablate FEATURE,…] [--misses FILE.jsonl] [--candidates FILE.jsonl] [--markdown]
 *     [--db-url postgres://…/scratch_db] [--no-analyze] [--headline-exclude adversarial] [--out bench/results]
 *   npm run bench:recall -- --all        every given dataset (bash bench/prepare-data.sh makes them), tables in Markdown
 */
import { sql } from "drizzle-orm";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDatabase } from "~/db/client";
import { ensureEmbeddingIndex } from "~/db/embedding-index";
import { tenants } from "~/db/schema";
import { newId } from "~/server/ids";
import type { MemoryCallContext } from "~/server/memory/call-context";
import { embedTargets } from "~/server/memory/embeddings/vectors";
import { appendMessages, MAX_MESSAGES_PER_APPEND } from "~/server/memory/evidence/messages";
import { memorySearch } from "~/server/memory/retrieval/search";
import { SEARCH_LIMITS } from "~/server/memory/retrieval/search-schema";
import { termShares } from "~/server/memory/retrieval/term-shares";
import { getEmbeddingProvider, type EmbeddingProvider } from "~/server/providers/embeddings";
import { createLocalEmbeddingProvider } from "~/server/providers/embeddings/local";
import {
  isRankingFeature,
  RANKING_FEATURES,
  rankingFeaturesWithout,
  type RankingFeature,
} from "~/server/memory/retrieval/ranking-features";
import { buildBaseline } from "./lib/baseline";
import { buildOkapiBaseline } from "./lib/okapi";
import { bestOf, markdownTables } from "./lib/tables";
import { parseArgs, readDataset, type EvalDataset } from "./lib/eval-format";
import { report, type QueryOutcome } from "./lib/metrics";
import { registerTreeSubscribers } from "~/server/tree";

// Messages stored here become memory-tree chunks, as in the server (src/server/tree/subscribers.ts).
registerTreeSubscribers();

/** Untimed searches per conversation before measuring (reported in the config). */
const WARM_UP_QUERIES = 3;

/** `--all`: the given datasets, as bench/prepare-data.sh names them. */
const ALL_DATASETS = [
  "locomo",
  "locomo-pooled",
  "locomo-log",
  "madial-zh",
  "madial-en",
  "madial-zh-last",
  "madial-en-last",
  "madial-zh-noisy",
  "madial-zh2en",
  "madial-en2zh",
] as const;

type Options = {
  dataset?: string;
  all: boolean;
  /** Ranking features switched off (ranking-features.ts). */
  ablate: RankingFeature[];
  /** Where to write the queries whose gold missed the top k (JSON Lines). */
  misses?: string;
  /** Where to write every query's top 50 with texts and score parts (JSON Lines), for fitting a second stage offline. */
  candidates?: string;
  markdown: boolean;
  limitConversations?: number;
  embeddings: "local" | "none" | "configured";
  /** Overrides the provider's signalWeight (how much vectors count in fusion), to measure it. */
  vectorWeight?: number;
  dims: number;
  k: number;
  speakerPrefix: boolean;
  /** Refresh the planner's statistics after each conversation is written (default; `--no-analyze` skips it). */
  analyze: boolean;
  dbUrl?: string;
  headlineExclude: string[];
  out: string;
};

function options(): Options {
  const args = parseArgs(process.argv.slice(2));
  const dataset = args.get("dataset");
  const all = args.has("all");
  if (typeof dataset !== "string" && !all)
    throw new Error(
      "usage: npm run bench:recall -- --dataset FILE | --all [--limit-conversations N] (make the data first: bash bench/prepare-data.sh)",
    );
  const ablate = String(args.get("ablate") ?? "")
    .split(",")
    .filter(Boolean);
  const unknown = ablate.filter((f) => !isRankingFeature(f));
  if (unknown.length)
    throw new Error(`--ablate: unknown feature ${unknown.join(", ")}; one of ${RANKING_FEATURES.join(", ")}`);
  const embeddings = String(args.get("embeddings") ?? "local");
  if (!["local", "none", "configured"].includes(embeddings))
    throw new Error("--embeddings is local, none or configured");
  const limit = args.get("limit-conversations");
  return {
    dataset: typeof dataset === "string" ? dataset : undefined,
    all,
    ablate: ablate.filter(isRankingFeature),
    misses: typeof args.get("misses") === "string" ? String(args.get("misses")) : undefined,
    candidates: typeof args.get("candidates") === "string" ? String(args.get("candidates")) : undefined,
    markdown: args.has("markdown"),
    limitConversations: typeof limit === "string" ? Number(limit) : undefined,
    embeddings: embeddings as Options["embeddings"],
    vectorWeight: typeof args.get("vector-weight") === "string" ? Number(args.get("vector-weight")) : undefined,
    dims: Number(args.get("dims") ?? 256),
    k: Math.min(Number(args.get("k") ?? 10), SEARCH_LIMITS.maxLimit),
    speakerPrefix: !args.has("no-speaker"),
    analyze: !args.has("no-analyze"),
    dbUrl: typeof args.get("db-url") === "string" ? String(args.get("db-url")) : undefined,
    headlineExclude: String(args.get("headline-exclude") ?? "adversarial")
      .split(",")
      .filter(Boolean),
    out: String(args.get("out") ?? path.resolve(import.meta.dirname, "results")),
  };
}

/**
 * What a memory in use has: statistics as the maintenance job (embedded, every 15 minutes) or
 * autovacuum (server) leave them after a bulk write. Search reads from them how common each word
 * is (term-shares.ts); without them every word counts as rare, a state that lasts minutes in use.
 */
async function refreshStatistics(db: Handle["db"]) {
  const tables = ["memory_messages", "memory_chunks", "memory_nodes"];
  await db.execute(sql.raw(`analyze ${tables.join(", ")}`));
  for (const table of tables) await termShares(db, table, { maxAgeMs: 0 });
}

function provider(opts: Options): EmbeddingProvider | null {
  if (opts.embeddings === "none") return null;
  const chosen =
    opts.embeddings === "configured" ? getEmbeddingProvider() : createLocalEmbeddingProvider({ dimensions: opts.dims });
  return opts.vectorWeight === undefined ? chosen : { ...chosen, signalWeight: opts.vectorWeight, embed: chosen.embed };
}

/** What the service stores for a turn; the baseline indexes the very same text. */
const turnText = (m: EvalDataset["conversations"][number]["messages"][number], speakerPrefix: boolean) =>
  speakerPrefix && m.speaker ? `${m.speaker}: ${m.content}` : m.content;

/** Runs of consecutive messages with the same `session` (one service session each). */
function sittings(messages: EvalDataset["conversations"][number]["messages"]) {
  const out: { session: string | undefined; messages: typeof messages }[] = [];
  for (const m of messages) {
    const last = out.at(-1);
    if (last && last.session === m.session) last.messages.push(m);
    else out.push({ session: m.session, messages: [m] });
  }
  return out;
}

/** Search input is capped at 1,000 characters; a longer question keeps its end (the latest turns). */
const questionText = (q: string) => (q.length > SEARCH_LIMITS.queryText ? q.slice(-SEARCH_LIMITS.queryText) : q);

type Handle = Awaited<ReturnType<typeof openDatabase>>;
type Candidates = {
  id: string;
  category: string;
  question: string;
  gold: string[];
  top: { id: string; text: string; score: unknown }[];
};
type Miss = {
  id: string;
  category: string;
  question: string;
  gold: { id: string; rank: number | null }[];
  top: { id: string; text: string; score: unknown }[];
};

/** One dataset through the service and both baselines: the report, and the queries whose gold missed the top k. */
async function runDataset(handle: Handle, datasetFile: string, opts: Options) {
  const dataset = readDataset(datasetFile);
  const embedder = provider(opts);
  const mode = opts.dbUrl ? "postgres" : "pglite";
  const ranking = rankingFeaturesWithout(opts.ablate);
  if (embedder) await ensureEmbeddingIndex(handle.db, embedder.model, embedder.dimensions);
  const tenantId = newId("ten");
  await handle.db.insert(tenants).values({ id: tenantId, name: `bench ${dataset.name}`, slug: tenantId });
  const conversations = dataset.conversations.slice(0, opts.limitConversations ?? dataset.conversations.length);
  const service: QueryOutcome[] = [];
  const baselines = { "minisearch-bm25": [] as QueryOutcome[], "okapi-bm25-bigram": [] as QueryOutcome[] };
  const misses: Miss[] = [];
  const candidates: Candidates[] = [];
  let ingestMs = 0;
  let embedMs = 0;
  let turns = 0;

  for (const conversation of conversations) {
    const scopeId = `bench-${conversation.id}`.replace(/[^A-Za-z0-9_.-]/g, "_");
    const ctx: MemoryCallContext = {
      tenantId,
      actor: { type: "system", id: "bench" },
      readScopes: [{ type: "user", id: scopeId }],
      writeScopes: [],
      defaults: { user: { type: "user", id: scopeId } },
      trustedMessageIds: [],
    };
    const datasetIdOf = new Map<string, string>();
    const textOf = new Map<string, string>();
    const t0 = performance.now();
    for (const sitting of sittings(conversation.messages)) {
      for (let i = 0; i < sitting.messages.length; i += MAX_MESSAGES_PER_APPEND) {
        const batch = sitting.messages.slice(i, i + MAX_MESSAGES_PER_APPEND);
        const { messages } = await appendMessages(handle.db, ctx, {
          sessionId: sitting.session ? `${scopeId}/${sitting.session}` : scopeId,
          userScopeId: scopeId,
          messages: batch.map((m) => ({
            role: m.role,
            content: turnText(m, opts.speakerPrefix),
            clientMessageId: m.id,
            ...(m.createdAt ? { createdAt: new Date(m.createdAt) } : {}),
          })),
        });
        messages.forEach((stored, j) => datasetIdOf.set(stored.id, batch[j]!.id));
      }
    }
    for (const m of conversation.messages) textOf.set(m.id, turnText(m, opts.speakerPrefix));
    const t1 = performance.now();
    if (embedder) {
      const ids = [...datasetIdOf.keys()];
      for (let i = 0; i < ids.length; i += 500) {
        await embedTargets(handle.db, embedder, {
          tenantId,
          targets: ids.slice(i, i + 500).map((id) => ({ kind: "message" as const, id })),
        });
      }
    }
    ingestMs += t1 - t0;
    embedMs += performance.now() - t1;
    if (opts.analyze) await refreshStatistics(handle.db);
    turns += conversation.messages.length;

    const searchOptions = { embeddings: embedder, ranking };
    // Warm-up, untimed: the first statements of a shape pay for planning and JIT compilation.
    for (let i = 0; i < WARM_UP_QUERIES; i++)
      await memorySearch(
        handle.db,
        ctx,
        { queryText: "warm up the search path", includeEvidence: true, limit: opts.k },
        { ...searchOptions, logQuery: false },
      );

    const texts = conversation.messages.map((m) => ({ id: m.id, text: turnText(m, opts.speakerPrefix) }));
    const lexical = { "minisearch-bm25": buildBaseline(texts), "okapi-bm25-bigram": buildOkapiBaseline(texts) };
    const queries = dataset.queries.filter((q) => q.conversationId === conversation.id && q.evidence.length > 0);
    for (const query of queries) {
      const category = query.category ?? "all";
      const question = questionText(query.question);
      const c0 = process.cpuUsage();
      const s0 = performance.now();
      const result = await memorySearch(
        handle.db,
        ctx,
        { queryText: question, includeEvidence: true, limit: opts.k },
        searchOptions,
      );
      const s1 = performance.now();
      const cpu = process.cpuUsage(c0);
      const ranked = (result.evidence ?? []).map((e) => datasetIdOf.get(e.id) ?? e.id);
      service.push({
        category,
        gold: query.evidence,
        ranked,
        latencyMs: s1 - s0,
        cpuMs: (cpu.user + cpu.system) / 1000,
      });
      for (const [name, index] of Object.entries(lexical) as [
        keyof typeof lexical,
        (typeof lexical)[keyof typeof lexical],
      ][]) {
        const b0 = performance.now();
        const top = index.search(question, opts.k);
        baselines[name].push({ category, gold: query.evidence, ranked: top, latencyMs: performance.now() - b0 });
      }
      if (opts.candidates) {
        const wide = await memorySearch(
          handle.db,
          ctx,
          { queryText: question, includeEvidence: true, limit: SEARCH_LIMITS.maxLimit },
          { ...searchOptions, logQuery: false },
        );
        candidates.push({
          id: query.id,
          category,
          question,
          gold: query.evidence,
          top: (wide.evidence ?? []).map((e) => ({
            id: datasetIdOf.get(e.id) ?? e.id,
            text: e.content,
            score: e.components ?? e.score,
          })),
        });
      }
      if (opts.misses && !ranked.some((id) => query.evidence.includes(id))) {
        // Untimed: the gold's ranks further down, and what ranked above it with each signal's part.
        const deeper = await memorySearch(
          handle.db,
          ctx,
          { queryText: question, includeEvidence: true, limit: SEARCH_LIMITS.maxLimit },
          { ...searchOptions, logQuery: false },
        );
        const order = (deeper.evidence ?? []).map((e) => datasetIdOf.get(e.id) ?? e.id);
        misses.push({
          id: query.id,
          category,
          question,
          gold: query.evidence.map((id) => ({
            id,
            rank: order.includes(id) ? order.indexOf(id) + 1 : null,
            text: textOf.get(id) ?? "",
          })),
          top: (result.evidence ?? []).map((e) => ({
            id: datasetIdOf.get(e.id) ?? e.id,
            text: e.content.slice(0, 200),
            score: e.components ?? e.score,
          })),
        });
      }
    }
    process.stderr.write(`  ${conversation.id}: ${conversation.messages.length} turns, ${queries.length} queries\n`);
  }

  const skipped = dataset.queries.filter(
    (q) => conversations.some((c) => c.id === q.conversationId) && q.evidence.length === 0,
  ).length;
  const baselineReports = Object.entries(baselines).map(([name, outcomes]) => ({
    name,
    ...report(outcomes, opts.headlineExclude),
  }));
  return {
    misses,
    candidates,
    report: {
      format: "memory-eval-report/v2",
      dataset: { name: dataset.name, file: path.relative(process.cwd(), datasetFile), notes: dataset.notes ?? {} },
      ranAt: new Date().toISOString(),
      backend: mode,
      /** Wall-clock latencies depend on what else the machine runs: the 1-minute load average at the end of the run. */
      loadAverage: Number(os.loadavg()[0]!.toFixed(2)),
      cpus: os.cpus().length,
      config: {
        conversations: conversations.length,
        turns,
        queries: service.length,
        queriesWithoutEvidenceSkipped: skipped,
        k: opts.k,
        embeddings: embedder
          ? { model: embedder.model, dimensions: embedder.dimensions, signalWeight: embedder.signalWeight }
          : null,
        speakerPrefix: opts.speakerPrefix,
        analyzed: opts.analyze,
        ablated: opts.ablate,
        warmUpQueriesPerConversation: WARM_UP_QUERIES,
        ingestMs: Math.round(ingestMs),
        embedMs: Math.round(embedMs),
      },
      service: report(service, opts.headlineExclude),
      baselines: baselineReports,
      /** Per category and metric, the better of the baselines: what the service is judged against. */
      bestBaseline: bestOf(baselineReports),
    },
  };
}

async function main() {
  const opts = options();
  const files = opts.all
    ? ALL_DATASETS.map((name) => path.resolve(import.meta.dirname, "data", `${name}.json`))
    : [opts.dataset!];
  const missing = files.filter((f) => !fs.existsSync(f));
  if (missing.length)
    throw new Error(
      `missing ${missing.map((f) => path.relative(process.cwd(), f)).join(", ")}: run bash bench/prepare-data.sh first`,
    );
  const handle = await openDatabase(opts.dbUrl ? { url: opts.dbUrl } : { dataDir: null });
  const mode = opts.dbUrl ? "postgres" : "pglite";
  const summaries: { name: string; out: Awaited<ReturnType<typeof runDataset>>["report"] }[] = [];
  try {
    for (const file of files) {
      const { report: out, misses, candidates } = await runDataset(handle, file, opts);
      console.log(`\n## ${out.dataset.name}`);
      printTable(out.service, out.baselines);
      if (files.length === 1)
        console.log(`report: ${path.relative(process.cwd(), writeReport(opts, out.dataset.name, mode, out))}`);
      if (opts.misses) {
        const missFile = files.length > 1 ? opts.misses.replace(/(\.jsonl?)?$/, `-${out.dataset.name}$1`) : opts.misses;
        fs.writeFileSync(missFile, misses.map((m) => JSON.stringify(m)).join("\n") + (misses.length ? "\n" : ""));
        console.log(`misses: ${misses.length} queries → ${path.relative(process.cwd(), missFile)}`);
      }
      if (opts.candidates) {
        const candidateFile =
          files.length > 1 ? opts.candidates.replace(/(\.jsonl?)?$/, `-${out.dataset.name}$1`) : opts.candidates;
        fs.writeFileSync(
          candidateFile,
          candidates.map((c) => JSON.stringify(c)).join("\n") + (candidates.length ? "\n" : ""),
        );
        console.log(`candidates: ${candidates.length} queries → ${path.relative(process.cwd(), candidateFile)}`);
      }
      summaries.push({ name: out.dataset.name, out });
    }
    if (files.length > 1) {
      // One file for the whole run: the datasets are judged together, and results/ keeps one of each kind.
      const combined = { ranAt: summaries[0]?.out.ranAt, backend: mode, datasets: summaries.map((s) => s.out) };
      console.log(`\nreport: ${path.relative(process.cwd(), writeReport(opts, "recall-all", mode, combined))}`);
    }
    if (summaries.length > 1 || opts.markdown) console.log(`\n${markdownTables(summaries)}`);
  } finally {
    await handle.close();
  }
}

function writeReport(opts: Options, name: string, mode: string, body: { ranAt?: string }): string {
  fs.mkdirSync(opts.out, { recursive: true });
  const ranAt = (body.ranAt ?? new Date().toISOString()).replace(/[:.]/g, "-");
  const file = path.join(opts.out, `${[name, mode, ...variant(opts)].join("-")}-${ranAt}.json`);
  fs.writeFileSync(file, `${JSON.stringify(body, null, 2)}\n`);
  return file;
}

/** What sets a run apart from the default one, for its file name. */
function variant(opts: Options): string[] {
  return [
    opts.limitConversations !== undefined ? `${opts.limitConversations}conv` : "",
    opts.embeddings !== "local" ? `emb_${opts.embeddings}` : "",
    opts.vectorWeight !== undefined ? `vw${opts.vectorWeight}` : "",
    opts.speakerPrefix ? "" : "nospeaker",
    ...opts.ablate.map((f) => `no_${f}`),
  ].filter(Boolean);
}

type Report = ReturnType<typeof report>;

function printTable(service: Report, baselines: readonly ({ name: string } & Report)[]) {
  const row = (name: string, m: Report["overall"]) =>
    `${name.padEnd(34)} n=${String(m.queries).padStart(4)}  R@1 ${m["recall@1"].toFixed(3)}  R@5 ${m["recall@5"].toFixed(3)}  R@10 ${m["recall@10"].toFixed(3)}  hit@10 ${m["hit@10"].toFixed(3)}  MRR ${m.mrr.toFixed(3)}  p50 ${m.latencyP50Ms.toFixed(1)}ms  p95 ${m.latencyP95Ms.toFixed(1)}ms` +
    (m.cpuP50Ms !== undefined ? `  cpu p50 ${m.cpuP50Ms.toFixed(1)}ms p95 ${m.cpuP95Ms!.toFixed(1)}ms` : "");
  for (const [label, r] of [["service", service], ...baselines.map((b) => [b.name, b] as const)] as const) {
    console.log(row(`${label} overall`, r.overall));
    console.log(row(`${label} headline`, r.headline));
    for (const [category, m] of Object.entries(r.byCategory)) console.log(row(`${label}  ${category}`, m));
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exit(1);
});
