/**
 * Recall benchmark on memory-eval/v1 data (../shared/bench/README.md), through the real service:
 * each conversation is appended to its own session and user scope with appendMessages, its turns are
 * embedded with the configured provider functions (synchronously, instead of via the job queue),
 * and every query runs through memorySearch({queryText, includeEvidence: true}) as an agent whose
 * only readable scope is that conversation's. A MiniSearch BM25 baseline ranks the same texts in
 * the same run. Writes a JSON report to bench/results/.
 *
 *   npm run bench:recall -- --dataset bench/data/locomo.json [--limit-conversations N]
 *     [--embeddings local|none|configured] [--vector-weight W] [--dims 256] [--k 10] [--no-speaker]
 *     [--db-url postgres://…/scratch_db] [--headline-exclude adversarial] [--out bench/results]
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDatabase } from "~/db/client";
import { ensureEmbeddingIndex } from "~/db/embedding-index";
import { tenants } from "~/db/schema";
import { newId } from "~/server/ids";
import type { MemoryCallContext } from "~/server/memory/context";
import { embedTargets } from "~/server/memory/embeddings";
import { appendMessages, MAX_MESSAGES_PER_APPEND } from "~/server/memory/messages";
import { memorySearch } from "~/server/memory/retrieval/search";
import { SEARCH_LIMITS } from "~/server/memory/retrieval/search-schema";
import { getEmbeddingProvider, type EmbeddingProvider } from "~/server/providers/embeddings";
import { createLocalEmbeddingProvider } from "~/server/providers/embeddings/local";
import { buildBaseline } from "./lib/baseline";
import { parseArgs, readDataset, type EvalDataset } from "./lib/eval-format";
import { report, type QueryOutcome } from "./lib/metrics";

/** Untimed searches per conversation before measuring (reported in the config). */
const WARM_UP_QUERIES = 3;

type Options = {
  dataset: string;
  limitConversations?: number;
  embeddings: "local" | "none" | "configured";
  /** Overrides the provider's signalWeight (how much vectors count in fusion), to measure it. */
  vectorWeight?: number;
  dims: number;
  k: number;
  speakerPrefix: boolean;
  dbUrl?: string;
  headlineExclude: string[];
  out: string;
};

function options(): Options {
  const args = parseArgs(process.argv.slice(2));
  const dataset = args.get("dataset");
  if (typeof dataset !== "string") throw new Error("usage: npm run bench:recall -- --dataset FILE [--limit-conversations N] (convert one first: npx tsx bench/convert-locomo.ts)");
  const embeddings = String(args.get("embeddings") ?? "local");
  if (!["local", "none", "configured"].includes(embeddings)) throw new Error("--embeddings is local, none or configured");
  const limit = args.get("limit-conversations");
  return {
    dataset,
    limitConversations: typeof limit === "string" ? Number(limit) : undefined,
    embeddings: embeddings as Options["embeddings"],
    vectorWeight: typeof args.get("vector-weight") === "string" ? Number(args.get("vector-weight")) : undefined,
    dims: Number(args.get("dims") ?? 256),
    k: Math.min(Number(args.get("k") ?? 10), SEARCH_LIMITS.maxLimit),
    speakerPrefix: !args.has("no-speaker"),
    dbUrl: typeof args.get("db-url") === "string" ? String(args.get("db-url")) : undefined,
    headlineExclude: String(args.get("headline-exclude") ?? "adversarial").split(",").filter(Boolean),
    out: String(args.get("out") ?? path.resolve(import.meta.dirname, "results")),
  };
}

function provider(opts: Options): EmbeddingProvider | null {
  if (opts.embeddings === "none") return null;
  const chosen = opts.embeddings === "configured" ? getEmbeddingProvider() : createLocalEmbeddingProvider({ dimensions: opts.dims });
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

async function main() {
  const opts = options();
  const dataset = readDataset(opts.dataset);
  const embedder = provider(opts);
  const handle = await openDatabase(opts.dbUrl ? { url: opts.dbUrl } : { dataDir: null });
  const mode = opts.dbUrl ? "postgres" : "pglite";
  try {
    if (embedder) await ensureEmbeddingIndex(handle.db, embedder.model, embedder.dimensions);
    const tenantId = newId("ten");
    await handle.db.insert(tenants).values({ id: tenantId, name: `bench ${dataset.name}`, slug: tenantId });
    const conversations = dataset.conversations.slice(0, opts.limitConversations ?? dataset.conversations.length);
    const service: QueryOutcome[] = [];
    const baseline: QueryOutcome[] = [];
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
      const t0 = performance.now();
      for (const sitting of sittings(conversation.messages)) {
        for (let i = 0; i < sitting.messages.length; i += MAX_MESSAGES_PER_APPEND) {
          const batch = sitting.messages.slice(i, i + MAX_MESSAGES_PER_APPEND);
          const { messages } = await appendMessages(handle.db, ctx, {
            sessionId: sitting.session ? `${scopeId}/${sitting.session}` : scopeId,
            userScopeId: scopeId,
            messages: batch.map((m) => ({ role: m.role, content: turnText(m, opts.speakerPrefix), clientMessageId: m.id, ...(m.createdAt ? { createdAt: new Date(m.createdAt) } : {}) })),
          });
          messages.forEach((stored, j) => datasetIdOf.set(stored.id, batch[j]!.id));
        }
      }
      const t1 = performance.now();
      if (embedder) {
        const ids = [...datasetIdOf.keys()];
        for (let i = 0; i < ids.length; i += 500) {
          await embedTargets(handle.db, embedder, { tenantId, targets: ids.slice(i, i + 500).map((id) => ({ kind: "message" as const, id })) });
        }
      }
      ingestMs += t1 - t0;
      embedMs += performance.now() - t1;
      turns += conversation.messages.length;

      // Warm-up, untimed: the first statements of a shape pay for planning and JIT compilation.
      for (let i = 0; i < WARM_UP_QUERIES; i++) await memorySearch(handle.db, ctx, { queryText: "warm up the search path", includeEvidence: true, limit: opts.k }, { embeddings: embedder, logQuery: false });

      const lexical = buildBaseline(conversation.messages.map((m) => ({ id: m.id, text: turnText(m, opts.speakerPrefix) })));
      const queries = dataset.queries.filter((q) => q.conversationId === conversation.id && q.evidence.length > 0);
      for (const query of queries) {
        const category = query.category ?? "all";
        const question = questionText(query.question);
        const c0 = process.cpuUsage();
        const s0 = performance.now();
        const result = await memorySearch(handle.db, ctx, { queryText: question, includeEvidence: true, limit: opts.k }, { embeddings: embedder });
        const s1 = performance.now();
        const cpu = process.cpuUsage(c0);
        service.push({ category, gold: query.evidence, ranked: (result.evidence ?? []).map((e) => datasetIdOf.get(e.id) ?? e.id), latencyMs: s1 - s0, cpuMs: (cpu.user + cpu.system) / 1000 });
        const b0 = performance.now();
        const ranked = lexical.search(question, opts.k);
        baseline.push({ category, gold: query.evidence, ranked, latencyMs: performance.now() - b0 });
      }
      process.stderr.write(`  ${conversation.id}: ${conversation.messages.length} turns, ${queries.length} queries\n`);
    }

    const skipped = dataset.queries.filter((q) => conversations.some((c) => c.id === q.conversationId) && q.evidence.length === 0).length;
    const out = {
      format: "memory-eval-report/v1",
      dataset: { name: dataset.name, file: path.relative(process.cwd(), opts.dataset), notes: dataset.notes ?? {} },
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
        embeddings: embedder ? { model: embedder.model, dimensions: embedder.dimensions, signalWeight: embedder.signalWeight } : null,
        speakerPrefix: opts.speakerPrefix,
        warmUpQueriesPerConversation: WARM_UP_QUERIES,
        ingestMs: Math.round(ingestMs),
        embedMs: Math.round(embedMs),
      },
      service: report(service, opts.headlineExclude),
      baseline: { name: "minisearch-bm25", ...report(baseline, opts.headlineExclude) },
    };
    fs.mkdirSync(opts.out, { recursive: true });
    const file = path.join(opts.out, `${[dataset.name, mode, ...variant(opts)].join("-")}-${out.ranAt.replace(/[:.]/g, "-")}.json`);
    fs.writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
    printTable(out.service, out.baseline);
    console.log(`report: ${path.relative(process.cwd(), file)}`);
  } finally {
    await handle.close();
  }
}

/** What sets a run apart from the default one, for its file name. */
function variant(opts: Options): string[] {
  return [
    opts.limitConversations !== undefined ? `${opts.limitConversations}conv` : "",
    opts.embeddings !== "local" ? `emb_${opts.embeddings}` : "",
    opts.vectorWeight !== undefined ? `vw${opts.vectorWeight}` : "",
    opts.speakerPrefix ? "" : "nospeaker",
  ].filter(Boolean);
}

function printTable(service: ReturnType<typeof report>, baseline: ReturnType<typeof report>) {
  const row = (name: string, m: ReturnType<typeof report>["overall"]) =>
    `${name.padEnd(28)} n=${String(m.queries).padStart(4)}  R@1 ${m["recall@1"].toFixed(3)}  R@5 ${m["recall@5"].toFixed(3)}  R@10 ${m["recall@10"].toFixed(3)}  hit@10 ${m["hit@10"].toFixed(3)}  MRR ${m.mrr.toFixed(3)}  p50 ${m.latencyP50Ms.toFixed(1)}ms  p95 ${m.latencyP95Ms.toFixed(1)}ms` +
    (m.cpuP50Ms !== undefined ? `  cpu p50 ${m.cpuP50Ms.toFixed(1)}ms p95 ${m.cpuP95Ms!.toFixed(1)}ms` : "");
  for (const [label, r] of [["service", service], ["bm25", baseline]] as const) {
    console.log(row(`${label} overall`, r.overall));
    console.log(row(`${label} headline`, r.headline));
    for (const [category, m] of Object.entries(r.byCategory)) console.log(row(`${label}  ${category}`, m));
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exit(1);
});
