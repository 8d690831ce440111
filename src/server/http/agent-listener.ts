import type { IncomingMessage, ServerResponse } from "node:http";
import {
  callTRPCProcedure,
  getErrorShape,
  getTRPCErrorFromUnknown,
  transformTRPCResponse,
  type TRPCError,
} from "@trpc/server";
import { nodeHTTPRequestHandler } from "@trpc/server/adapters/node-http";
import { getHTTPStatusCode, type TRPCResponse } from "@trpc/server/unstable-core-do-not-import";
import type { Database } from "~/db/types";
import { appRouter } from "~/server/api/root";
import { logServerError } from "~/server/log";
import {
  logTrpcError,
  payloadTooLargeBody,
  retryAfterMeta,
  TRPC_MAX_BATCH_CALLS,
  trpcBodyLimit,
  trpcErrorBody,
  trpcPathOf,
} from "~/server/api/trpc-http";
import { AGENT_MAX_BODY_BYTES, INVALID_UTF8, isUtf8, readNodeBodyWithin } from "~/server/rate-limit/body-limit";
import { mcpPayloadTooLarge, serveMcpRequest } from "~/server/tools/mcp";
import { openApiJson } from "~/server/tools/openapi";
import { answerMetrics, isMetricsPath, PROXY_HEADERS } from "./metrics-endpoint";
import type { AgentListener } from "./front-door";

/**
 * The agent endpoints (tRPC `tools.*` and `me.agent`, and MCP) served straight from Node's HTTP
 * server, in front of Next.js: the same router and handlers as the Next.js routes, without the App
 * Router's per-request work, which measured as a third of a search's CPU under load
 * (docs/performance.md). Agents use a bearer key only, so nothing here needs Next.js (no cookies,
 * no session, no rendering). Everything else goes on to Next.js.
 */

/** Procedures an agent calls: they take a bearer key (agentProcedure) and never a session. */
const isAgentProcedure = (name: string) => /^tools\.[A-Za-z_]+$/.test(name) || name === "me.agent";

/** The tRPC path of an agent call (`tools.memory_search`, or a batch of agent calls), else null. */
export function agentTrpcPath(url: string | undefined): string | null {
  const path = trpcPathOf(url);
  return path && path.split(",").every(isAgentProcedure) ? path : null;
}

/** `/api/trpc/%E0%A4%A`: answered here, since decoding it threw inside the listener and left the socket hanging. */
function sendMalformedPath(res: ServerResponse) {
  sendJson(
    res,
    400,
    trpcErrorBody(
      400,
      "BAD_REQUEST",
      "malformed_path",
      "The request path is not valid percent-encoding, so it names no procedure. Call e.g. POST /api/trpc/tools.memory_search with a JSON body.",
    ),
  );
}

export const OPENAPI_PATH = "/api/openapi.json";
const isOpenApiPath = (url: string | undefined) => url === OPENAPI_PATH || url?.startsWith(`${OPENAPI_PATH}?`) === true;

/** The OpenAPI document of these endpoints: public, like the tools' schemas it is built from. */
function sendOpenApi(req: IncomingMessage, res: ServerResponse) {
  if (req.method !== "GET" && req.method !== "HEAD") {
    res
      .writeHead(405, { allow: "GET, HEAD", "content-type": "application/json" })
      .end(JSON.stringify({ error: { message: `Read ${OPENAPI_PATH} with GET.` } }));
    return;
  }
  const text = openApiJson();
  res.writeHead(200, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-cache",
  });
  res.end(req.method === "HEAD" ? undefined : text);
}

const isMcpPath = (url: string | undefined) => url === "/api/mcp" || url?.startsWith("/api/mcp?") === true;

const utf8 = new TextDecoder();

function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.append(name, value);
  }
  return headers;
}

function sendJson(res: ServerResponse, status: number, body: unknown, close = false) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...(close ? { connection: "close" } : {}),
  });
  res.end(text);
}

const agentContext = async (req: IncomingMessage, getDb: () => Promise<Database>) => ({
  db: await getDb(),
  headers: headersOf(req),
  getSession: async () => null,
});

// tRPC keeps every procedure under its full dotted path here ("tools.memory_search").
const procedures = appRouter._def.procedures as unknown as Record<string, { _def: { type: string } } | undefined>;
const config = appRouter._def._config;

/**
 * The input of a plain single mutation call — POST, JSON body, no batch, no query string, to a
 * mutation that exists (every tool) — or undefined for anything else, which tRPC's adapter answers.
 */
function singleMutationInput(req: IncomingMessage, path: string, body: string): { input: unknown } | undefined {
  if (req.method !== "POST" || req.url?.includes("?") || procedures[path]?._def.type !== "mutation") return undefined;
  if (!/^application\/json\s*(;|$)/i.test(req.headers["content-type"] ?? "") || body.trim() === "") return undefined;
  try {
    return { input: config.transformer.input.deserialize(JSON.parse(body)) };
  } catch {
    return undefined; // tRPC's own parse-error answer
  }
}

/**
 * One tool call answered by calling the procedure directly and writing its JSON, as tRPC's resolver
 * does for a single call (same procedure, middlewares, error shape, status and headers: a test
 * compares status, body and headers with the Next.js route's), without building a Fetch Request and
 * Response and their streams per call: 15–20 % less server CPU per search (docs/history/performance-rounds.md, round 6).
 */
async function serveSingleMutation(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  input: unknown,
  getDb: () => Promise<Database>,
) {
  let ctx: Awaited<ReturnType<typeof agentContext>> | undefined;
  let payload: TRPCResponse;
  let errors: TRPCError[] = [];
  try {
    ctx = await agentContext(req, getDb);
    const data = await callTRPCProcedure({
      router: appRouter,
      path,
      getRawInput: async () => input,
      ctx,
      type: "mutation",
      signal: undefined,
      batchIndex: 0,
    });
    payload = { result: { data } };
  } catch (cause) {
    const error = getTRPCErrorFromUnknown(cause);
    logTrpcError({ path, error });
    errors = [error];
    payload = { error: getErrorShape({ config, error, type: "mutation", path, input, ctx }) };
  }
  const headers: Record<string, string> = { vary: "trpc-accept, accept", "content-type": "application/json" };
  for (const [name, value] of retryAfterMeta({ errors }).headers ?? []) headers[name] = value;
  const text = JSON.stringify(transformTRPCResponse(config, payload));
  res.writeHead(getHTTPStatusCode(payload), { ...headers, "content-length": Buffer.byteLength(text) });
  res.end(text);
}

async function serveTrpc(req: IncomingMessage, res: ServerResponse, path: string, getDb: () => Promise<Database>) {
  if (req.method === "POST") {
    const body = await readNodeBodyWithin(req, trpcBodyLimit(req.headers.authorization !== undefined));
    if (!body.ok) return sendJson(res, 413, payloadTooLargeBody(body.maxBytes), true);
    if (!isUtf8(body.bytes)) return sendJson(res, 400, trpcErrorBody(400, "BAD_REQUEST", "invalid_utf8", INVALID_UTF8));
    const text = utf8.decode(body.bytes);
    const single = singleMutationInput(req, path, text);
    if (single) return serveSingleMutation(req, res, path, single.input, getDb);
    // tRPC's Node adapter takes a body already read from `req.body`.
    (req as IncomingMessage & { body?: string }).body = text;
  }
  await nodeHTTPRequestHandler({
    req,
    res,
    path,
    router: appRouter,
    createContext: () => agentContext(req, getDb),
    onError: logTrpcError,
    responseMeta: retryAfterMeta,
    maxBatchSize: TRPC_MAX_BATCH_CALLS,
  });
}

async function serveMcp(req: IncomingMessage, res: ServerResponse, getDb: () => Promise<Database>) {
  let response: Response;
  const body = req.method === "POST" ? await readNodeBodyWithin(req, AGENT_MAX_BODY_BYTES) : null;
  if (body && !body.ok) {
    response = mcpPayloadTooLarge(body.maxBytes);
  } else {
    const bytes = body?.bytes ?? null;
    const url = new URL(req.url ?? "/api/mcp", `http://${req.headers.host ?? "localhost"}`);
    const request = new Request(url, {
      method: req.method,
      headers: headersOf(req),
      body: bytes?.byteLength ? (bytes as BodyInit) : null,
    });
    response = await serveMcpRequest(request, await getDb());
  }
  const out = Buffer.from(await response.arrayBuffer());
  res.writeHead(response.status, { ...Object.fromEntries(response.headers), "content-length": out.byteLength });
  res.end(out);
}

/** A listener that serves `req` when it is an agent call and says so; otherwise leaves it alone and returns false. */
export function createAgentListener(getDb: () => Promise<Database>): AgentListener {
  return (req, res) => {
    if (isMetricsPath(req.url)) {
      const forwarded = req.headers["x-forwarded-for"];
      void answerMetrics({
        method: req.method,
        remoteAddress: req.socket.remoteAddress ?? null,
        authorization: req.headers.authorization ?? null,
        forwardedFor: Array.isArray(forwarded) ? forwarded.join(",") : (forwarded ?? null),
        proxyHeaders: PROXY_HEADERS.filter((h) => req.headers[h] !== undefined),
      }).then((answer) => {
        res.writeHead(answer.status, { ...answer.headers, "content-length": Buffer.byteLength(answer.body) });
        res.end(answer.body);
      });
      return true;
    }
    if (trpcPathOf(req.url) === null) {
      sendMalformedPath(res);
      return true;
    }
    if (isOpenApiPath(req.url)) {
      sendOpenApi(req, res);
      return true;
    }
    const trpcPath = agentTrpcPath(req.url);
    if (trpcPath === null && !isMcpPath(req.url)) return false;
    const served = trpcPath !== null ? serveTrpc(req, res, trpcPath, getDb) : serveMcp(req, res, getDb);
    served.catch((error: unknown) => {
      // Only the body read or the database open can land here; the handlers answer their own errors.
      logServerError("agent listener", error);
      if (!res.headersSent)
        sendJson(
          res,
          500,
          { error: { message: "The server could not read this request and changed nothing. Retry it.", code: -32603 } },
          true,
        );
      else res.destroy();
    });
    return true;
  };
}
