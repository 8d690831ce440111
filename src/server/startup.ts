import { getDatabase, getDb } from "~/db/client";
import { ensureEmbeddingIndex } from "~/db/embedding-index";
import { env } from "~/env";
import { countUsers } from "~/server/auth/accounts";
import { scheduleMaintenance } from "~/server/jobs/maintenance";
import { runWorkerLoop } from "~/server/background-work";
import { createAgentListener } from "~/server/http/agent-listener";
import { publishAgentListener } from "~/server/http/front-door";
import { log } from "~/server/log";
import { flushBufferedWrites } from "~/db/buffered-writes";
import { setMetricsDatabase } from "~/server/metrics";
import { registerTreeSubscribers } from "~/server/tree";
import { loadSearchDictionary } from "~/server/memory";

export async function startServer() {
  try {
    registerTreeSubscribers();
    const handle = await getDatabase();
    setMetricsDatabase(getDatabase);
    if (handle.readReplicas) {
      const states = handle.readReplicas.statuses().map((r) => `${r.name} ${r.state}`);
      log(
        "info",
        `read replicas (DATABASE_READ_URL): ${states.join(", ")}; lag limit ${env.DATABASE_READ_MAX_LAG_MS} ms`,
      );
    }
    await ensureEmbeddingIndex(handle.db, env.EMBEDDING_MODEL, env.EMBEDDING_DIMENSIONS);
    const users = await countUsers(handle.db);
    const base = env.NEXTAUTH_URL ?? `http://localhost:${env.PORT}`;
    const where =
      handle.mode === "embedded" ? `embedded database in ${handle.dataDir}` : "Postgres server (DATABASE_URL)";
    log("info", `memory service ready on ${where}`);
    if (users === 0)
      log(
        "info",
        `No accounts yet. Create the first admin at ${base}/sign-up (or: npm run memory -- users add --admin you@example.com)`,
      );
    log("info", `Sign in at ${base}/sign-in`);
    // The Chinese ↔ English word index (~1 s to build the first time): read now, not on the first
    // search. It logs and stands down by itself when the dictionary cannot be read.
    setImmediate(loadSearchDictionary);
    // Retention pruning in both modes; PGlite has no autovacuum, so there the server also vacuums and analyzes.
    scheduleMaintenance(handle.db, { vacuum: handle.mode === "embedded" });
    // scripts/server.mjs answers agent calls with it, in front of Next.js.
    publishAgentListener(createAgentListener(getDb));
    // Next.js drains requests and exits on these signals; the buffered query-log rows go out meanwhile.
    for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void flushBufferedWrites());
    if (env.MEMORY_INLINE_WORKER) {
      // Background work (embeddings, memory tree, summaries) runs in this process unless disabled;
      // `npm run worker` adds more workers against the same database (server mode).
      const stop = new AbortController();
      process.once("SIGTERM", () => stop.abort());
      void runWorkerLoop(handle.db, { signal: stop.signal });
      log("info", "background worker running in this process");
    }
  } catch (error) {
    log("error", `Start-up failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
