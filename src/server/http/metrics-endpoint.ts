import { timingSafeEqual } from "node:crypto";
import { env } from "~/env";
import { logServerError } from "~/server/log";
import { metricsText } from "~/server/metrics";

/**
 * GET /api/metrics (Prometheus text format). With METRICS_TOKEN set it needs
 * `Authorization: Bearer <token>` from anywhere; without it, it answers only requests made on this
 * machine: a loopback address, no proxy header (X-Forwarded-For, Forwarded, X-Real-IP, Via) and
 * TRUST_PROXY off — a reverse proxy on the same machine makes every visitor look local, and one that
 * sets none of these headers is what TRUST_PROXY declares. `remoteAddress` is null where the socket
 * is not known (Next.js routes): there the token is required.
 */
export type MetricsAnswer = { status: number; headers: Record<string, string>; body: string };

const LOOPBACK = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"]);

/** Headers a proxy adds besides X-Forwarded-For: any of them means the request did not start on this machine. */
export const PROXY_HEADERS = ["forwarded", "x-real-ip", "via"] as const;

function tokenMatches(authorization: string | null, token: string): boolean {
  const sent = /^Bearer\s+(\S+)$/i.exec(authorization ?? "")?.[1];
  if (!sent) return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

const refusal = (status: number, message: string): MetricsAnswer => ({
  status,
  headers: { "content-type": "text/plain; charset=utf-8" },
  body: `${message}\n`,
});

export async function answerMetrics(request: {
  method: string | undefined;
  remoteAddress: string | null;
  authorization: string | null;
  forwardedFor: string | null;
  /** Which of PROXY_HEADERS the request carries. */
  proxyHeaders?: readonly string[];
}): Promise<MetricsAnswer> {
  if (request.method !== "GET" && request.method !== "HEAD")
    return {
      ...refusal(405, "Read /api/metrics with GET."),
      headers: { "content-type": "text/plain; charset=utf-8", allow: "GET, HEAD" },
    };
  if (env.METRICS_TOKEN) {
    if (!tokenMatches(request.authorization, env.METRICS_TOKEN))
      return {
        ...refusal(401, "Send the metrics token as Authorization: Bearer <METRICS_TOKEN>."),
        headers: { "content-type": "text/plain; charset=utf-8", "www-authenticate": 'Bearer realm="metrics"' },
      };
  } else if (
    env.TRUST_PROXY ||
    request.remoteAddress === null ||
    !LOOPBACK.has(request.remoteAddress) ||
    request.forwardedFor ||
    (request.proxyHeaders?.length ?? 0) > 0
  ) {
    const why = env.TRUST_PROXY
      ? " TRUST_PROXY is set (a proxy in front makes every request look local), so a token is needed."
      : "";
    return refusal(
      403,
      `/api/metrics answers this machine only without a token (npm start, loopback, not through a proxy).${why} To scrape it from elsewhere set METRICS_TOKEN and send it as Authorization: Bearer <token>.`,
    );
  }
  try {
    const { body, contentType } = await metricsText();
    return {
      status: 200,
      headers: { "content-type": contentType, "cache-control": "no-store" },
      body: request.method === "HEAD" ? "" : body,
    };
  } catch (error) {
    logServerError("metrics", error);
    return refusal(500, "The metrics could not be collected; see the server log.");
  }
}

export const isMetricsPath = (url: string | undefined) =>
  url === "/api/metrics" || url?.startsWith("/api/metrics?") === true;
