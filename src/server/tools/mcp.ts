import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import type { Database } from "~/db/types";
import { env } from "~/env";
import type { AgentCredentials } from "~/server/auth/agent-auth";
import { admitMeteredAgentCall } from "~/server/auth/agent-call";
import { knownServiceError, ServiceError } from "~/server/errors";
import { logServerError } from "~/server/log";
import { registerTreeSubscribers } from "~/server/tree";
import {
  AGENT_MAX_BODY_BYTES,
  INVALID_UTF8,
  isUtf8,
  readBodyWithin,
  tooLargeMessage,
} from "~/server/rate-limit/body-limit";
import type { CounterStore } from "~/server/rate-limit/limiter";
import { CONSISTENCY_HEADER } from "~/server/db-routing";
import { recordRequest } from "~/server/metrics";
import { isPlainObject, jsonShapeProblem } from "./limits";
import {
  callTool,
  isToolName,
  listTools,
  toolAllowed,
  toolSucceeded,
  TOOL_NAMES,
  type ToolName,
  type ToolResults,
} from "./registry";
import type { TurnInput } from "./schemas";

// The MCP route may be its own bundle: it wires the memory tree to the core as the server does.
registerTreeSubscribers();

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

function jsonRpcError(
  status: number,
  code: number,
  message: string,
  data?: Record<string, unknown>,
  headers: Record<string, string> = {},
  id: string | number | null = null,
): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message, ...(data ? { data } : {}) }, id }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

export const mcpPayloadTooLarge = (maxBytes: number) =>
  jsonRpcError(413, -32600, tooLargeMessage(maxBytes), { reason: "payload_too_large" }, { connection: "close" });

const INTERNAL_MESSAGE =
  "The server could not complete this call and changed nothing. Retry; if it keeps failing, report it to your admin.";

const HTTP_STATUS: Record<string, number> = {
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  TOO_MANY_REQUESTS: 429,
  PAYLOAD_TOO_LARGE: 413,
  BAD_REQUEST: 400,
};

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
  content: [
    {
      type: "text",
      text: JSON.stringify({
        error: {
          code: error.code,
          reason: error.reason,
          message: error.message,
          ...(error.details ? { details: error.details } : {}),
        },
      }),
    },
  ],
});

function buildServer(db: Database, { apiKey, limits }: AgentCredentials, headers: Headers): Server {
  // The low-level server: McpServer declares tools.listChanged itself, which a stateless endpoint
  // (no GET stream) can never deliver.
  const mcp = new Server(MCP_SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions: INSTRUCTIONS,
  });
  mcp.setRequestHandler(ListToolsRequestSchema, async () => ({
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
      annotations: {
        title: tool.title,
        readOnlyHint: tool.readOnly,
        destructiveHint: tool.destructive,
        idempotentHint: tool.readOnly,
        openWorldHint: false,
      },
    })),
  }));
  mcp.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const { name, arguments: args, _meta: meta } = request.params;
    if (!isToolName(name)) {
      const available = TOOL_NAMES.filter((n) => toolAllowed(apiKey, n));
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown tool "${name.slice(0, 60)}". Tools for this key: ${available.join(", ") || "none"}.`,
      );
    }
    const metaTurn = meta && isPlainObject(meta.turn) ? (meta.turn as TurnInput) : {};
    const idempotencyKey = meta && typeof meta.idempotencyKey === "string" ? meta.idempotencyKey : undefined;
    try {
      const result = await callTool(
        db,
        apiKey,
        {
          name,
          arguments: args ?? {},
          idempotencyKey,
          turn: { ...headerTurn(headers), ...metaTurn },
          consistency: headers.get(CONSISTENCY_HEADER),
        },
        limits,
      );
      return {
        content: [{ type: "text", text: toolResultText(name, result) }],
        structuredContent: result as unknown as Record<string, unknown>,
        isError: !toolSucceeded(name, result),
      };
    } catch (error) {
      if (error instanceof ServiceError) return errorResult(error);
      logServerError(`mcp ${name}`, error);
      return errorResult(
        knownServiceError(error) ?? new ServiceError("INTERNAL_SERVER_ERROR", "internal_error", INTERNAL_MESSAGE),
      );
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
    return jsonRpcError(
      500,
      -32603,
      "The server could not complete this request and changed nothing. Retry; if it keeps failing, report it to your admin.",
    );
  }
}

/** The request's JSON-RPC id, to answer an error with (null when it has none or is not a request). */
function requestId(message: unknown): string | number | null {
  const id = isPlainObject(message) ? message.id : undefined;
  return typeof id === "string" || typeof id === "number" ? id : null;
}

/**
 * A tools/call whose params are not `{name: string, arguments?: object}`, in a sentence. The SDK
 * answered those with -32603 (internal error) and zod's issue list as the message.
 */
function invalidToolCall(message: unknown): string | null {
  if (!isPlainObject(message) || message.method !== "tools/call") return null;
  const params = message.params;
  if (!isPlainObject(params)) return 'Invalid params: tools/call needs params {"name": "<tool>", "arguments": {…}}.';
  if (typeof params.name !== "string" || params.name === "")
    return 'Invalid params: tools/call needs "name", the tool to call (see tools/list).';
  if (params.arguments !== undefined && !isPlainObject(params.arguments))
    return `Invalid params: "arguments" must be a JSON object of the tool's inputs, not ${Array.isArray(params.arguments) ? "an array" : typeof params.arguments}.`;
  return null;
}

/**
 * DNS rebinding (MCP's transport rules): a page on another site, its name pointed at this server's
 * address, must not reach it from the user's browser — there Origin and Host both name the attacker's
 * site, so matching them proves nothing. A request carrying an Origin is served only for this
 * server's own origin (NEXTAUTH_URL), a loopback origin, or one listed in MCP_ALLOWED_ORIGINS (`*`:
 * any). Clients outside browsers send no Origin and are not affected.
 */
export function originAllowed(origin: string | null, allowed: readonly string[], publicUrl?: string): boolean {
  if (!origin || allowed.includes("*")) return true;
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  if (["localhost", "127.0.0.1", "[::1]"].includes(parsed.hostname)) return true;
  if (publicUrl && new URL(publicUrl).origin === parsed.origin) return true;
  return allowed.includes(parsed.origin);
}

/** One HTTP request to /api/mcp. `store` replaces the rate-limit counter (tests). */
export async function handleMcpRequest(req: Request, deps: { db: Database; store?: CounterStore }): Promise<Response> {
  if (req.method !== "POST") {
    return jsonRpcError(
      405,
      -32000,
      "This MCP endpoint is stateless: send JSON-RPC requests with POST (no GET stream, no session to DELETE).",
      undefined,
      { allow: "POST" },
    );
  }
  if (!originAllowed(req.headers.get("origin"), env.MCP_ALLOWED_ORIGINS, env.NEXTAUTH_URL)) {
    return jsonRpcError(
      403,
      -32000,
      `Requests from origin ${req.headers.get("origin")?.slice(0, 100)} are not served (DNS rebinding protection). Call from a server, or add the origin to MCP_ALLOWED_ORIGINS.`,
      { reason: "origin_not_allowed" },
    );
  }
  const match = (req.headers.get("authorization") ?? "").match(/^Bearer\s+(\S+)$/i);
  if (!match?.[1]) {
    return jsonRpcError(
      401,
      -32001,
      'Send an API key as "Authorization: Bearer <key>".',
      { reason: "missing_api_key" },
      { "www-authenticate": 'Bearer realm="agent-memory"' },
    );
  }
  let credentials: AgentCredentials;
  try {
    credentials = await admitMeteredAgentCall(deps.db, match[1], { store: deps.store });
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    // Refused before any tool ran (bad key, over the limit): counted here, the tools count the rest.
    recordRequest("agent", "mcp", 0, error.reason);
    const retry = error.details?.retryAfterSeconds;
    return jsonRpcError(
      HTTP_STATUS[error.code] ?? 400,
      -32001,
      error.message,
      { reason: error.reason, ...(error.details ?? {}) },
      {
        ...(error.code === "UNAUTHORIZED" ? { "www-authenticate": 'Bearer realm="agent-memory"' } : {}),
        ...(typeof retry === "number" ? { "retry-after": String(retry) } : {}),
      },
    );
  }
  const body = await readBodyWithin(req, AGENT_MAX_BODY_BYTES);
  if (!body.ok) return mcpPayloadTooLarge(body.maxBytes);
  if (!isUtf8(body.bytes)) return jsonRpcError(400, -32700, `Parse error: ${INVALID_UTF8}`, { reason: "invalid_utf8" });
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(body.bytes));
  } catch {
    return jsonRpcError(400, -32700, "Parse error: the body is not valid JSON. Send one JSON-RPC 2.0 request object.", {
      reason: "malformed_json",
    });
  }
  // A JSON-RPC batch would pass the per-key rate limit as one call (a hundred searches for one hit);
  // MCP has no batches since 2025-06-18, so one message per POST.
  if (Array.isArray(parsed)) {
    return jsonRpcError(
      400,
      -32600,
      "Invalid request: send one JSON-RPC message per POST (MCP has no batches since protocol 2025-06-18); send the items of this array one by one.",
      { reason: "batch_not_supported" },
    );
  }
  const id = requestId(parsed);
  const problem = jsonShapeProblem(parsed, { maxDepth: 32, maxNodes: 50_000 });
  if (problem)
    return jsonRpcError(400, -32600, `Invalid request: ${problem.message}`, { reason: problem.reason }, {}, id);
  const invalid = invalidToolCall(parsed);
  if (invalid) return jsonRpcError(200, -32602, invalid, { reason: "invalid_params" }, {}, id);

  const mcp = buildServer(deps.db, credentials, req.headers);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
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
