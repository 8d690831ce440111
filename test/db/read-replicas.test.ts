import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { sql } from "drizzle-orm";
import postgres, { type Sql } from "postgres";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { attachReadReplicas } from "~/db/client";
import { queryRows } from "~/db/raw";
import { parseLsn, ReadReplicas } from "~/db/replicas";
import type { Database } from "~/db/types";
import { createCaller } from "~/server/api/root";
import { CONSISTENCY_HEADER, forgetRecentWrites } from "~/server/db-routing";
import { getHealth } from "~/server/health";
import { answerMetrics } from "~/server/http/metrics-endpoint";
import { memorySearch } from "~/server/memory/retrieval/search";
import { parseScopePattern } from "~/server/memory/scope";
import { setMetricsDatabase } from "~/server/metrics";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { agentContext, createOp, noVectors, writeCards } from "../support/memory";
import { createKey, createOrg, trpcHttp } from "../support/agents";
import { callerAs } from "../support/trpc";

/**
 * Read replicas on a real hot standby (scripts/setup-postgres.sh --standby: streaming replication of
 * the test cluster into a second one). Runs where TEST_DATABASE_READ_URL is set; in CI
 * scripts/test.mjs refuses to run without it. The standby replays every database of the primary,
 * so this file's own test database appears there by itself.
 */
const READ_URL = process.env.TEST_DATABASE_READ_URL;
const run = promisify(execFile);
const standbyCtl = (action: "start" | "stop") =>
  run("bash", [path.resolve(import.meta.dirname, "../../scripts/setup-postgres.sh"), "--standby-ctl", action], {
    timeout: 90_000,
  });

async function waitFor(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Metric values from the Prometheus text: the sum over series whose labels include `labels`. */
async function metric(name: string, labels: Record<string, string> = {}): Promise<number> {
  const answer = await answerMetrics({
    method: "GET",
    remoteAddress: "127.0.0.1",
    authorization: null,
    forwardedFor: null,
  });
  let sum = 0;
  for (const line of answer.body.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)))
      sum += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return sum;
}

describe.runIf(TEST_BACKEND === "postgres" && READ_URL)("read replicas on a hot standby", () => {
  let handle: TestDatabase;
  let replicas: ReadReplicas;
  let standby: Sql;
  let replicaDb: Database;

  const primaryLsn = async () =>
    parseLsn((await queryRows<{ lsn: string }>(handle.db, sql`select pg_current_wal_lsn()::text as lsn`))[0]?.lsn)!;
  const replayLsn = async () => parseLsn((await standby`select pg_last_wal_replay_lsn()::text as lsn`)[0]?.lsn)!;
  const caughtUp = async () => {
    const target = await primaryLsn();
    await waitFor("the standby to replay the primary's WAL", async () => (await replayLsn()) >= target);
    await replicas.probe();
  };
  const pause = () => standby`select pg_wal_replay_pause()`;
  const resume = () => standby`select pg_wal_replay_resume()`;

  beforeAll(async () => {
    handle = await openTestDatabase();
    const url = new URL(READ_URL!);
    url.pathname = new URL(handle.url!).pathname;
    standby = postgres(READ_URL!, { max: 1, onnotice: () => {} });
    // The test database was created on the primary a moment ago: wait until the standby has it.
    await waitFor(
      "the test database on the standby",
      async () => (await standby`select 1 from pg_database where datname = ${url.pathname.slice(1)}`).length === 1,
    );
    replicas = await attachReadReplicas(handle, [url.toString()], { maxLagMs: 60_000, checkMs: 200, poolMax: 3 });
    replicaDb = replicas.replicas[0]!.db;
    setMetricsDatabase(async () => handle);
    await caughtUp();
  });
  afterAll(async () => {
    await resume().catch(() => {});
    await standbyCtl("start").catch(() => {});
    await standby?.end();
    await handle?.destroy();
  });

  it("reads on the standby by kind, writes on the primary, and reads a principal's own write from the primary until replayed", async () => {
    const org = await createOrg(handle.db);
    const writer = await createKey(handle.db, { tenantId: org.tenantId, ownerUserId: org.adminId });
    const reader = await createKey(handle.db, { tenantId: org.tenantId, ownerUserId: org.adminId });
    await caughtUp();
    expect(replicas.statuses()[0]).toMatchObject({ state: "up", reachable: true });
    const searches = (secret: string, queryText: string) =>
      trpcHttp(handle.db, "tools.memory_search", {
        bearer: secret,
        body: { queryText, turn: { sessionId: "replica" } },
      });
    const found = (res: Awaited<ReturnType<typeof searches>>) => JSON.stringify(res.json.result?.data ?? null);

    const before = await metric("memory_db_reads_total", { target: replicas.replicas[0]!.name });
    await pause();
    try {
      // A write while the standby replays nothing: it can only have gone to the primary.
      const written = await trpcHttp(handle.db, "tools.memory_write", {
        bearer: writer.secret,
        body: {
          operations: [
            {
              op: "create",
              kind: "occupation",
              explicitUserIntent: true,
              scope: `user:${org.adminId}`,
              node: {
                title: "Lighthouse keeper",
                content: "Works as a lighthouse keeper on Skerryvore.",
                valueJson: "lighthouse keeper",
              },
            },
          ],
        },
      });
      expect(written.status).toBe(200);
      const answer = written.json.result?.data as { done: boolean; consistency?: string };
      expect(answer.done).toBe(true);
      // The write's commit position is in its answer, and the paused standby has not reached it.
      const token = parseLsn(answer.consistency);
      expect(token).not.toBeNull();
      expect(await replayLsn()).toBeLessThan(token!);

      // The writer reads its own write (the primary: the standby is behind its write)...
      expect(found(await searches(writer.secret, "lighthouse keeper"))).toContain("Skerryvore");
      // ...another key of the same owner, with no write of its own, reads the standby, which has not replayed it.
      const elsewhere = await searches(reader.secret, "lighthouse keeper");
      expect(elsewhere.status).toBe(200);
      expect(found(elsewhere)).not.toContain("Skerryvore");
      expect(await metric("memory_db_reads_total", { target: replicas.replicas[0]!.name })).toBeGreaterThan(before);

      // The token sent back makes any caller wait for a replica past it: here, the primary answers.
      const headers = new Headers({
        authorization: `Bearer ${reader.secret}`,
        [CONSISTENCY_HEADER]: answer.consistency!,
      });
      const withToken = await createCaller({
        db: handle.db,
        headers,
        getSession: async () => null,
      }).tools.memory_search({ queryText: "lighthouse keeper" } as never);
      expect(JSON.stringify(withToken)).toContain("Skerryvore");

      // The dashboard routes the same way: a person's query reads the standby, their own write is read back.
      const person = callerAs(handle.db, { userId: org.adminId });
      expect(JSON.stringify(await person.memory.browse({}))).not.toContain("Skerryvore");
      // tryRecall is a mutation declared read-only (meta kind "read"): it reads the standby too.
      expect(JSON.stringify(await person.memory.tryRecall({ question: "What is my job?" }))).not.toContain(
        "Skerryvore",
      );
      const mine = await person.memory.write({
        operations: [
          {
            op: "create",
            kind: "custom_fact",
            itemKey: "boat",
            scope: `user:${org.adminId}`,
            node: { title: "Boat", content: "Keeps a rowing boat called Petrel." },
          },
        ],
      });
      expect(mine.done).toBe(true);
      expect(JSON.stringify(await person.memory.browse({}))).toContain("Petrel");
    } finally {
      await resume();
    }
    await caughtUp();
    // Replayed: the other key now finds the card, on the standby; so does the person's recall preview.
    expect(found(await searches(reader.secret, "lighthouse keeper"))).toContain("Skerryvore");
    expect(
      JSON.stringify(
        await callerAs(handle.db, { userId: org.adminId }).memory.tryRecall({ question: "What is my job?" }),
      ),
    ).toContain("Skerryvore");
  });

  it("answers the same from the standby as from the primary", async () => {
    const org = await createOrg(handle.db);
    const ctx = agentContext(org.tenantId);
    await writeCards(
      handle.db,
      ctx,
      createOp("avoid_ingredient", {
        title: "用户不吃香菜 (cilantro)",
        content: "推荐菜谱时避免香菜。",
        valueJson: "香菜",
      }),
      createOp("occupation", { title: "Job", content: "Works night shifts as a nurse.", valueJson: "nurse" }),
      createOp(
        "active_task",
        { title: "Plan Kyoto trip", content: "Planning a trip to Kyoto in April.", valueJson: "kyoto" },
        { itemKey: "kyoto" },
      ),
    );
    await caughtUp();
    const now = new Date();
    for (const input of [
      { queryText: "香菜" },
      { queryText: "what is my job" },
      { all: true },
      { kinds: ["occupation"] },
    ]) {
      const [a, b] = await Promise.all([
        memorySearch(handle.db, ctx, input, { ...noVectors, now }),
        memorySearch(replicaDb, ctx, input, { ...noVectors, now }),
      ]);
      expect(b, JSON.stringify(input)).toEqual(a);
      expect(a.exact.length + a.relevant.length).toBeGreaterThan(0);
    }
  });

  it("fails no request when the standby stops under load, and reports it down once", async () => {
    const org = await createOrg(handle.db);
    // No per-minute limit: six searchers make more than the default 300 calls a minute on a fast machine.
    const key = await createKey(handle.db, { tenantId: org.tenantId, ownerUserId: org.adminId, rateLimitPerMinute: 0 });
    const own = [parseScopePattern(`user:${org.adminId}`)];
    await writeCards(
      handle.db,
      agentContext(org.tenantId, { writeScopes: own, readScopes: own }),
      createOp(
        "occupation",
        { title: "Job", content: "Repairs clocks in Bern.", valueJson: "clockmaker" },
        { scope: `user:${org.adminId}` },
      ),
    );
    await caughtUp();
    forgetRecentWrites();
    const warnings = vi.spyOn(console, "error");
    const statuses: number[] = [];
    let stopping = true;
    const load = async () => {
      while (stopping) {
        const res = await trpcHttp(handle.db, "tools.memory_search", {
          bearer: key.secret,
          body: { queryText: "clocks", turn: { sessionId: "load" } },
        });
        statuses.push(res.status);
        if (res.status !== 200) throw new Error(`a search failed with ${res.status}: ${res.text}`);
      }
    };
    const workers = Array.from({ length: 6 }, load);
    try {
      await new Promise((resolve) => setTimeout(resolve, 800));
      await standbyCtl("stop");
      await new Promise((resolve) => setTimeout(resolve, 1500));
    } finally {
      stopping = false;
      await Promise.allSettled(workers);
    }
    await Promise.all(workers); // a failed search fails the test here, after the load has stopped
    expect(statuses.length).toBeGreaterThan(20);
    expect(statuses.every((s) => s === 200)).toBe(true);
    await replicas.probe();
    const down = (await getHealth(handle)).replicas?.[0];
    expect(down).toMatchObject({ state: "down", reachable: false });
    expect(warnings.mock.calls.filter(([line]) => String(line).includes("is down")).length).toBe(1);
    warnings.mockRestore();
    expect(await metric("memory_db_replica_up")).toBe(0);
  });

  it("takes the standby back into rotation once it is restarted", async () => {
    const org = await createOrg(handle.db);
    const key = await createKey(handle.db, { tenantId: org.tenantId, ownerUserId: org.adminId });
    const own = [parseScopePattern(`user:${org.adminId}`)];
    await writeCards(
      handle.db,
      agentContext(org.tenantId, { writeScopes: own, readScopes: own }),
      createOp(
        "occupation",
        { title: "Job", content: "Repairs clocks in Bern.", valueJson: "clockmaker" },
        { scope: `user:${org.adminId}` },
      ),
    );
    await standbyCtl("start");
    await waitFor("the standby back in rotation", () => replicas.statuses()[0]!.state === "up");
    await caughtUp();
    // Reads land on the standby again. The first may meet a pooled connection the shutdown closed: it
    // is then rerun on the primary (and the replica re-probed), so every answer is still right.
    const onReplica = () => metric("memory_db_reads_total", { target: replicas.replicas[0]!.name });
    const backOn = await onReplica();
    for (let i = 0; i < 20 && (await onReplica()) === backOn; i++) {
      const res = await trpcHttp(handle.db, "tools.memory_search", {
        bearer: key.secret,
        body: { queryText: "clocks" },
      });
      expect(JSON.stringify(res.json.result?.data)).toContain("Bern");
      if ((await onReplica()) === backOn)
        await waitFor("the standby up again", () => replicas.statuses()[0]!.state === "up");
    }
    expect(await onReplica()).toBeGreaterThan(backOn);
    // Other test files write to the primary meanwhile, so replay can trail by a few milliseconds:
    // back in rotation means up, reachable and well inside the lag limit, not exactly zero.
    const back = (await getHealth(handle)).replicas?.[0];
    expect(back).toMatchObject({ state: "up", reachable: true });
    expect(back?.lagMs).toBeTypeOf("number");
    expect(back!.lagMs!).toBeLessThan(5_000);
  });

  it("takes a replica that lags beyond the limit out of rotation until it catches up", async () => {
    const strict = new ReadReplicas(handle.db, [{ name: "strict", db: replicaDb, close: async () => {} }], {
      maxLagMs: 300,
      checkMs: 100,
    });
    await strict.probe();
    expect(strict.statuses()[0]!.state).toBe("up");
    await pause();
    try {
      const org = await createOrg(handle.db); // WAL the paused standby does not replay
      await strict.probe();
      await new Promise((resolve) => setTimeout(resolve, 500));
      await createOrg(handle.db);
      await strict.probe();
      expect(strict.statuses()[0]).toMatchObject({ state: "lagging", reachable: true });
      expect(strict.statuses()[0]!.lagMs).toBeGreaterThan(300);
      expect(await strict.pick(null)).toBeNull();
      expect(org.tenantId).toBeTruthy();
    } finally {
      await resume();
    }
    await waitFor(
      "the strict replica to catch up",
      async () => (await strict.probe(), strict.statuses()[0]!.state === "up"),
    );
    expect(await strict.pick(null)).not.toBeNull();
    await strict.close();
  });

  it("exposes the replica in the metrics", async () => {
    await replicas.probe();
    expect(await metric("memory_info", { mode: "server", replicas: "1" })).toBe(1);
    expect(await metric("memory_db_replica_up", { state: "up" })).toBe(1);
    const text = (
      await answerMetrics({ method: "GET", remoteAddress: "127.0.0.1", authorization: null, forwardedFor: null })
    ).body;
    expect(text).toMatch(/memory_db_replica_lag_seconds\{replica="[^"]+"\} \d/);
    expect(text).toMatch(/memory_db_pool_max_connections\{pool="primary"\} 5/);
  });
});
