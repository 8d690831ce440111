import http from "node:http";
import type { AddressInfo } from "node:net";
import type { ApiKeyPermission } from "~/db/schema";
import { createAgentListener } from "~/server/http/agent-listener";
import { createKey, createOrg } from "./agents";
import { openTestDatabase, type TestDatabase } from "./db";

/**
 * The agent endpoint as a client reaches it: the production agent listener (scripts/server.mjs
 * serves agent calls with it) on a real HTTP port, over this backend's test database, with an
 * organisation and a key. Everything that is not an agent call gets 404.
 */
export type AgentServer = {
  baseUrl: string;
  secret: string;
  handle: TestDatabase;
  org: Awaited<ReturnType<typeof createOrg>>;
  /** Another key of the same owner. */
  newKey: (options?: { permissions?: ApiKeyPermission[]; rateLimitPerMinute?: number }) => Promise<string>;
  close: () => Promise<void>;
};

export async function startAgentServer(): Promise<AgentServer> {
  const handle = await openTestDatabase();
  const serveAgent = createAgentListener(async () => handle.db);
  const server = http.createServer((req, res) => {
    if (serveAgent(req, res)) return;
    res.writeHead(404, { "content-type": "text/plain" }).end("not an agent call");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const org = await createOrg(handle.db);
  const newKey: AgentServer["newKey"] = async (options = {}) =>
    (await createKey(handle.db, { tenantId: org.tenantId, ownerUserId: org.memberId, ...options })).secret;
  const secret = await newKey();
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    secret,
    handle,
    org,
    newKey,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await handle.destroy();
    },
  };
}

export type ProxiedRequest = { method: string; url: string; body: string; headers: http.IncomingHttpHeaders };

/**
 * A local HTTP proxy in front of `target` that misbehaves on purpose: `plan(n, request)` decides for
 * the n-th request (from 1) whether to forward it, answer something else first, or hold it.
 */
export type FaultAction =
  | { kind: "forward" }
  | { kind: "answer"; status: number; headers?: Record<string, string>; body: string }
  /** Forward, let the server apply it, then lose its answer and send this instead (a 503 after commit). */
  | { kind: "forward-then-answer"; status: number; headers?: Record<string, string>; body: string }
  | { kind: "hold" }
  /** Forward, then hand the client the server's JSON answer as `edit` changes it (what a server with replicas would add). */
  | { kind: "forward-edit"; edit: (answer: unknown) => unknown };

export async function startFaultProxy(target: string, plan: (n: number, request: ProxiedRequest) => FaultAction) {
  const requests: ProxiedRequest[] = [];
  const forward = async (req: http.IncomingMessage, body: string) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers))
      if (typeof value === "string" && name !== "host" && name !== "content-length") headers.set(name, value);
    const response = await fetch(`${target}${req.url}`, {
      method: req.method,
      headers,
      body: req.method === "GET" ? undefined : body,
    });
    return { status: response.status, headers: response.headers, text: await response.text() };
  };
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const request = {
      method: req.method ?? "GET",
      url: req.url ?? "/",
      body: Buffer.concat(chunks).toString("utf8"),
      headers: req.headers,
    };
    requests.push(request);
    const action = plan(requests.length, request);
    if (action.kind === "hold") return; // never answers; the client's timeout or abort ends it
    if (action.kind === "answer" || action.kind === "forward-then-answer") {
      if (action.kind === "forward-then-answer") await forward(req, request.body);
      res.writeHead(action.status, { "content-type": "application/json", ...action.headers }).end(action.body);
      return;
    }
    const answer = await forward(req, request.body);
    if (action.kind === "forward-edit") answer.text = JSON.stringify(action.edit(JSON.parse(answer.text)));
    res.writeHead(answer.status, {
      "content-type": answer.headers.get("content-type") ?? "application/json",
      ...(answer.headers.get("retry-after") ? { "retry-after": answer.headers.get("retry-after")! } : {}),
    });
    res.end(answer.text);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** tRPC's error body for a status, as the service shapes it. */
export const trpcError = (
  httpStatus: number,
  code: string,
  reason: string,
  message: string,
  details?: Record<string, unknown>,
) =>
  JSON.stringify({
    error: { message, code: -32000, data: { code, httpStatus, reason, ...(details ? { details } : {}) } },
  });
