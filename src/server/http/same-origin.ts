import { env } from "~/env";

/**
 * CSRF beyond SameSite=Lax (issue 30). A dashboard call is served only when it is plainly this
 * server's own page calling:
 *
 * - a call that changes something (a tRPC mutation is a POST) has a JSON body (`Content-Type: application/json`): a page on another site can post a form
 *   (`multipart/form-data`, `text/plain`, urlencoded) without asking the browser first, but not JSON;
 * - `Sec-Fetch-Site`, when the browser sends it, is `same-origin` (`same-site` is refused: another
 *   port of the same host is the same site);
 * - `Origin`, when sent, is this server's own: `NEXTAUTH_URL` (default `http://localhost:$PORT`) or
 *   the origin the request was addressed to.
 *
 * A request with neither header is not from a browser's page (curl, scripts, server-side callers) and
 * is let through: every browser in use sends Origin on a cross-origin POST. Agent calls carry a bearer
 * key (`Authorization`), which a page on another site cannot add without the browser asking this
 * server first (and it never allows it); they are not checked.
 */
export type CrossSiteRefusal = { status: 403 | 415; reason: "json_body_required" | "cross_site_request"; message: string };

/** This server's public origin (what NEXTAUTH_URL says, else the default scripts/server.mjs gives it). */
export const serverOrigin = () => new URL(env.NEXTAUTH_URL ?? `http://localhost:${env.PORT}`).origin;

const mediaType = (header: string | null) => (header ?? "").split(";")[0]!.trim().toLowerCase();

function originOf(value: string): string | null {
  try {
    return new URL(value).origin;
  } catch {
    return null;
  }
}

export function crossSiteRefusal(req: { method: string; url: string; headers: Headers }, ownOrigin = serverOrigin()): CrossSiteRefusal | null {
  if (req.headers.has("authorization")) return null;
  // Reads (GET) are held to the same origin rule: a same-site page could otherwise make the browser run
  // searches in the person's name (logged, counted) through an <img> or a script tag.
  if (req.method === "POST" && mediaType(req.headers.get("content-type")) !== "application/json") {
    return {
      status: 415,
      reason: "json_body_required",
      message: "Dashboard calls that change something take a JSON body (Content-Type: application/json). Form posts are refused, so that another site cannot submit one in your name.",
    };
  }
  const refused = (what: string): CrossSiteRefusal => ({
    status: 403,
    reason: "cross_site_request",
    message: `This call came from ${what}, not from this server's own pages (${ownOrigin}), so it was refused: another site must not act in your name. Open the dashboard at ${ownOrigin}; if that is not its address, set NEXTAUTH_URL to it.`,
  });
  const fetchSite = req.headers.get("sec-fetch-site")?.trim().toLowerCase();
  if (fetchSite !== undefined && fetchSite !== "same-origin" && fetchSite !== "none") return refused(`a ${fetchSite} page`);
  const origin = req.headers.get("origin");
  if (origin !== null) {
    const addressed = originOf(req.url);
    const from = originOf(origin);
    if (from === null || (from !== ownOrigin && from !== addressed)) return refused(`the page at ${origin.slice(0, 100)}`);
  }
  return null;
}
