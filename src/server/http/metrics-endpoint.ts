import { timingSafeEqual } from "node:crypto";
import { env } from "~/env";
import { logServerError } from "~/server/log";
import { metricsText } from "~/server/metrics";

/**
 * GET /api/metrics (Prometheus text format). With METRICS_TOKEN set it needs
 * `Authorization: Bearer <token>` from anywhere; without it, it answers only requests made on this
 * machine (a loopback address, and no X-Forwarded-For: a reverse proxy on the same machine would make
 * every visitor look local). `remoteAddress` is null where the socket is not known (Next.js routes):
 * there the token is required.
 */
export type MetricsAnswer = { status: number; headers: Record<string, string>; body: string };

const LOOPBACK = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"]);

function tokenMatches(authorization: string | null, token: string): boolean {
  const sent = /^Bearer\s+(\S+)$/i.exec(authorization ?? "")?.[1];
  if (!sent) return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

const refusal = (status: number, message: string): MetricsAnswer => ({ status, headers: { "content-type": "text/plain; charset=utf-8" }, body: `${message}\n` });

export async function answerMetrics(request: { method: string | undefined; remoteAddress: string | null; authorization: string | null; forwardedFor: string | null }): Promise<MetricsAnswer> {
  if (request.method !== "GET" && request.method !== "HEAD") return { ...refusal(405, "Read /api/metrics with GET."), headers: { "content-type": "text/plain; charset=utf-8", allow: "GET, HEAD" } };
  if (env.METRICS_TOKEN) {
    if (!tokenMatches(request.authorization, env.METRICS_TOKEN)) return { ...refusal(401, "Send the metrics token as Authorization: Bearer <METRICS_TOKEN>."), headers: { "content-type": "text/plain; charset=utf-8", "www-authenticate": 'Bearer realm="metrics"' } };
  } else if (request.remoteAddress === null || !LOOPBACK.has(request.remoteAddress) || request.forwardedFor) {
    return refusal(403, "/api/metrics answers this machine only (npm start, loopback, not through a proxy). To scrape it from elsewhere set METRICS_TOKEN and send it as Authorization: Bearer <token>.");
  }
  try {
    const { body, contentType } = await metricsText();
    return { status: 200, headers: { "content-type": contentType, "cache-control": "no-store" }, body: request.method === "HEAD" ? "" : body };
  } catch (error) {
    logServerError("metrics", error);
    return refusal(500, "The metrics could not be collected; see the server log.");
  }
}

export const isMetricsPath = (url: string | undefined) => url === "/api/metrics" || url?.startsWith("/api/metrics?") === true;
