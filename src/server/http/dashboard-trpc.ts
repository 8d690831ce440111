import type { Session } from "next-auth";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import type { Database } from "~/db/types";
import { appRouter } from "~/server/api/root";
import { logTrpcError, payloadTooLargeBody, retryAfterMeta, TRPC_ENDPOINT, trpcBodyLimit } from "~/server/api/trpc-http";
import { readBodyWithin, withBody } from "~/server/rate-limit/body-limit";
import { crossSiteRefusal } from "./same-origin";

/**
 * /api/trpc as the Next.js route serves it (dashboard calls, and agent calls when the agent listener
 * is not in front): the body capped before tRPC parses it, state-changing dashboard calls held to this
 * server's own pages (same-origin.ts), then the router.
 */
export type TrpcRequestDeps = { getDb: () => Promise<Database>; getSession: () => Promise<Session | null> };

/** A refusal shaped as tRPC answers (an array for a batch call), so clients read it as any other error. */
export function trpcRefusal(req: Request, status: number, code: string, reason: string, message: string, headers?: Record<string, string>): Response {
  const error = { error: { message, code: -32600, data: { code, httpStatus: status, reason } } };
  const url = new URL(req.url);
  const calls = url.searchParams.get("batch") === "1" ? url.pathname.slice(TRPC_ENDPOINT.length + 1).split(",").length : 0;
  return Response.json(calls > 0 ? Array.from({ length: calls }, () => error) : error, { status, headers });
}

export async function serveTrpcRequest(req: Request, deps: TrpcRequestDeps): Promise<Response> {
  const refusal = crossSiteRefusal(req);
  if (refusal) return trpcRefusal(req, refusal.status, refusal.status === 415 ? "UNSUPPORTED_MEDIA_TYPE" : "FORBIDDEN", refusal.reason, refusal.message);
  if (req.method === "POST") {
    const body = await readBodyWithin(req, trpcBodyLimit(req.headers.has("authorization")));
    if (!body.ok) return Response.json(payloadTooLargeBody(body.maxBytes), { status: 413 });
    req = withBody(req, body.bytes);
  }
  return fetchRequestHandler({
    endpoint: TRPC_ENDPOINT,
    req,
    router: appRouter,
    createContext: async () => ({ db: await deps.getDb(), headers: req.headers, getSession: deps.getSession }),
    onError: logTrpcError,
    responseMeta: retryAfterMeta,
  });
}
