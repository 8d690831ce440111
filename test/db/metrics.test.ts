import http from "node:http";
import type { AddressInfo } from "node:net";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryJobs } from "~/db/schema";
import { env } from "~/env";
import { readReplicasOf } from "~/db/replicas";
import { createAgentListener } from "~/server/http/agent-listener";
import { answerMetrics } from "~/server/http/metrics-endpoint";
import { enqueueJob } from "~/server/jobs/queue";
import { setMetricsDatabase } from "~/server/metrics";
import { createKey, createOrg, trpcHttp } from "../support/agents";
import { callerAs } from "../support/trpc";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { clearOfMinuteEnd } from "../support/clock";

/** /api/metrics on either backend (read replicas have their own file, read-replicas.test.ts). */
describe(`metrics (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    handle = await openTestDatabase();
    setMetricsDatabase(async () => handle);
    const serveAgent = createAgentListener(async () => handle.db);
    server = http.createServer((req, res) => {
      if (serveAgent(req, res)) return;
      res.writeHead(404).end("passed on");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await handle?.destroy();
  });

  const scrape = async () => {
    const res = await fetch(`${base}/api/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    return res.text();
  };
  const value = (text: string, name: string, labels: Record<string, string> = {}) =>
    text
      .split("\n")
      .filter(
        (line) =>
          (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) &&
          Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)),
      )
      .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(" ") + 1)), 0);

  it("counts tool calls, their latency and errors by reason, and rate-limit refusals", async () => {
    const org = await createOrg(handle.db);
    const key = await createKey(handle.db, { tenantId: org.tenantId, ownerUserId: org.adminId, rateLimitPerMinute: 3 });
    const before = await scrape();
    await clearOfMinuteEnd();
    expect(
      (await trpcHttp(handle.db, "tools.memory_search", { bearer: key.secret, body: { queryText: "anything" } }))
        .status,
    ).toBe(200);
    expect(
      (await trpcHttp(handle.db, "tools.memory_search", { bearer: key.secret, body: { queryText: "again" } })).status,
    ).toBe(200);
    const invalid = await trpcHttp(handle.db, "tools.memory_write", {
      bearer: key.secret,
      body: { operations: "not a list" },
    });
    expect(invalid.status).toBe(400);
    expect(
      (await trpcHttp(handle.db, "tools.memory_search", { bearer: key.secret, body: { queryText: "over" } })).status,
    ).toBe(429);
    const after = await scrape();

    const delta = (name: string, labels: Record<string, string>) =>
      value(after, name, labels) - value(before, name, labels);
    expect(delta("memory_requests_total", { surface: "tool", name: "memory_search", outcome: "ok" })).toBe(2);
    expect(delta("memory_request_duration_seconds_count", { surface: "tool", name: "memory_search" })).toBe(2);
    expect(
      delta("memory_request_errors_total", { surface: "tool", name: "memory_write", reason: "invalid_input" }),
    ).toBe(1);
    expect(delta("memory_requests_total", { surface: "agent", name: "tools.memory_search", outcome: "error" })).toBe(1);
    expect(
      delta("memory_request_errors_total", { surface: "agent", name: "tools.memory_search", reason: "rate_limited" }),
    ).toBe(1);
    expect(delta("memory_rate_limit_refusals_total", { surface: "agent" })).toBe(1);
    // Each call once: a tool that ran is counted by the registry (surface "tool"), not again as the
    // tRPC procedure; the refusal before the tool ran is counted by the procedure (surface "agent").
    expect(delta("memory_requests_total", { surface: "agent", name: "tools.memory_search", outcome: "ok" })).toBe(0);
    expect(delta("memory_requests_total", { surface: "agent", name: "tools.memory_write" })).toBe(0);
    expect(delta("memory_requests_total", {})).toBe(4);
    expect(delta("memory_request_duration_seconds_count", {})).toBe(4);
  });

  it("counts dashboard procedures by name, their latency and errors by reason", async () => {
    const org = await createOrg(handle.db);
    const asAdmin = callerAs(handle.db, { userId: org.adminId, tenantId: org.tenantId });
    const before = await scrape();
    await asAdmin.memory.kinds();
    await asAdmin.memory.kinds();
    await expect(asAdmin.memory.card({ id: 42 } as never)).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(callerAs(handle.db).memory.kinds()).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) =>
      value(after, name, labels) - value(before, name, labels);
    expect(delta("memory_requests_total", { surface: "dashboard", name: "memory.kinds", outcome: "ok" })).toBe(2);
    expect(delta("memory_requests_total", { surface: "dashboard", name: "memory.kinds", outcome: "error" })).toBe(1);
    expect(delta("memory_request_duration_seconds_count", { surface: "dashboard", name: "memory.kinds" })).toBe(3);
    expect(delta("memory_request_errors_total", { surface: "dashboard", name: "memory.card" })).toBe(1);
    expect(delta("memory_requests_total", { surface: "dashboard" })).toBe(4);
    expect(delta("memory_requests_total", { surface: "tool" })).toBe(0);
  });

  it("reports the job queue by type, dead letters, the pool and the mode", async () => {
    const org = await createOrg(handle.db);
    await enqueueJob(handle.db, {
      tenantId: org.tenantId,
      type: "digest",
      payload: { n: 1 },
      runAt: new Date(Date.now() - 5000),
    });
    const dead = await enqueueJob(handle.db, { tenantId: org.tenantId, type: "summarize", payload: { n: 2 } });
    await handle.db
      .update(memoryJobs)
      .set({ status: "dead" })
      .where(and(eq(memoryJobs.tenantId, org.tenantId), eq(memoryJobs.id, dead!)));
    await new Promise((resolve) => setTimeout(resolve, 1100)); // the queue is read at most once a second
    const text = await scrape();
    expect(value(text, "memory_jobs_queued", { type: "digest" })).toBeGreaterThanOrEqual(1);
    expect(value(text, "memory_jobs_oldest_due_seconds", { type: "digest" })).toBeGreaterThanOrEqual(4);
    expect(value(text, "memory_jobs_dead_letters", { type: "summarize" })).toBeGreaterThanOrEqual(1);
    expect(value(text, "memory_info", { mode: handle.mode, replicas: "0" })).toBe(1);
    if (handle.mode === "server") expect(value(text, "memory_db_pool_max_connections", { pool: "primary" })).toBe(5);
    else expect(text).not.toContain("memory_db_pool_max_connections{");
  });

  it("answers this machine only without a token, and only the token with one", async () => {
    const elsewhere = await answerMetrics({
      method: "GET",
      remoteAddress: "10.1.2.3",
      authorization: null,
      forwardedFor: null,
    });
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body).toContain("METRICS_TOKEN");
    expect(
      (
        await answerMetrics({
          method: "GET",
          remoteAddress: "127.0.0.1",
          authorization: null,
          forwardedFor: "203.0.113.9",
        })
      ).status,
    ).toBe(403);
    expect(
      (await answerMetrics({ method: "GET", remoteAddress: null, authorization: null, forwardedFor: null })).status,
    ).toBe(403);
    expect(
      (await answerMetrics({ method: "POST", remoteAddress: "127.0.0.1", authorization: null, forwardedFor: null }))
        .status,
    ).toBe(405);
    const token = "metrics-token-for-tests-0123";
    const saved = env.METRICS_TOKEN;
    env.METRICS_TOKEN = token;
    try {
      expect(
        (await answerMetrics({ method: "GET", remoteAddress: "127.0.0.1", authorization: null, forwardedFor: null }))
          .status,
      ).toBe(401);
      expect(
        (
          await answerMetrics({
            method: "GET",
            remoteAddress: "10.1.2.3",
            authorization: "Bearer wrong-token-of-same-len",
            forwardedFor: null,
          })
        ).status,
      ).toBe(401);
      const ok = await answerMetrics({
        method: "GET",
        remoteAddress: "10.1.2.3",
        authorization: `Bearer ${token}`,
        forwardedFor: null,
      });
      expect(ok.status).toBe(200);
      expect(ok.body).toContain("memory_requests_total");
    } finally {
      env.METRICS_TOKEN = saved;
    }
  });

  it("does not count a request through a proxy as local: any proxy header, or TRUST_PROXY set", async () => {
    // Over the listener, from loopback: a same-machine proxy adds one of these headers.
    for (const header of ["forwarded", "x-real-ip", "via"]) {
      const res = await fetch(`${base}/api/metrics`, {
        headers: {
          [header]: header === "forwarded" ? "for=203.0.113.9" : header === "via" ? "1.1 proxy" : "203.0.113.9",
        },
      });
      expect(res.status, header).toBe(403);
      await res.text();
    }
    expect(
      (
        await answerMetrics({
          method: "GET",
          remoteAddress: "127.0.0.1",
          authorization: null,
          forwardedFor: null,
          proxyHeaders: ["via"],
        })
      ).status,
    ).toBe(403);
    const saved = env.TRUST_PROXY;
    env.TRUST_PROXY = true;
    try {
      // Behind a proxy that sets no header at all, every visitor arrives from loopback: only a token opens it.
      const refused = await answerMetrics({
        method: "GET",
        remoteAddress: "127.0.0.1",
        authorization: null,
        forwardedFor: null,
        proxyHeaders: [],
      });
      expect(refused.status).toBe(403);
      expect(refused.body).toContain("TRUST_PROXY");
    } finally {
      env.TRUST_PROXY = saved;
    }
    expect((await fetch(`${base}/api/metrics`)).status).toBe(200);
  });

  it("leaves a database without read replicas as it was: no replica, no consistency field", async () => {
    expect(readReplicasOf(handle.db)).toBeUndefined();
    expect(handle.readReplicas).toBeUndefined();
    const org = await createOrg(handle.db);
    const key = await createKey(handle.db, { tenantId: org.tenantId, ownerUserId: org.adminId });
    const written = await trpcHttp(handle.db, "tools.memory_write", {
      bearer: key.secret,
      body: {
        operations: [
          {
            op: "create",
            kind: "occupation",
            explicitUserIntent: true,
            scope: `user:${org.adminId}`,
            node: { title: "Job", content: "Bakes bread.", valueJson: "baker" },
          },
        ],
      },
    });
    expect(written.status).toBe(200);
    expect(written.json.result?.data).toMatchObject({ done: true });
    expect(written.json.result?.data).not.toHaveProperty("consistency");
    expect(value(await scrape(), "memory_db_reads_total")).toBe(0);
  });
});
