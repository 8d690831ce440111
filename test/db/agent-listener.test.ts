import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentTrpcPath, createAgentListener } from "~/server/http/agent-listener";
import { AGENT_MAX_BODY_BYTES } from "~/server/rate-limit/body-limit";
import { createKey, createOrg, trpcHttp } from "../support/agents";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { clearOfMinuteEnd } from "../support/clock";

/**
 * The agent listener in front of Next.js (scripts/server.mjs): agent calls get the same answers as
 * through the Next.js route (the fetch adapter, `trpcHttp`), everything else passes through.
 */
describe(`agent listener (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  let server: http.Server;
  let base: string;
  let secret: string;
  let org: Awaited<ReturnType<typeof createOrg>>;
  beforeAll(async () => {
    handle = await openTestDatabase();
    const serveAgent = createAgentListener(async () => handle.db);
    server = http.createServer((req, res) => {
      if (serveAgent(req, res)) return;
      res.writeHead(404, { "content-type": "text/plain" }).end("passed on");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    org = await createOrg(handle.db);
    ({ secret } = await createKey(handle.db, { tenantId: org.tenantId, ownerUserId: org.memberId }));
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await handle?.destroy();
  });

  const call = async (
    path: string,
    init: { body?: string | unknown; bearer?: string | null; headers?: Record<string, string> } = {},
  ) => {
    const headers: Record<string, string> = { "content-type": "application/json", ...init.headers };
    const bearer = init.bearer === undefined ? secret : init.bearer;
    if (bearer) headers.authorization = `Bearer ${bearer}`;
    const body =
      init.body === undefined ? undefined : typeof init.body === "string" ? init.body : JSON.stringify(init.body);
    const res = await fetch(`${base}${path}`, { method: body === undefined ? "GET" : "POST", headers, body });
    const text = await res.text();
    return { status: res.status, text, headers: res.headers };
  };

  it("recognises agent procedures only, batches included", () => {
    expect(agentTrpcPath("/api/trpc/tools.memory_search")).toBe("tools.memory_search");
    expect(agentTrpcPath("/api/trpc/tools.list?input=%7B%7D")).toBe("tools.list");
    expect(agentTrpcPath("/api/trpc/me.agent,tools.list?batch=1")).toBe("me.agent,tools.list");
    expect(agentTrpcPath("/api/trpc/tools.memory_search,memory.list?batch=1")).toBeNull();
    expect(agentTrpcPath("/api/trpc/memory.list")).toBeNull();
    expect(agentTrpcPath("/api/trpc/me.session")).toBeNull();
    expect(agentTrpcPath("/api/trpcx/tools.list")).toBeNull();
    expect(agentTrpcPath("/sign-in")).toBeNull();
    expect(agentTrpcPath("/api/trpc/%E0%A4%A")).toBeNull();
  });

  it("answers a path that is not valid percent-encoding with 400 instead of leaving the socket open", async () => {
    for (const path of ["/api/trpc/%E0%A4%A", "/api/trpc/tools.memory_search%", "/api/trpc/memory.list%ZZ?batch=1"]) {
      const res = await call(path, { body: {} });
      expect(res.status, path).toBe(400);
      expect(JSON.parse(res.text), path).toMatchObject({ error: { data: { reason: "malformed_path" } } });
    }
  });

  it("answers tool calls, errors included, exactly as the Next.js route does", async () => {
    const write = {
      operations: [
        {
          op: "create",
          kind: "food_avoidance",
          itemKey: "peanuts",
          explicitUserIntent: true,
          node: { title: "No peanuts", content: "The user is allergic to peanuts.", valueJson: "peanuts" },
        },
      ],
    };
    const written = await call("/api/trpc/tools.memory_write", { body: write });
    expect(written.status).toBe(200);
    expect(JSON.parse(written.text)).toMatchObject({ result: { data: { done: true } } });

    const readOnly = (
      await createKey(handle.db, { tenantId: org.tenantId, ownerUserId: org.memberId, permissions: ["memory:read"] })
    ).secret;
    const cases: { path: string; body?: unknown; bearer?: string | null }[] = [
      { path: "tools.memory_search", body: { queryText: "peanuts allergy", turn: { sessionId: "s1" } } },
      { path: "tools.memory_search", body: { queryText: 42 } },
      { path: "tools.memory_search", body: "not json" },
      { path: "tools.memory_search", body: "" },
      { path: "tools.memory_search", body: "[1, 2]" },
      { path: "tools.memory_search", body: { queryText: "x" }, bearer: null },
      { path: "tools.memory_search", body: { queryText: "x" }, bearer: "mem_live_notarealkey0000000000000000" },
      { path: "tools.memory_write", body: write, bearer: readOnly },
      {
        path: "tools.memory_write",
        body: { operations: [{ op: "update", targetId: "mem_nope", expectedRevision: 1, node: { title: "x" } }] },
      },
      { path: "tools.call", body: { name: "memory_context", arguments: { queryText: "peanuts" } } },
      { path: "tools.call", body: { name: "no_such_tool", arguments: {} } },
      { path: "tools.no_such_tool", body: {} },
      { path: "tools.list" },
      { path: "tools.list", body: {} },
      { path: "me.agent" },
    ];
    for (const c of cases) {
      const viaListener = await call(`/api/trpc/${c.path}`, { body: c.body, bearer: c.bearer });
      const viaRoute = await trpcHttp(handle.db, c.path, {
        body: c.body,
        bearer: c.bearer === undefined ? secret : (c.bearer ?? undefined),
      });
      if (c === cases[0]) expect(viaListener.text).toContain("allergic to peanuts");
      expect(answer(c.path, viaListener)).toEqual(answer(c.path, viaRoute));
    }
  });

  it("tells a caller whose body is not JSON what to send instead", async () => {
    // curl -d without -H 'content-type: application/json' sends a form body.
    const form = await call("/api/trpc/tools.memory_search", {
      body: '{"queryText": "peanuts"}',
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(form.status).toBe(415);
    const truncated = await call("/api/trpc/tools.memory_search", { body: '{"queryText": ' });
    expect(truncated.status).toBe(400);
    for (const answer of [form, truncated]) {
      expect(JSON.parse(answer.text)).toMatchObject({
        error: {
          message: expect.stringMatching(/Send one JSON object with the header Content-Type: application\/json/),
          data: { reason: "invalid_body" },
        },
      });
    }
  });

  it("answers a rate-limited call as the Next.js route does, Retry-After included", async () => {
    const limited = (
      await createKey(handle.db, { tenantId: org.tenantId, ownerUserId: org.memberId, rateLimitPerMinute: 1 })
    ).secret;
    const body = { queryText: "peanuts" };
    await clearOfMinuteEnd();
    expect((await call("/api/trpc/tools.memory_search", { body, bearer: limited })).status).toBe(200);
    const viaListener = await call("/api/trpc/tools.memory_search", { body, bearer: limited });
    const viaRoute = await trpcHttp(handle.db, "tools.memory_search", { body, bearer: limited });
    expect(viaListener.status).toBe(429);
    expect(Number(viaListener.headers.get("retry-after"))).toBeGreaterThan(0);
    // The two calls may fall either side of a second boundary: the seconds left differ, nothing else may.
    const sameSecond = (r: { status: number; text: string; headers: Headers }) => ({
      ...r,
      text: r.text.replace(/"retryAfterSeconds":\d+/g, '"retryAfterSeconds":0').replace(/Wait \d+ s /g, "Wait 0 s "),
      headers: new Headers([...r.headers].map(([k, v]): [string, string] => [k, k === "retry-after" ? "0" : v])),
    });
    expect(answer("limited", sameSecond(viaListener))).toEqual(answer("limited", sameSecond(viaRoute)));
  });

  /** What an agent reads of an answer: status, body (timings zeroed) and the headers tRPC sets. */
  function answer(path: string, r: { status: number; text: string; headers: Headers }) {
    const body = JSON.parse(r.text.replace(/"(tookMs|latencyMs|durationMs)":[\d.]+/g, '"$1":0')) as unknown;
    const headers = Object.fromEntries(["content-type", "vary", "retry-after"].map((h) => [h, r.headers.get(h)]));
    return { path, status: r.status, body, headers };
  }

  it("refuses an oversized body with 413 whether its length is declared or not", async () => {
    const big = JSON.stringify({ queryText: "x".repeat(AGENT_MAX_BODY_BYTES + 10) });
    const declared = await call("/api/trpc/tools.memory_search", { body: big });
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.text)).toMatchObject({
      error: { data: { code: "PAYLOAD_TOO_LARGE", reason: "payload_too_large" } },
    });

    const chunked = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(
        `${base}/api/trpc/tools.memory_search`,
        {
          method: "POST",
          headers: {
            authorization: `Bearer ${secret}`,
            "content-type": "application/json",
            "transfer-encoding": "chunked",
          },
        },
        (res) => {
          let text = "";
          res.on("data", (c: Buffer) => (text += c.toString()));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on("error", reject);
      for (let i = 0; i < 20; i++) req.write("x".repeat(16 * 1024));
      req.end();
    });
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.text)).toMatchObject({ error: { data: { reason: "payload_too_large" } } });

    const mcp = await call("/api/mcp", { body: big, headers: { accept: "application/json, text/event-stream" } });
    expect(mcp.status).toBe(413);
    expect(JSON.parse(mcp.text)).toMatchObject({ jsonrpc: "2.0", error: { data: { reason: "payload_too_large" } } });
  });

  it("serves MCP over Streamable HTTP", async () => {
    const headers = { accept: "application/json, text/event-stream" };
    const init = await call("/api/mcp", {
      headers,
      body: {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1" } },
      },
    });
    expect(init.status).toBe(200);
    const listed = await call("/api/mcp", {
      headers,
      body: { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} },
    });
    expect(
      (JSON.parse(listed.text) as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name),
    ).toContain("memory_search");
    const get = await call("/api/mcp", { headers });
    expect(get.status).toBe(405);
    const anonymous = await call("/api/mcp", {
      headers,
      bearer: null,
      body: { jsonrpc: "2.0", id: 3, method: "tools/list", params: {} },
    });
    expect(anonymous.status).toBe(401);
  });

  it("passes everything else on: the dashboard's procedures, pages, a batch mixing both", async () => {
    for (const path of [
      "/api/trpc/memory.list",
      "/api/trpc/tools.memory_search,memory.list?batch=1",
      "/sign-in",
      "/api/health",
      "/",
    ]) {
      const res = await call(path);
      expect({ path, status: res.status, text: res.text }).toEqual({ path, status: 404, text: "passed on" });
    }
  });
});
