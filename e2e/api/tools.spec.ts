import { expect, test, type APIRequestContext } from "@playwright/test";

/**
 * The agent endpoint against the running production build: an admin signs up and signs in over
 * HTTP, creates a key, and an agent then uses only that key and plain JSON — over tRPC and MCP.
 */

const admin = { name: "Api Admin", email: "api-admin@example.com", password: "a long enough password" };

type TrpcBody<T> = {
  result?: { data: T };
  error?: { message: string; data: { code: string; reason?: string; httpStatus: number } };
};
type Node = { id: string; revision: number; key: string; title: string };
type WriteResult = { done: boolean; results: { status: string; nodeId?: string; revision?: number }[] };

test.describe.configure({ mode: "serial" });

let dashboard: APIRequestContext;
let agent: APIRequestContext;
let secret = "";

test.beforeAll(async ({ playwright, baseURL }) => {
  dashboard = await playwright.request.newContext({ baseURL });
});
test.afterAll(async () => {
  await dashboard?.dispose();
  await agent?.dispose();
});

async function trpc<T>(
  ctx: APIRequestContext,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: TrpcBody<T> }> {
  const response =
    body === undefined ? await ctx.get(`/api/trpc/${path}`) : await ctx.post(`/api/trpc/${path}`, { data: body });
  return { status: response.status(), body: (await response.json()) as TrpcBody<T> };
}
async function ok<T>(ctx: APIRequestContext, path: string, body?: unknown): Promise<T> {
  const { status, body: json } = await trpc<T>(ctx, path, body);
  expect(status, JSON.stringify(json.error)).toBe(200);
  return json.result!.data;
}

test("an admin signs up, signs in with next-auth credentials and creates an agent key", async ({
  playwright,
  baseURL,
}) => {
  const signUp = await ok<{ firstAdmin: boolean; role: string }>(dashboard, "account.signUp", admin);
  expect(signUp).toMatchObject({ firstAdmin: true, role: "admin" });

  const { csrfToken } = (await (await dashboard.get("/api/auth/csrf")).json()) as { csrfToken: string };
  const signIn = await dashboard.post("/api/auth/callback/credentials", {
    form: { csrfToken, email: admin.email, password: admin.password, callbackUrl: `${baseURL}/`, json: "true" },
    maxRedirects: 0,
  });
  expect([200, 302]).toContain(signIn.status());
  const session = (await (await dashboard.get("/api/auth/session")).json()) as { user?: { email?: string } };
  expect(session.user?.email).toBe(admin.email);

  const created = await ok<{ secret: string; apiKey: { id: string; scopes: string[] } }>(dashboard, "keys.create", {
    name: "e2e agent",
    permissions: ["memory:read", "memory:write", "memory:forget", "messages:write"],
  });
  expect(created.secret).toMatch(/^mem_live_/);
  secret = created.secret;
  const listed = await ok<{ id: string }[]>(dashboard, "keys.list");
  expect(listed.map((k) => k.id)).toContain(created.apiKey.id);
  expect(JSON.stringify(listed)).not.toContain(secret);

  agent = await playwright.request.newContext({ baseURL, extraHTTPHeaders: { authorization: `Bearer ${secret}` } });
});

test("an agent runs a turn over plain JSON: append, write with evidence, search, context, forget", async () => {
  const listed = await ok<{
    tools: { name: string; openai: { type: string }; anthropic: { input_schema: { type: string } } }[];
  }>(agent, "tools.list");
  expect(listed.tools.map((t) => t.name)).toEqual([
    "memory_search",
    "memory_get",
    "memory_write",
    "memory_forget",
    "memory_context",
    "message_append",
  ]);
  expect(listed.tools[0]).toMatchObject({
    openai: { type: "function" },
    anthropic: { input_schema: { type: "object" } },
  });

  const turn = { sessionId: "e2e-chat", toolCallId: "call-e2e-1" };
  const appended = await ok<{ messageIds: string[] }>(agent, "tools.message_append", {
    messages: [{ role: "user", content: "Remember that I'm allergic to peanuts." }],
    turn,
  });
  expect(appended.messageIds).toHaveLength(1);

  const written = await ok<WriteResult>(agent, "tools.memory_write", {
    operations: [
      {
        op: "create",
        kind: "food_avoidance",
        itemKey: "peanuts",
        explicitUserIntent: true,
        node: {
          title: "Peanut allergy",
          content: "The user is allergic to peanuts.",
          valueJson: { food: "peanuts", reason: "allergy" },
          sourceMessageIds: appended.messageIds,
        },
      },
    ],
    turn,
  });
  expect(written).toMatchObject({ done: true, results: [{ status: "created" }] });
  const cardId = written.results[0]!.nodeId!;

  const found = await ok<{ exact: Node[]; relevant: Node[] }>(agent, "tools.memory_search", {
    kinds: ["food_avoidance"],
  });
  expect(found.exact.map((n) => n.id)).toContain(cardId);
  const viaCall = await ok<{ exact: Node[] }>(agent, "tools.call", {
    name: "memory_search",
    arguments: { kinds: ["food_avoidance"] },
  });
  expect(viaCall.exact.map((n) => n.id)).toContain(cardId);

  const context = await ok<{ prompt: string; usedMemoryIds: string[] }>(agent, "tools.memory_context", {
    queryText: "Can I eat a sauce made with peanuts?",
    turn,
  });
  expect(context.usedMemoryIds).toContain(cardId);
  expect(context.prompt).toContain("Peanut allergy");

  const got = await ok<{ node: Node }>(agent, "tools.memory_get", { id: cardId });
  const forget = { id: cardId, expectedRevision: got.node.revision, reason: "the user asked to forget the allergy" };
  const refused = await ok<{ done: boolean; reason: string }>(agent, "tools.memory_forget", { ...forget, turn });
  expect(refused).toMatchObject({ done: false, reason: "forget_intent_required" });
  const forgotten = await ok<{ done: boolean; deletedIds: string[] }>(agent, "tools.memory_forget", {
    ...forget,
    turn: { ...turn, forgetIntent: true },
  });
  expect(forgotten).toMatchObject({ done: true, deletedIds: [cardId] });

  const after = await ok<{ exact: Node[]; relevant: Node[] }>(agent, "tools.memory_search", {
    kinds: ["food_avoidance"],
  });
  expect([...after.exact, ...after.relevant].map((n) => n.id)).not.toContain(cardId);
});

test("bad calls get clean, actionable errors", async () => {
  const unknown = await trpc(agent, "tools.call", { name: "memory_nuke", arguments: {} });
  expect(unknown.status).toBe(400);
  expect(unknown.body.error?.data).toMatchObject({ code: "BAD_REQUEST", reason: "unknown_tool" });

  const malformed = await agent.post("/api/trpc/tools.call", {
    data: '{"name": "memory_search", ',
    headers: { "content-type": "application/json" },
  });
  expect(malformed.status()).toBe(400);
  expect(await malformed.text()).not.toMatch(/at .*\.(ts|js):\d+/);

  const huge = await agent.post("/api/trpc/tools.memory_search", { data: { queryText: "x".repeat(300 * 1024) } });
  expect(huge.status()).toBe(413);
  expect(((await huge.json()) as TrpcBody<unknown>).error?.data.reason).toBe("payload_too_large");

  const noKey = await dashboard.post("/api/trpc/tools.memory_search", { data: {} });
  expect(noKey.status()).toBe(401);
});

test("a key over its per-minute limit gets 429 with Retry-After", async ({ playwright, baseURL }) => {
  const limited = await ok<{ secret: string }>(dashboard, "keys.create", {
    name: "tight",
    permissions: ["memory:read"],
    rateLimitPerMinute: 2,
  });
  const ctx = await playwright.request.newContext({
    baseURL,
    extraHTTPHeaders: { authorization: `Bearer ${limited.secret}` },
  });
  for (let i = 0; i < 2; i++)
    expect((await ctx.post("/api/trpc/tools.memory_search", { data: { all: true } })).status()).toBe(200);
  const refused = await ctx.post("/api/trpc/tools.memory_search", { data: { all: true } });
  expect(refused.status()).toBe(429);
  expect(Number(refused.headers()["retry-after"])).toBeGreaterThan(0);
  expect(((await refused.json()) as TrpcBody<unknown>).error?.data.reason).toBe("rate_limited");
  const viaMcp = await ctx.post("/api/mcp", {
    data: { jsonrpc: "2.0", id: 1, method: "tools/list" },
    headers: { accept: "application/json, text/event-stream", "content-type": "application/json" },
  });
  expect(viaMcp.status()).toBe(429);
  await ctx.dispose();
});

test("an MCP client gets the same tools over Streamable HTTP", async ({ playwright, baseURL }) => {
  const mcp = await playwright.request.newContext({
    baseURL,
    extraHTTPHeaders: {
      authorization: `Bearer ${secret}`,
      accept: "application/json, text/event-stream",
      "content-type": "application/json",
    },
  });
  let id = 0;
  const rpc = async <T>(method: string, params: Record<string, unknown> = {}) => {
    const response = await mcp.post("/api/mcp", { data: { jsonrpc: "2.0", id: ++id, method, params } });
    expect(response.status()).toBe(200);
    const body = (await response.json()) as { result?: T; error?: unknown };
    expect(body.error).toBeUndefined();
    return body.result!;
  };
  type ToolResult<T> = { isError: boolean; structuredContent: T; content: { type: string; text: string }[] };
  const call = <T>(name: string, args: Record<string, unknown>, turn?: Record<string, unknown>) =>
    rpc<ToolResult<T>>("tools/call", { name, arguments: args, ...(turn ? { _meta: { turn } } : {}) });

  const init = await rpc<{ serverInfo: { name: string }; protocolVersion: string }>("initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "e2e", version: "1.0.0" },
  });
  expect(init.serverInfo.name).toBe("agent-memory");
  const initialized = await mcp.post("/api/mcp", { data: { jsonrpc: "2.0", method: "notifications/initialized" } });
  expect(initialized.status()).toBe(202);

  const { tools } = await rpc<{ tools: { name: string }[] }>("tools/list");
  expect(tools.map((t) => t.name)).toEqual([
    "memory_search",
    "memory_get",
    "memory_write",
    "memory_forget",
    "memory_context",
    "message_append",
  ]);

  const turn = { sessionId: "e2e-mcp" };
  const appended = await call<{ messageIds: string[] }>(
    "message_append",
    { messages: [{ role: "user", content: "I live in Lisbon, remember that." }] },
    turn,
  );
  const written = await call<WriteResult>(
    "memory_write",
    {
      operations: [
        {
          op: "create",
          kind: "home_location",
          explicitUserIntent: true,
          node: {
            title: "Home",
            content: "The user lives in Lisbon.",
            valueJson: { city: "Lisbon" },
            sourceMessageIds: appended.structuredContent.messageIds,
          },
        },
      ],
    },
    turn,
  );
  expect(written).toMatchObject({ isError: false, structuredContent: { done: true } });
  const cardId = written.structuredContent.results[0]!.nodeId!;

  const found = await call<{ exact: Node[] }>("memory_search", { kinds: ["home_location"] });
  expect(found.structuredContent.exact.map((n) => n.id)).toContain(cardId);
  expect(JSON.parse(found.content[0]!.text)).toEqual(found.structuredContent);

  const forgotten = await call<{ done: boolean }>(
    "memory_forget",
    { id: cardId, expectedRevision: 1, reason: "user asked" },
    { forgetIntent: true },
  );
  expect(forgotten).toMatchObject({ isError: false, structuredContent: { done: true } });
  const after = await call<{ exact: Node[] }>("memory_search", { kinds: ["home_location"] });
  expect(after.structuredContent.exact.map((n) => n.id)).not.toContain(cardId);

  const anonymous = await playwright.request.newContext({ baseURL });
  const denied = await anonymous.post("/api/mcp", {
    data: { jsonrpc: "2.0", id: 1, method: "tools/list" },
    headers: { accept: "application/json, text/event-stream" },
  });
  expect(denied.status()).toBe(401);
  await anonymous.dispose();
  await mcp.dispose();
});
