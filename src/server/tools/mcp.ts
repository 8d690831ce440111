import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Database } from "~/db/types";
import type { AgentCredentials } from "~/server/auth/agent-auth";
import { admitMeteredAgentCall } from "~/server/auth/agent-call";
import { ServiceError } from "~/server/errors";
import { logServerError } from "~/server/log";
import { AGENT_MAX_BODY_BYTES, readBodyWithin, tooLargeMessage } from "~/server/rate-limit/body-limit";
import type { CounterStore } from "~/server/rate-limit/limiter";
import { isPlainObject, jsonShapeProblem } from "./limits";
import { callTool, isToolName, listTools, toolAllowed, toolSucceeded, TOOL_NAMES, type ToolName, type ToolResults } from "./registry";
import type { TurnInput } from "./schemas";

/**
 * The agent tools over MCP (Streamable HTTP, stateless: a fresh server and transport per request,
 * JSON responses). Same bearer key, rate limit, tool list and checks as the tRPC endpoint, because
 * both call the same registry.
 */

export const MCP_SERVER_INFO = { name: "agent-memory", version: "0.1.0" } as const;

const INSTRUCTIONS =
  "Long-term memory for this user. At the start of a turn call memory_context with the user's message. Use memory_search with kinds for known categories and all: true to list everything; " +
  "memory_get before changing a card; memory_write only for durable facts (explicitUserIntent only when the user asked); memory_forget only when the user asked to forget. " +
  "A result with done: false means nothing changed — never tell the user it succeeded. " +
  "Hosts: send the turn (sessionId, workspaceId, userId, forgetIntent, forgetAllIntent, toolCallId) in tools/call params._meta.turn, or X-Memory-Session-Id / X-Memory-Workspace-Id / X-Memory-User-Id headers.";

function jsonRpcError(status: number, code: number, message: string, data?: Record<string, unknown>, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message, ...(data ? { data } : {}) }, id: null }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

export const mcpPayloadTooLarge = (maxBytes: number) => jsonRpcError(413, -32600, tooLargeMessage(maxBytes), { reason: "payload_too_large" }, { connection: "close" });

const INTERNAL_MESSAGE = "The server could not complete this call and changed nothing. Retry; if it keeps failing, report it to your admin.";

const HTTP_STATUS: Record<string, number> = { UNAUTHORIZED: 401, FORBIDDEN: 403, TOO_MANY_REQUESTS: 429, PAYLOAD_TOO_LARGE: 413, BAD_REQUEST: 400 };

/** A per-connection turn from headers (for MCP clients that cannot set `_meta`). */
function headerTurn(headers: Headers): TurnInput {
  const turn: TurnInput = {};
  const sessionId = headers.get("x-memory-session-id");
  const workspaceId = headers.get("x-memory-workspace-id");
  const userId = headers.get("x-memory-user-id");
  if (sessionId) turn.sessionId = sessionId;
  if (workspaceId) turn.workspaceId = workspaceId;
  if (userId) turn.userId = userId;
  // Only for clients that make the user approve every tool call: approving memory_forget is the request.
  if (headers.get("x-memory-forget-intent") === "true") turn.forgetIntent = true;
  return turn;
}

const errorResult = (error: ServiceError): CallToolResult => ({
  isError: true,
  content: [{ type: "text", text: JSON.stringify({ error: { code: error.code, reason: error.reason, message: error.message, ...(error.details ? { details: error.details } : {}) } }) }],
});

function buildServer(db: Database, { apiKey, limits }: AgentCredentials, headers: Headers): McpServer {
  const mcp = new McpServer(MCP_SERVER_INFO, { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS });
  mcp.server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: (
      await listTools(db, apiKey).catch((error: unknown) => {
        // Driver errors may quote SQL: log them, answer with a plain sentence.
        logServerError("mcp tools/list", error);
        throw new McpError(ErrorCode.InternalError, INTERNAL_MESSAGE);
      })
    ).map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema as { type: "object"; [key: string]: unknown },
      annotations: { title: tool.title, readOnlyHint: tool.readOnly, destructiveHint: tool.destructive, idempotentHint: tool.readOnly, openWorldHint: false },
    })),
  }));
  mcp.server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const { name, arguments: args, _meta: meta } = request.params;
    if (!isToolName(name)) {
      const available = TOOL_NAMES.filter((n) => toolAllowed(apiKey, n));
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool "${name.slice(0, 60)}". Tools for this key: ${available.join(", ") || "none"}.`);
    }
    const metaTurn = meta && isPlainObject(meta.turn) ? (meta.turn as TurnInput) : {};
    const idempotencyKey = meta && typeof meta.idempotencyKey === "string" ? meta.idempotencyKey : undefined;
    try {
      const result = await callTool(db, apiKey, { name, arguments: args ?? {}, idempotencyKey, turn: { ...headerTurn(headers), ...metaTurn } }, limits);
      return {
        content: [{ type: "text", text: toolResultText(name, result) }],
        structuredContent: result as unknown as Record<string, unknown>,
        isError: !toolSucceeded(name, result),
      };
    } catch (error) {
      if (error instanceof ServiceError) return errorResult(error);
      logServerError(`mcp ${name}`, error);
      return errorResult(new ServiceError("INTERNAL_SERVER_ERROR", "internal_error", INTERNAL_MESSAGE));
    }
  });
  return mcp;
}

/** handleMcpRequest for an HTTP front door: an unexpected failure becomes a plain JSON-RPC 500, logged. */
export async function serveMcpRequest(req: Request, db: Database): Promise<Response> {
  try {
    return await handleMcpRequest(req, { db });
  } catch (error) {
    logServerError("mcp", error);
    return jsonRpcError(500, -32603, "The server could not complete this request and changed nothing. Retry; if it keeps failing, report it to your admin.");
  }
}

/** One HTTP request to /api/mcp. `store` replaces the rate-limit counter (tests). */
export async function handleMcpRequest(req: Request, deps: { db: Database; store?: CounterStore }): Promise<Response> {
  if (req.method !== "POST") {
    return jsonRpcError(405, -32000, "This MCP endpoint is stateless: send JSON-RPC requests with POST (no GET stream, no session to DELETE).", undefined, { allow: "POST" });
  }
  const match = (req.headers.get("authorization") ?? "").match(/^Bearer\s+(\S+)$/i);
  if (!match?.[1]) {
    return jsonRpcError(401, -32001, 'Send an API key as "Authorization: Bearer <key>".', { reason: "missing_api_key" }, { "www-authenticate": 'Bearer realm="agent-memory"' });
  }
  let credentials: AgentCredentials;
  try {
    credentials = await admitMeteredAgentCall(deps.db, match[1], { store: deps.store });
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    const retry = error.details?.retryAfterSeconds;
    return jsonRpcError(HTTP_STATUS[error.code] ?? 400, -32001, error.message, { reason: error.reason, ...(error.details ?? {}) }, {
      ...(error.code === "UNAUTHORIZED" ? { "www-authenticate": 'Bearer realm="agent-memory"' } : {}),
      ...(typeof retry === "number" ? { "retry-after": String(retry) } : {}),
    });
  }
  const body = await readBodyWithin(req, AGENT_MAX_BODY_BYTES);
  if (!body.ok) return mcpPayloadTooLarge(body.maxBytes);
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(body.bytes));
  } catch {
    return jsonRpcError(400, -32700, "Parse error: the body is not valid JSON. Send one JSON-RPC 2.0 request object.", { reason: "malformed_json" });
  }
  // A JSON-RPC batch would pass the per-key rate limit as one call (a hundred searches for one hit);
  // MCP has no batches since 2025-06-18, so one message per POST.
  if (Array.isArray(parsed)) {
    return jsonRpcError(400, -32600, "Invalid request: send one JSON-RPC message per POST (MCP has no batches since protocol 2025-06-18); send the items of this array one by one.", { reason: "batch_not_supported" });
  }
  const problem = jsonShapeProblem(parsed, { maxDepth: 32, maxNodes: 50_000 });
  if (problem) return jsonRpcError(400, -32600, `Invalid request: ${problem.message}`, { reason: problem.reason });

  const mcp = buildServer(deps.db, credentials, req.headers);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  try {
    await mcp.connect(transport);
    return await transport.handleRequest(req, { parsedBody: parsed });
  } finally {
    // The response body is already complete (JSON mode), so closing cannot cut it short.
    void mcp.close().catch(() => {});
  }
}

/**
 * What the model reads from a tool call (structuredContent carries the whole result for programs).
 * memory_context's purpose is its budgeted prompt block: the full result repeats every recalled card
 * as a record (~90 KB for a 4,000-token block), which an MCP client would put into the model's context
 * whole, budget or not. So the model gets the block and one line of diagnostics.
 */
export function toolResultText(name: ToolName, result: ToolResults[ToolName]): string {
  if (name !== "memory_context") return JSON.stringify(result);
  const { prompt, usedMemoryIds, diagnostics } = result as ToolResults["memory_context"];
  const status = [
    `${usedMemoryIds.length} memories recalled`,
    `${diagnostics.omittedNodeCount} left out`,
    `${diagnostics.usedTokens} of ${diagnostics.tokenBudget} tokens`,
    ...(diagnostics.storeStatus === "ok" ? [] : [`store ${diagnostics.storeStatus}`]),
    ...diagnostics.warnings,
  ].join("; ");
  return `${prompt || "Nothing recalled for this turn."}\n[memory_context: ${status}. A budgeted selection, not all memory: use memory_search for more.]`;
}
