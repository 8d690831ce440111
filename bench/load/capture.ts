// The SQL floor: runs a search through the product's own tool path in this process, on a Drizzle
// handle whose logger records every statement (text + parameters), so the floor replays exactly the
// SQL the service ran — whatever the retrieval code currently does — with no HTTP, tRPC or JS around it.
import type { Logger } from "drizzle-orm";
import * as schema from "~/db/schema";
import type { Database } from "~/db/types";
import { admitMeteredAgentCall } from "~/server/auth/agent-call";
import { flushBufferedWrites } from "~/db/buffered-writes";
import { callTool } from "~/server/tools/registry";
import type { Stmt } from "./driver";
import { benchClient } from "./pg-client";

export type CaptureHandle = {
  db: Database;
  /** Runs one statement outside Drizzle, the way the floor does. */
  raw: (text: string, params: unknown[]) => Promise<unknown[]>;
  close: () => Promise<void>;
};

/** Which part of the request a statement belongs to (for per-stage timings). */
export function labelOf(text: string): string {
  const t = text.toLowerCase();
  if (/^update "api_keys"/.test(t)) return "auth.key_touch";
  if (t.includes('from "api_keys"')) return "auth.key";
  if (t.includes('"tenant_members"') && t.includes('"scope_grants"')) return "auth.scopes";
  if (t.includes('"tenant_members"')) return "auth.member";
  if (t.includes('"scope_grants"')) return "auth.grants";
  if (t.includes('"rate_limit_buckets"')) return "auth.rate_limit";
  if (t.startsWith('insert into "memory_query_log"') || t.startsWith("set local synchronous_commit"))
    return "search.query_log";
  if (t.includes("memory_embeddings")) return "search.vector";
  if (t.includes("%>") || t.includes("word_similarity") || t.includes("enable_seqscan")) return "search.trigram";
  if (/count\(\*\) as n, avg\(/.test(t)) return "search.corpus_stats";
  if (t.includes("@@")) return "search.full_text";
  if (t.includes('from "memory_nodes"')) return "search.load_rows";
  if (t.includes("memory_custom_kinds")) return "search.kind_registry";
  return "other";
}

const jsonSafe = (value: unknown): unknown => (value instanceof Date ? value.toISOString() : value);

class Recorder implements Logger {
  statements: Stmt[] = [];
  on = false;
  logQuery(query: string, params: unknown[]) {
    if (this.on) this.statements.push({ label: labelOf(query), text: query, params: params.map(jsonSafe) });
  }
}

/** A recording Drizzle handle over its own connection(s): postgres.js for a URL, PGlite for a data directory. */
export async function openCapture(
  target: { url: string } | { dataDir: string },
): Promise<CaptureHandle & { recorder: Recorder }> {
  const recorder = new Recorder();
  if ("url" in target) {
    const { drizzle } = await import("drizzle-orm/postgres-js");
    const client = benchClient(target.url, { max: 2, onnotice: () => {} });
    const db = drizzle(client, { schema, logger: recorder }) as unknown as Database;
    return {
      db,
      recorder,
      raw: async (text, params) => [...(await client.unsafe(text, params as never[]))],
      close: async () => (await flushBufferedWrites(db), await client.end({ timeout: 5 })),
    };
  }
  const { PGlite } = await import("@electric-sql/pglite");
  const { vector } = await import("@electric-sql/pglite-pgvector");
  const { pg_trgm } = await import("@electric-sql/pglite/contrib/pg_trgm");
  const { drizzle } = await import("drizzle-orm/pglite");
  const client = await PGlite.create(target.dataDir, { extensions: { vector, pg_trgm } });
  const db = drizzle(client, { schema, logger: recorder }) as unknown as Database;
  return {
    db,
    recorder,
    raw: async (text, params) => (await client.query(text, params)).rows,
    close: async () => (await flushBufferedWrites(db), await client.close()),
  };
}

/**
 * The statements of one memory_search request as the endpoint runs it (key check with scopes, search,
 * query log), and how long the tool call took in this process (no HTTP): the first run with this
 * caller's per-process caches cold (corpus statistics), the second warm — the one recorded.
 */
export async function captureSearch(
  handle: CaptureHandle & { recorder: Recorder },
  /** `rateLimit`: the server's RATE_LIMIT_PER_MINUTE, so the key statement is the one the server runs. */
  request: { secret: string; queryText: string; sessionId: string; rateLimit: number },
): Promise<{ statements: Stmt[]; coldMs: number; warmMs: number }> {
  const run = async () => {
    const t0 = performance.now();
    const { apiKey, limits } = await admitMeteredAgentCall(handle.db, request.secret, {
      defaultLimit: request.rateLimit,
    });
    await callTool(
      handle.db,
      apiKey,
      { name: "memory_search", arguments: { queryText: request.queryText }, turn: { sessionId: request.sessionId } },
      limits,
    );
    return performance.now() - t0;
  };
  const coldMs = await run();
  handle.recorder.statements = [];
  handle.recorder.on = true;
  let warmMs: number;
  try {
    warmMs = await run();
  } finally {
    handle.recorder.on = false;
  }
  return { statements: handle.recorder.statements, coldMs, warmMs };
}

/** EXPLAIN (ANALYZE, BUFFERS) of each read statement of a captured request. */
export async function explainPlan(handle: CaptureHandle, statements: Stmt[]) {
  const out: { label: string; executionMs: number | null; planningMs: number | null; plan: string }[] = [];
  for (const stmt of statements) {
    if (!/^\s*(select|with)/i.test(stmt.text)) continue;
    const rows = (await handle.raw(`explain (analyze, buffers) ${stmt.text}`, stmt.params)) as Record<string, string>[];
    const lines = rows.map((row) => Object.values(row)[0]!);
    const ms = (name: string) => {
      const line = lines.find((l) => l.startsWith(name));
      return line ? Number(line.replace(/[^0-9.]/g, "")) : null;
    };
    out.push({
      label: stmt.label,
      executionMs: ms("Execution Time"),
      planningMs: ms("Planning Time"),
      plan: lines.join("\n"),
    });
  }
  return out;
}
