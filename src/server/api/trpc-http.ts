import type { TRPCError } from "@trpc/server";
import { ServiceError } from "~/server/errors";
import { logServerError } from "~/server/log";
import { AGENT_MAX_BODY_BYTES, DASHBOARD_MAX_BODY_BYTES, tooLargeMessage } from "~/server/rate-limit/body-limit";

/**
 * What both HTTP front doors of the tRPC router share (the Next.js route for the dashboard, the
 * agent listener in front of Next.js), so an agent gets the same answer through either.
 */
export const TRPC_ENDPOINT = "/api/trpc";

/**
 * Calls one batched request may carry (the dashboard's client sends at most 10 per request). A batch
 * runs its calls at once, so a larger one was a way around every per-request limit.
 */
export const TRPC_MAX_BATCH_CALLS = 20;

/** The decoded procedure path of a tRPC URL (path and query); undefined for any other URL, null when it is not valid percent-encoding. */
export function trpcPathOf(url: string | undefined): string | null | undefined {
  if (!url?.startsWith(`${TRPC_ENDPOINT}/`)) return undefined;
  const end = url.indexOf("?");
  try {
    return decodeURIComponent(url.slice(TRPC_ENDPOINT.length + 1, end === -1 ? undefined : end));
  } catch {
    return null;
  }
}

/** How many procedure calls a tRPC URL makes: one, or one per path of a batch. */
export function trpcCallCount(url: string): number {
  const parsed = new URL(url, "http://localhost");
  if (parsed.searchParams.get("batch") !== "1") return 1;
  // A malformed path is counted as written: tRPC answers it itself.
  const path = trpcPathOf(parsed.pathname) ?? parsed.pathname.slice(TRPC_ENDPOINT.length + 1);
  return path.split(",").length;
}

export const batchTooLargeMessage = (calls: number) =>
  `This request batches ${calls} calls; at most ${TRPC_MAX_BATCH_CALLS} are served per request. Send them in smaller batches.`;

export function logTrpcError({ path, error }: { path?: string; error: TRPCError }) {
  if (error.code === "INTERNAL_SERVER_ERROR") logServerError(`tRPC ${path ?? "?"}`, error.cause ?? error);
}

/** A rate-limited agent also gets the standard header saying when to come back. */
export function retryAfterMeta({ errors }: { errors: TRPCError[] }) {
  const retry = errors
    .map((e) => (e.cause instanceof ServiceError ? e.cause.details?.retryAfterSeconds : undefined))
    .find((s) => typeof s === "number");
  return retry === undefined ? {} : { headers: new Headers({ "retry-after": String(retry) }) };
}

/** Agent calls (bearer key) are capped tightly, dashboard calls less so (imports). */
export const trpcBodyLimit = (hasAuthorization: boolean) =>
  hasAuthorization ? AGENT_MAX_BODY_BYTES : DASHBOARD_MAX_BODY_BYTES;

/** An error answered before tRPC runs, shaped as tRPC's own so clients read it the same way. */
export const trpcErrorBody = (httpStatus: number, code: string, reason: string, message: string) => ({
  error: { message, code: -32600, data: { code, httpStatus, reason } },
});

/** The 413 answer. */
export const payloadTooLargeBody = (maxBytes: number) =>
  trpcErrorBody(413, "PAYLOAD_TOO_LARGE", "payload_too_large", tooLargeMessage(maxBytes));
