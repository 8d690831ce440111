import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryClient, MemoryApiError, type MemoryClient } from "../../packages/client/src/index";
import { startAgentServer, startFaultProxy, trpcError, type AgentServer } from "../support/agent-server";
import { TEST_BACKEND } from "../support/db";
import { clearOfMinuteEnd } from "../support/clock";

/**
 * The TypeScript client (packages/client) against a started agent endpoint: the real listener on a
 * real port, this backend's database, and a fault proxy where the network has to misbehave.
 */
describe(`@agent-memory/client against the agent endpoint (${TEST_BACKEND})`, () => {
  let server: AgentServer;
  let memory: MemoryClient;
  beforeAll(async () => {
    server = await startAgentServer();
    memory = createMemoryClient({ baseUrl: server.baseUrl, apiKey: server.secret, sessionId: "client-chat" });
  });
  afterAll(async () => {
    await server?.close();
  });

  const peanutCard = (messageIds: string[] = []) => ({
    operations: [
      {
        op: "create" as const,
        kind: "food_avoidance",
        itemKey: "peanuts",
        explicitUserIntent: true,
        node: {
          title: "Peanut allergy",
          content: "The user is allergic to peanuts.",
          valueJson: { food: "peanuts", reason: "allergy" },
          sourceMessageIds: messageIds,
        },
      },
    ],
  });

  it("round-trips a card: append, write with evidence, search, get, context, and a forget that needs intent", async () => {
    const appended = await memory.appendMessages([
      { role: "user", content: "Remember that I am allergic to peanuts." },
    ]);
    expect(appended.sessionId).toBe("client-chat");
    expect(appended.messageIds).toHaveLength(1);

    const written = await memory.write(peanutCard(appended.messageIds));
    expect(written.done).toBe(true);
    const created = written.results[0]!;
    expect(created).toMatchObject({ status: "created", revision: 1 });

    const found = await memory.search({ queryText: "peanut allergy" });
    expect([...found.exact, ...found.relevant].map((hit) => hit.id)).toContain(created.nodeId);
    const byKind = await memory.search({ kinds: ["food_avoidance"] });
    expect(byKind.exact.map((hit) => hit.title)).toEqual(["Peanut allergy"]);

    const got = await memory.get(created.nodeId!);
    expect(got).toMatchObject({
      found: true,
      node: { id: created.nodeId, revision: 1, status: "active", sourceMessageIds: appended.messageIds },
    });

    const context = await memory.context({ queryText: "Can I eat satay?" });
    expect(context.prompt).toContain("allergic to peanuts");

    // Without the user's request the service refuses, as an answer (nothing forgotten), not an error.
    const refused = await memory.forget({ id: created.nodeId!, expectedRevision: 1, reason: "cleanup" });
    expect(refused).toMatchObject({ done: false, reason: "forget_intent_required", deletedIds: [] });
    expect((await memory.get(created.nodeId!)).node?.status).toBe("active");

    const forgotten = await memory.forget(
      { id: created.nodeId!, expectedRevision: 1, reason: "the user asked" },
      { turn: { forgetIntent: true } },
    );
    expect(forgotten).toMatchObject({ done: true, deletedIds: [created.nodeId] });
    expect((await memory.search({ kinds: ["food_avoidance"] })).exact).toEqual([]);
  });

  it("offers the same tools through listTools and call, and a session per withSession", async () => {
    const listed = await memory.listTools();
    expect(listed.tools.map((t) => t.name)).toEqual([
      "memory_search",
      "memory_get",
      "memory_write",
      "memory_forget",
      "memory_context",
      "message_append",
    ]);
    expect(listed.tools[0]?.openai.type).toBe("function");

    const other = memory.withSession("client-other");
    expect(other.sessionId).toBe("client-other");
    const appended = await other.call("message_append", {
      messages: [{ role: "user", content: "I prefer tea over coffee." }],
    });
    expect(appended.sessionId).toBe("client-other");
    const viaCall = await memory.call("memory_search", { all: true });
    expect(viaCall.enumerated).toBe(true);
    const untyped = (await memory
      .call("memory_get" as string, { id: "mem_nope" })
      .catch((error: unknown) => error)) as MemoryApiError;
    expect(untyped).toBeInstanceOf(MemoryApiError);
    expect(untyped).toMatchObject({ status: 404, code: "NOT_FOUND" });
  });

  it("sends a read's consistency token as X-Memory-Consistency, and only when given", async () => {
    const sent: Record<string, string>[] = [];
    const recording: typeof fetch = (url, init) => {
      sent.push({ ...(init?.headers as Record<string, string>) });
      return fetch(url, init);
    };
    const client = createMemoryClient({
      baseUrl: server.baseUrl,
      apiKey: server.secret,
      sessionId: "client-consistency",
      fetch: recording,
    });
    // Without read replicas the server ignores the token; the answer is the same.
    const plain = await client.search({ kinds: ["timezone_preference"] });
    const withToken = await client.search({ kinds: ["timezone_preference"] }, { consistency: "0/3A2B4C8" });
    await client.call("memory_get", { ids: ["nope"] }, { consistency: "0/1" }).catch(() => {});
    expect(withToken).toEqual(plain);
    expect(sent[0]?.["x-memory-consistency"]).toBeUndefined();
    expect(sent[1]?.["x-memory-consistency"]).toBe("0/3A2B4C8");
    expect(sent[2]?.["x-memory-consistency"]).toBe("0/1");
  });

  it("throws typed errors with the service's code, reason, details and status", async () => {
    const readOnly = createMemoryClient({
      baseUrl: server.baseUrl,
      apiKey: await server.newKey({ permissions: ["memory:read"] }),
    });
    const denied = await readOnly.write(peanutCard()).catch((error: unknown) => error);
    expect(denied).toBeInstanceOf(MemoryApiError);
    expect(denied).toMatchObject({
      status: 403,
      code: "FORBIDDEN",
      reason: "missing_permission",
      details: { permission: "memory:write", tool: "memory_write" },
      procedure: "tools.memory_write",
      attempts: 1,
    });

    const invalid = await memory
      .forget({ id: "mem_x", expectedRevision: 1, reason: "" }, { turn: { forgetIntent: true } })
      .catch((error: unknown) => error);
    expect(invalid).toMatchObject({ status: 400, code: "BAD_REQUEST", reason: "invalid_input" });
    expect((invalid as MemoryApiError).message).toMatch(/reason/);

    const unknownKey = createMemoryClient({ baseUrl: server.baseUrl, apiKey: "mem_live_notarealkey0000000000000000" });
    await expect(unknownKey.search({ all: true })).rejects.toMatchObject({ status: 401, reason: "unknown_api_key" });

    // A real 429 from the key's limit: its Retry-After (up to a minute) is longer than this client waits.
    const limited = createMemoryClient({
      baseUrl: server.baseUrl,
      apiKey: await server.newKey({ rateLimitPerMinute: 1 }),
      maxRetryDelayMs: 100,
    });
    await clearOfMinuteEnd();
    await limited.search({ all: true });
    const tooMany = (await limited.search({ all: true }).catch((error: unknown) => error)) as MemoryApiError;
    expect(tooMany).toMatchObject({ status: 429, code: "TOO_MANY_REQUESTS", reason: "rate_limited", attempts: 1 });
    expect(tooMany.retryAfterSeconds).toBeGreaterThan(0);
  });

  it("retries 429 after Retry-After and 503, with the same idempotencyKey, and a lost answer is replayed", async () => {
    const proxy = await startFaultProxy(server.baseUrl, (n) => {
      if (n === 1)
        return {
          kind: "answer",
          status: 429,
          headers: { "retry-after": "1" },
          body: trpcError(429, "TOO_MANY_REQUESTS", "rate_limited", "slow down", { retryAfterSeconds: 1 }),
        };
      // The write reaches the database, then its answer is lost: the retry must not write twice.
      if (n === 2)
        return {
          kind: "forward-then-answer",
          status: 503,
          body: trpcError(503, "SERVICE_UNAVAILABLE", "database_unavailable", "connection lost"),
        };
      return { kind: "forward" };
    });
    try {
      const client = createMemoryClient({ baseUrl: proxy.url, apiKey: server.secret, sessionId: "client-retry" });
      const started = Date.now();
      const written = await client.write({
        operations: [
          {
            op: "create",
            kind: "timezone_preference",
            explicitUserIntent: true,
            node: { title: "Time zone", content: "Lives in Berlin time.", valueJson: "Europe/Berlin" },
          },
        ],
      });
      const waited = Date.now() - started;
      expect(proxy.requests).toHaveLength(3);
      expect(waited).toBeGreaterThanOrEqual(1000); // Retry-After: 1
      const keys = proxy.requests.map((r) => (JSON.parse(r.body) as { idempotencyKey?: string }).idempotencyKey);
      expect(keys[0]).toMatch(/.{8,}/);
      expect(new Set(keys).size).toBe(1);
      expect(written).toMatchObject({ done: true, replayed: true });
      const cards = await memory.withSession("client-retry").search({ kinds: ["timezone_preference"] });
      expect(cards.exact).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });

  it("reads its own writes: a write's consistency token goes back as X-Memory-Consistency, the later one kept", async () => {
    // The test server has no read replicas, so the proxy adds the token a server with replicas would send.
    const tokens = ["0/1A2B3C", "0/1A2B00"];
    const proxy = await startFakeProxyWithTokens(tokens);
    try {
      const client = createMemoryClient({ baseUrl: proxy.url, apiKey: server.secret, sessionId: "client-ryw" });
      expect(client.consistency).toBeUndefined();
      const written = await client.write(peanutCard());
      expect(written.consistency).toBe("0/1A2B3C");
      // An older position arriving later does not replace the newer one.
      await client.appendMessages([{ role: "user", content: "Noted." }]);
      expect(client.consistency).toBe("0/1A2B3C");
      await client.withSession("client-ryw-2").search({ all: true });
      await client.search({ all: true }, { consistency: "5/0" });
      const plain = createMemoryClient({ baseUrl: proxy.url, apiKey: server.secret, readYourWrites: false });
      await plain.search({ all: true });
      const sent = proxy.requests.map((r) => r.headers["x-memory-consistency"]);
      expect(sent).toEqual([undefined, "0/1A2B3C", "0/1A2B3C", "5/0", undefined]);
    } finally {
      await proxy.close();
    }
  });

  /** Writes and appends answered with the next of `tokens` as their consistency field. */
  const startFakeProxyWithTokens = (tokens: string[]) =>
    startFaultProxy(server.baseUrl, (_n, request) =>
      /tools\.(memory_write|message_append|memory_forget)/.test(request.url)
        ? {
            kind: "forward-edit",
            edit: (answer) => ({
              result: {
                data: { ...(answer as { result: { data: object } }).result.data, consistency: tokens.shift() },
              },
            }),
          }
        : { kind: "forward" },
    );

  it("gives up after `retries` and reports how many attempts it made", async () => {
    const proxy = await startFaultProxy(server.baseUrl, () => ({
      kind: "answer",
      status: 503,
      body: trpcError(503, "SERVICE_UNAVAILABLE", "database_unavailable", "connection lost"),
    }));
    try {
      const client = createMemoryClient({ baseUrl: proxy.url, apiKey: server.secret, retries: 2 });
      const error = await client.search({ all: true }).catch((e: unknown) => e);
      expect(error).toMatchObject({ status: 503, reason: "database_unavailable", attempts: 3 });
      expect(proxy.requests).toHaveLength(3);
      // A 400 is never retried.
      const plain = createMemoryClient({ baseUrl: server.baseUrl, apiKey: server.secret });
      await expect(plain.search({ queryText: "x", limit: 0 })).rejects.toMatchObject({ status: 400, attempts: 1 });
    } finally {
      await proxy.close();
    }
  });

  it("times out a request that gets no answer, and stops at once when aborted", async () => {
    const proxy = await startFaultProxy(server.baseUrl, () => ({ kind: "hold" }));
    try {
      const slow = createMemoryClient({ baseUrl: proxy.url, apiKey: server.secret, timeoutMs: 300 });
      const started = Date.now();
      const timedOut = await slow.search({ all: true }).catch((e: unknown) => e);
      expect(timedOut).toBeInstanceOf(MemoryApiError);
      expect(timedOut).toMatchObject({ code: "TIMEOUT", reason: "timeout", status: 0 });
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(proxy.requests).toHaveLength(1);

      const controller = new AbortController();
      const patient = createMemoryClient({ baseUrl: proxy.url, apiKey: server.secret, timeoutMs: 60_000 });
      const pending = patient.search({ all: true }, { signal: controller.signal }).catch((e: unknown) => e);
      setTimeout(() => controller.abort(), 100);
      const aborted = await pending;
      expect(aborted).toBeInstanceOf(Error);
      expect((aborted as Error).name).toBe("AbortError");
      expect(aborted).not.toBeInstanceOf(MemoryApiError);
      await expect(patient.search({ all: true }, { signal: AbortSignal.abort() })).rejects.toMatchObject({
        name: "AbortError",
      });
    } finally {
      await proxy.close();
    }
  });

  it("stops waiting for a retry when aborted during the back-off", async () => {
    const proxy = await startFaultProxy(server.baseUrl, () => ({
      kind: "answer",
      status: 429,
      headers: { "retry-after": "20" },
      body: trpcError(429, "TOO_MANY_REQUESTS", "rate_limited", "slow down"),
    }));
    try {
      const client = createMemoryClient({ baseUrl: proxy.url, apiKey: server.secret, maxRetryDelayMs: 60_000 });
      const controller = new AbortController();
      const started = Date.now();
      const pending = client.search({ all: true }, { signal: controller.signal }).catch((e: unknown) => e);
      setTimeout(() => controller.abort(), 300);
      expect(await pending).toMatchObject({ name: "AbortError" });
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(proxy.requests).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });
});
