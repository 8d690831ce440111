import type { Session } from "next-auth";
import { recordDashboardRateLimited } from "~/server/metrics";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import type { Database } from "~/db/types";
import { appRouter } from "~/server/api/root";
import {
  batchTooLargeMessage,
  logTrpcError,
  payloadTooLargeBody,
  retryAfterMeta,
  TRPC_ENDPOINT,
  TRPC_MAX_BATCH_CALLS,
  trpcBodyLimit,
  trpcCallCount,
  trpcErrorBody,
} from "~/server/api/trpc-http";
import { ServiceError } from "~/server/errors";
import { INVALID_UTF8, isUtf8, readBodyWithin, withBody } from "~/server/rate-limit/body-limit";
import { enforceUserRateLimit } from "~/server/rate-limit/limiter";
import { agentTrpcPath } from "./agent-listener";
import { crossSiteRefusal } from "./same-origin";

/**
 * /api/trpc as the Next.js route serves it (dashboard calls, and agent calls when the agent listener
 * is not in front): the body capped before tRPC parses it, state-changing dashboard calls held to this
 * server's own pages (same-origin.ts), batches capped, each signed-in person's calls counted against
 * their per-minute limit, then the router.
 */
export type TrpcRequestDeps = {
  getDb: () => Promise<Database>;
  getSession: () => Promise<Session | null>;
  /** Dashboard calls per person per minute; default DASHBOARD_RATE_LIMIT_PER_MINUTE (tests set their own). */
  rateLimitPerMinute?: number;
};

/** A refusal shaped as tRPC answers (an array for a batch call), so clients read it as any other error. */
export function trpcRefusal(
  req: Request,
  status: number,
  code: string,
  reason: string,
  message: string,
  headers?: Record<string, string>,
): Response {
  const error = trpcErrorBody(status, code, reason, message);
  const url = new URL(req.url);
  const calls = url.searchParams.get("batch") === "1" ? trpcCallCount(req.url) : 0;
  return Response.json(calls > 0 ? Array.from({ length: calls }, () => error) : error, { status, headers });
}

export async function serveTrpcRequest(req: Request, deps: TrpcRequestDeps): Promise<Response> {
  // Agent calls are told apart by path (procedures that take a bearer key and never read a session),
  // not by an Authorization header: a cookie call with any such header is still a cookie call.
  const url = new URL(req.url);
  const agentCall = agentTrpcPath(url.pathname + url.search) !== null;
  const refusal = agentCall ? null : crossSiteRefusal(req);
  if (refusal)
    return trpcRefusal(
      req,
      refusal.status,
      refusal.status === 415 ? "UNSUPPORTED_MEDIA_TYPE" : "FORBIDDEN",
      refusal.reason,
      refusal.message,
    );
  const calls = trpcCallCount(req.url);
  if (calls > TRPC_MAX_BATCH_CALLS)
    return trpcRefusal(req, 400, "BAD_REQUEST", "batch_too_large", batchTooLargeMessage(calls));
  // One session read per request, shared with the procedures.
  let session: Promise<Session | null> | undefined;
  const getSession = agentCall ? async () => null : () => (session ??= deps.getSession());
  if (!agentCall) {
    const userId = (await getSession())?.user?.id;
    if (userId) {
      try {
        await enforceUserRateLimit(await deps.getDb(), userId, { calls, limit: deps.rateLimitPerMinute });
      } catch (error) {
        if (!(error instanceof ServiceError)) throw error;
        recordDashboardRateLimited();
        const retry = String(error.details?.retryAfterSeconds ?? 60);
        return trpcRefusal(req, 429, "TOO_MANY_REQUESTS", error.reason, error.message, { "retry-after": retry });
      }
    }
  }
  if (!isUtf8(url.search)) return trpcRefusal(req, 400, "BAD_REQUEST", "invalid_utf8", INVALID_UTF8);
  if (req.method === "POST") {
    const body = await readBodyWithin(req, trpcBodyLimit(req.headers.has("authorization")));
    if (!body.ok) return Response.json(payloadTooLargeBody(body.maxBytes), { status: 413 });
    if (!isUtf8(body.bytes)) return trpcRefusal(req, 400, "BAD_REQUEST", "invalid_utf8", INVALID_UTF8);
    req = withBody(req, body.bytes);
  }
  return fetchRequestHandler({
    endpoint: TRPC_ENDPOINT,
    req,
    router: appRouter,
    createContext: async () => ({ db: await deps.getDb(), headers: req.headers, getSession }),
    onError: logTrpcError,
    responseMeta: retryAfterMeta,
    maxBatchSize: TRPC_MAX_BATCH_CALLS,
  });
}
