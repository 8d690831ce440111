// `npm run bench:search-cpu -- [--cards 100000] [--searches 2000] [--ablate FEATURE,…] [--database-url URL]`
//
// What one search costs the process that runs it, without HTTP, tRPC or concurrency: bench:cpu's kept
// database (`memory_cpu_<cards>`, seed it first with `npm run bench:cpu -- --mix search=100 --runs 1`)
// and its workload's searches, each as its user's key would ask it, one at a time, in this process.
// The CPU time of this process per search (user + system) is printed, and that of the database's
// backends when Postgres runs on this machine (read from /proc). Alternate two builds (git
// worktrees sharing bench/.cache) on one machine to judge a change; `--ablate` switches ranking
// features off (ranking-features.ts) to see what one of them costs.
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { isNull, sql } from "drizzle-orm";
import { openDatabase } from "~/db/client";
import { queryRows } from "~/db/raw";
import { apiKeys } from "~/db/schema";
import { buildAgentCallContext } from "~/server/auth/permissions";
import type { MemoryCallContext } from "~/server/memory/call-context";
import { isRankingFeature, rankingFeaturesWithout } from "~/server/memory/retrieval/ranking-features";
import { memorySearch } from "~/server/memory/retrieval/search";
import type { Workload } from "./load/harness";
import { ROOT } from "./load/server";
import { processCpu } from "./lib/process-cpu";

const { values: args } = parseArgs({
  options: {
    cards: { type: "string", default: "100000" },
    searches: { type: "string", default: "2000" },
    ablate: { type: "string", default: "" },
    "database-url": { type: "string", default: "postgres://postgres@127.0.0.1:5432/postgres" },
  },
});
const name = `memory_cpu_${Number(args.cards)}`;
const cacheFile = path.join(ROOT, "bench", ".cache", `${name}.json`);
if (!fs.existsSync(cacheFile)) {
  console.error(
    `no workload in ${path.relative(ROOT, cacheFile)}: seed it first (npm run bench:cpu -- --mix search=100 --runs 1)`,
  );
  process.exit(2);
}
const work = JSON.parse(fs.readFileSync(cacheFile, "utf8")) as Workload & { userIds: string[] };
const off = args.ablate.split(",").filter(Boolean);
const unknown = off.filter((feature) => !isRankingFeature(feature));
if (unknown.length) throw new Error(`--ablate: unknown feature ${unknown.join(", ")}`);
const ranking = rankingFeaturesWithout(off.filter(isRankingFeature));

const url = new URL(args["database-url"]);
url.pathname = `/${name}`;
const handle = await openDatabase({ url: url.toString(), poolMax: 2 });
const keys = await handle.db
  .select({
    id: apiKeys.id,
    tenantId: apiKeys.tenantId,
    ownerUserId: apiKeys.ownerUserId,
    scopes: apiKeys.scopes,
    permissions: apiKeys.permissions,
  })
  .from(apiKeys)
  .where(isNull(apiKeys.revokedAt));
const keyOf = new Map(keys.map((key) => [key.ownerUserId, key]));
// Each user's call context as the tool endpoint builds it for their key in their turn session (built
// once, before timing: its grant lookup is not a search's work).
const contexts = new Map<number, MemoryCallContext>();
for (const { user } of work.searches) {
  if (contexts.has(user)) continue;
  const key = keyOf.get(work.userIds[user]!);
  if (!key) throw new Error(`no key for user ${user}: reseed (npm run bench:cpu -- --reseed)`);
  contexts.set(user, await buildAgentCallContext(handle.db, key, { sessionId: work.users[user]!.session }));
}
const searchAt = (i: number) => {
  const s = work.searches[i % work.searches.length]!;
  return memorySearch(
    handle.db,
    contexts.get(s.user)!,
    { queryText: s.queryText, limit: 10 },
    { logQuery: false, ranking },
  );
};

// Warm-up: the first statements of a shape pay for planning, the dictionary for its first load.
for (let i = 0; i < work.searches.length; i++) await searchAt(i);
const total = Number(args.searches);
const backends = await databaseBackends();
const wallStart = performance.now();
const cpuStart = process.cpuUsage();
const databaseStart = backendCpuMicros(backends);
for (let i = 0; i < total; i++) await searchAt(i);
const cpu = process.cpuUsage(cpuStart);
const databaseEnd = backendCpuMicros(backends);
const perSearch = (micros: number) => (micros / 1000 / total).toFixed(3);
const database =
  databaseStart !== undefined && databaseEnd !== undefined
    ? `; database ${perSearch(databaseEnd - databaseStart)} ms a search (${backends.length} backends)`
    : "; database CPU not measured (the server is not on this machine)";
console.log(
  `[search-cpu] ${total} searches${off.length ? ` without ${off.join(", ")}` : ""}: CPU ${perSearch(cpu.user + cpu.system)} ms a search ` +
    `(user ${perSearch(cpu.user)}, system ${perSearch(cpu.system)}), wall ${((performance.now() - wallStart) / total).toFixed(3)} ms${database}`,
);
await handle.close();

/** The Postgres processes serving this database's connections (only this benchmark connects to it). */
async function databaseBackends(): Promise<number[]> {
  const rows = await queryRows<{ pid: number }>(
    handle.db,
    sql`select pid from pg_stat_activity where datname = current_database() and backend_type = 'client backend'`,
  );
  return rows.map((row) => Number(row.pid));
}

/**
 * Their CPU time (user + system) from /proc, in µs; undefined when the server runs elsewhere or a
 * backend went away (the pool reconnected: the count would be short).
 */
function backendCpuMicros(pids: readonly number[]): number | undefined {
  let seconds = 0;
  for (const pid of pids) {
    const cpu = processCpu(pid);
    if (!cpu) return undefined;
    seconds += cpu.seconds;
  }
  return pids.length > 0 ? seconds * 1e6 : undefined;
}
