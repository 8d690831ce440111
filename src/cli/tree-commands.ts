import { createInterface } from "node:readline/promises";
import type { Database } from "~/db/types";
import { runWorkerLoop } from "~/server/background-work";
import { enqueueMissingEmbeddings, eraseTenantMemory, processEmbedJobs, TENANT_MEMORY_TABLES } from "~/server/memory";
import { retryOnContention } from "~/db/pg-errors";
import { getEmbeddingProvider } from "~/server/providers/embeddings";
import { newWorkerId } from "~/server/jobs/worker";
import { getGlobalStats, getHotTopics, searchChunks } from "~/server/tree";
import { createProgress } from "./progress";

const out = (line = "") => console.log(line);

export async function treeStats(db: Database, tenantId: string) {
  const s = await getGlobalStats(db, { tenantId });
  out(
    `  chunks: ${
      Object.entries(s.chunks)
        .map(([k, n]) => `${n} ${k}`)
        .join(", ") || "none"
    }; topics: ${s.topics} (${s.activeTopics} active); tree summaries: ${s.treeSummaries}`,
  );
  out(
    `  jobs (7 days): ${
      Object.entries(s.jobsLast7Days)
        .map(([k, n]) => `${n} ${k}`)
        .join(", ") || "none"
    }`,
  );
}

export async function treeSearch(db: Database, tenantId: string, query: string) {
  const hits = await searchChunks(db, { tenantId, query, limit: 10 });
  if (hits.length === 0) out(`No chunk matches "${query}".`);
  for (const h of hits)
    out(
      `${h.occurredAt.toISOString().slice(0, 16)}  ${h.sessionId}  [${h.role}] score ${h.score.toFixed(2)}${h.topics.length ? `  {${h.topics.join(", ")}}` : ""}\n    ${h.content.replace(/\s+/g, " ").slice(0, 160)}`,
    );
}

export async function treeTopics(db: Database, tenantId: string) {
  const topics = await getHotTopics(db, { tenantId, limit: 30, includeArchived: true });
  if (topics.length === 0) out("No topics yet.");
  for (const t of topics)
    out(
      `${t.hotness.toFixed(3)}  ${t.status.padEnd(8)} ${t.name}  (${t.mentionCount} mentions)${t.summary ? `\n    ${t.summary.slice(0, 160)}` : ""}`,
    );
}

/** Removes a tenant's memory (cards, evidence, tree, jobs) in one transaction; people, keys and grants stay. */
export async function clearTenantMemory(db: Database, tenantId: string, options: { yes: boolean }) {
  if (!options.yes) {
    if (!process.stdin.isTTY) {
      out(`Nothing was erased: confirming needs a terminal. To erase without asking, run clear --yes.`);
      return false;
    }
    const rl = createInterface({ input: process.stdin, output: process.stdout });
    const answer = await rl.question(
      `Erase ALL memory of organisation ${tenantId} (cards, messages, summaries, memory tree)? Type "erase" to confirm: `,
    );
    rl.close();
    if (answer.trim() !== "erase") {
      out("Nothing was erased.");
      return false;
    }
  }
  const tables = Object.keys(TENANT_MEMORY_TABLES).length;
  const progress = createProgress("erasing", tables);
  await retryOnContention(() =>
    db.transaction((tx) =>
      eraseTenantMemory(tx, {
        tenantId,
        actor: { type: "system", id: "cli" },
        reason: "memory clear from the CLI",
        onTable: progress.update,
      }),
    ),
  );
  progress.done(tables);
  out("All memory of this organisation was erased.");
  return true;
}

export async function runWorkerFromCli(db: Database) {
  const stop = new AbortController();
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => stop.abort());
  const workerId = newWorkerId();
  const progress = createProgress(`worker ${workerId} jobs handled`);
  let total = 0;
  out(`Worker ${workerId} running; Ctrl+C to stop.`);
  await runWorkerLoop(db, { signal: stop.signal, workerId, onProgress: (n) => progress.update((total += n)) });
  progress.done(total);
}

/**
 * After a model change (EMBEDDING_MODEL/PROVIDER/DIMENSIONS): queue embeddings for every current card
 * that has no vector for the configured model at its dimension, then process them here with a progress bar.
 */
export async function reembedTenant(db: Database, tenantId: string) {
  const provider = getEmbeddingProvider();
  const queued = await enqueueMissingEmbeddings(db, {
    tenantId,
    model: provider.model,
    dimensions: provider.dimensions,
    limit: 1_000_000,
  });
  out(`Queued ${queued} card(s) for ${provider.model} (${provider.dimensions} dimensions).`);
  const progress = createProgress("embedding", queued);
  let done = 0;
  for (;;) {
    const result = await processEmbedJobs(db, { provider, limit: 100 });
    if (result.leased === 0) break;
    done += result.succeeded;
    progress.update(Math.min(done, queued));
    if (result.succeeded === 0 && result.retried + result.dead > 0) {
      out(
        `\nThe embedding provider is failing (see the log); the remaining jobs stay queued and the worker retries them.`,
      );
      break;
    }
  }
  progress.done(Math.min(done, queued));
}
