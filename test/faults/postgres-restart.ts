/**
 * Postgres restarted under load: a script, not a Vitest suite (it restarts the whole local cluster,
 * which would break every other suite running against it). `npm test` runs it alone after the suites
 * in CI (or with TEST_POSTGRES_RESTART=1). By hand, as root on a machine whose Debian cluster nobody
 * else is using at that moment:
 *
 *   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/memory_test node --import tsx test/faults/postgres-restart.ts
 *
 * Options (env): RESTART_CONCURRENCY (8 loops), RESTART_WARMUP_S (3), RESTART_AFTER_S (10),
 * RESTART_CLUSTER (main), RESTART_MAJOR (read from the server).
 *
 * Loops of memory_write batches and memory_search calls run through ONE pool (openDatabase, poolMax 10)
 * while `pg_ctlcluster --skip-systemctl-redirect <major> <cluster> restart` runs. It reports what the
 * callers saw during the outage, that requests succeed again afterwards without recreating the pool,
 * that no uncaught exception escaped the driver, and that every batch is all-or-nothing afterwards.
 * Prints one JSON object; exits 1 when the pool did not recover or a batch is partial.
 */
import { spawn } from "node:child_process";
import { sql } from "drizzle-orm";
import { isConnectionLost, openDatabase } from "~/db/client";
import { queryRows } from "~/db/raw";
import { parseScopePattern } from "~/server/memory/scope";
import { memorySearch } from "~/server/memory/retrieval/search";
import { memoryWrite } from "~/server/memory/write/write";
import { createEmptyServerDatabase } from "../support/db";
import { createTenant } from "../support/memory";

process.env.TEST_DATABASE_URL ??= "postgres://postgres@127.0.0.1:5432/memory_test";
const CONCURRENCY = Number(process.env.RESTART_CONCURRENCY ?? 8);
const WARMUP_MS = Number(process.env.RESTART_WARMUP_S ?? 3) * 1000;
const AFTER_MS = Number(process.env.RESTART_AFTER_S ?? 10) * 1000;
const CLUSTER = process.env.RESTART_CLUSTER ?? "main";
const BATCH = 3;

type Op = { kind: "write" | "search"; start: number; end: number; ok: boolean; code?: string; batch?: number };

const uncaught: string[] = [];
process.on("uncaughtException", (error) => void uncaught.push(`${error.name}: ${error.message}`));
process.on(
  "unhandledRejection",
  (error) => void uncaught.push(`unhandledRejection: ${error instanceof Error ? error.message : String(error)}`),
);

function errorCode(error: unknown): string {
  for (let e: unknown = error, depth = 0; e && typeof e === "object" && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") return code;
    e = (e as { cause?: unknown }).cause;
  }
  // postgres.js 3.4.9 keeps a killed query's row counter: the next result on that slot starts with holes.
  if (error instanceof TypeError && /not an entry object/.test(error.message))
    return `SPARSE_RESULT (${error.message.slice(0, 50)})`;
  return error instanceof Error ? `${error.name}: ${error.message.slice(0, 60)}` : String(error);
}

async function main() {
  const { url, drop } = await createEmptyServerDatabase();
  const handle = await openDatabase({ url, poolMax: 10 });
  const major =
    process.env.RESTART_MAJOR ??
    String(
      Math.floor(
        Number(
          (await queryRows<{ v: string }>(handle.db, sql`select current_setting('server_version_num') as v`))[0]!.v,
        ) / 10000,
      ),
    );
  const tenantId = await createTenant(handle.db);
  const ctx = {
    tenantId,
    actor: { type: "api_key" as const, id: "key_restart" },
    readScopes: ["user:u1"].map(parseScopePattern),
    writeScopes: ["user:u1"].map(parseScopePattern),
    defaults: { user: { type: "user" as const, id: "u1" } },
    trustedMessageIds: [],
  };

  const ops: Op[] = [];
  const acknowledged = new Set<number>();
  let nextBatch = 0;
  let stop = false;
  const t0 = Date.now();
  const loop = async (index: number) => {
    while (!stop) {
      const kind = index % 2 === 0 ? "write" : "search";
      const start = Date.now() - t0;
      const batch = nextBatch++;
      try {
        if (kind === "write") {
          const result = await memoryWrite(handle.db, ctx, {
            operations: Array.from({ length: BATCH }, (_, i) => ({
              op: "create" as const,
              kind: "custom_fact",
              itemKey: `r${batch}-${i}`,
              explicitUserIntent: true,
              node: {
                title: `Restart ${batch} ${i}`,
                content: `Written during the restart run, batch ${batch}.`,
                tags: [`batch-${batch}`],
              },
            })),
          });
          if (!result.done) throw new Error(result.message);
          acknowledged.add(batch);
        } else {
          await memorySearch(handle.db, ctx, { queryText: "restart run batch" }, { embeddings: null, logQuery: false });
        }
        ops.push({ kind, start, end: Date.now() - t0, ok: true, batch });
      } catch (error) {
        ops.push({ kind, start, end: Date.now() - t0, ok: false, code: errorCode(error), batch });
        // A real client backs off a little after a failure instead of spinning.
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  };
  const loops = Array.from({ length: CONCURRENCY }, (_, i) => loop(i));

  await new Promise((resolve) => setTimeout(resolve, WARMUP_MS));
  const restartStart = Date.now() - t0;
  // Asynchronously: the request loops must keep running (and failing) while the cluster restarts.
  const restart = await new Promise<{ status: number | null; stderr: string }>((resolve) => {
    const child = spawn("pg_ctlcluster", ["--skip-systemctl-redirect", major, CLUSTER, "restart"], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += String(chunk)));
    child.on("exit", (status) => resolve({ status, stderr }));
  });
  const restartEnd = Date.now() - t0;
  if (restart.status !== 0) throw new Error(`pg_ctlcluster failed (${restart.status}): ${restart.stderr}`);
  await new Promise((resolve) => setTimeout(resolve, AFTER_MS));
  stop = true;
  await Promise.all(loops);

  const failures = ops.filter((o) => !o.ok);
  const firstFailure = failures.length ? Math.min(...failures.map((o) => o.end)) : null;
  const lastFailure = failures.length ? Math.max(...failures.map((o) => o.end)) : null;
  const firstSuccessAfter = ops
    .filter((o) => o.ok && o.start >= restartEnd)
    .reduce<number | null>((m, o) => (m === null ? o.end : Math.min(m, o.end)), null);
  const afterLastFailure = ops.filter((o) => o.start > (lastFailure ?? restartEnd));
  const codes = failures.reduce<Record<string, number>>(
    (acc, o) => ({ ...acc, [o.code!]: (acc[o.code!] ?? 0) + 1 }),
    {},
  );

  // All-or-nothing after the outage, and every acknowledged batch is there.
  const perBatch = await queryRows<{ tag: string; n: number }>(
    handle.db,
    sql`select tags[1] as tag, count(*)::int as n from memory_nodes where tenant_id = ${tenantId} group by 1`,
  );
  const partial = perBatch.filter((r) => r.n !== BATCH).map((r) => r.tag);
  const present = new Set(perBatch.map((r) => Number(r.tag.slice("batch-".length))));
  const lostAcknowledged = [...acknowledged].filter((b) => !present.has(b));
  const failedButPresent = failures.filter((o) => o.kind === "write" && present.has(o.batch!)).length;

  const report = {
    postgres: `${major}/${CLUSTER}`,
    concurrency: CONCURRENCY,
    requests: ops.length,
    succeeded: ops.length - failures.length,
    failed: failures.length,
    failedByCode: codes,
    failedByKind: {
      write: failures.filter((o) => o.kind === "write").length,
      search: failures.filter((o) => o.kind === "search").length,
    },
    connectionLossErrors: failures.filter((o) => isConnectionLost({ code: o.code })).length,
    restartCommandSeconds: (restartEnd - restartStart) / 1000,
    requestsDuringRestart: ops.filter((o) => o.start < restartEnd && o.end > restartStart).length,
    slowestRequestSeconds: Math.max(...ops.map((o) => o.end - o.start)) / 1000,
    firstFailureAfterRestartStartSeconds: firstFailure !== null ? (firstFailure - restartStart) / 1000 : null,
    errorWindowSeconds: firstFailure !== null && lastFailure !== null ? (lastFailure - firstFailure) / 1000 : 0,
    firstSuccessAfterRestartReturnedSeconds:
      firstSuccessAfter !== null ? (firstSuccessAfter - restartEnd) / 1000 : null,
    requestsStartedAfterLastFailure: afterLastFailure.length,
    secondsFromLastFailureToEnd: (Date.now() - t0 - (lastFailure ?? restartEnd)) / 1000,
    uncaughtExceptions: uncaught,
    // Every failure: [kind, seconds from restart start to the request's start and end, code].
    failures: failures.map((o) => [
      o.kind,
      +((o.start - restartStart) / 1000).toFixed(3),
      +((o.end - restartStart) / 1000).toFixed(3),
      o.code,
    ]),
    batchesPresent: present.size,
    partialBatches: partial,
    acknowledgedButLost: lostAcknowledged,
    failedWritesThatCommittedAnyway: failedButPresent,
    // Recovered: the same pool served a steady stream again and nothing failed for the rest of the run.
    recovered:
      firstSuccessAfter !== null && afterLastFailure.length > CONCURRENCY && afterLastFailure.every((o) => o.ok),
  };
  console.log(JSON.stringify(report, null, 2));
  await handle.close();
  await drop();
  const ok = report.recovered && partial.length === 0 && lostAcknowledged.length === 0 && uncaught.length === 0;
  process.exit(ok ? 0 : 1);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
