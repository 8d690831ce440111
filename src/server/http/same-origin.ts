import { env } from "~/env";

/**
 * CSRF beyond SameSite=Lax (issue 30). A dashboard call is served only when it is plainly this
 * server's own page calling:
 *
 * - a call that changes something (a tRPC mutation is a POST) has a JSON body (`Content-Type: application/json`): a page on another site can post a form
 *   (`multipart/form-data`, `text/plain`, urlencoded) without asking the browser first, but not JSON;
 * - `Sec-Fetch-Site`, when the browser sends it, is `same-origin` (served: the browser itself says the
 *   page is this server's) or `none` (the address bar); anything else is refused (`same-site` too:
 *   another port of the same host is the same site);
 * - otherwise `Origin`, when sent, is this server's own: `NEXTAUTH_URL`'s origin (default
 *   `http://localhost:$PORT`), or the origin the browser addressed, from the `Host` header (scheme
 *   `X-Forwarded-Proto` with TRUST_PROXY, else the request's own). Not `req.url`: under
 *   scripts/server.mjs that is `http://0.0.0.0:$PORT`, whatever the browser's address.
 *
 * Matching `Host` is safe here, unlike for MCP (tools/mcp.ts `originAllowed`): a page whose name was
 * rebound to this server's address gets Origin and Host alike, but its requests carry no session
 * cookie of this server (cookies follow the name), and a session is what the rule protects. MCP
 * serves bearer keys that a rebound page could hold, so it keeps its stricter list; two rules.
 *
 * A request with neither header is not from a browser's page (curl, scripts, server-side callers) and
 * is let through: every browser in use sends Origin on a cross-origin POST. Agent calls (tRPC paths of
 * agent procedures, which take a bearer key and never a session) are not checked: the caller
 * (dashboard-trpc.ts) decides that by path, never by the mere presence of an Authorization header.
 */
export type CrossSiteRefusal = {
  status: 403 | 415;
  reason: "json_body_required" | "cross_site_request";
  message: string;
};

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

/** The origin the browser addressed: `Host`, with the scheme of the request (X-Forwarded-Proto's first entry behind a trusted proxy). */
function addressedOrigin(req: { url: string; headers: Headers }): string | null {
  const host = req.headers.get("host")?.trim();
  if (!host || /[/?#@\s]/.test(host)) return null;
  const forwarded = env.TRUST_PROXY
    ? req.headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase()
    : undefined;
  const scheme =
    forwarded === "http" || forwarded === "https"
      ? `${forwarded}:`
      : originOf(req.url)
        ? new URL(req.url).protocol
        : "http:";
  return originOf(`${scheme}//${host}`);
}

export function crossSiteRefusal(
  req: { method: string; url: string; headers: Headers },
  ownOrigin = serverOrigin(),
): CrossSiteRefusal | null {
  // Reads (GET) are held to the same origin rule: a same-site page could otherwise make the browser run
  // searches in the person's name (logged, counted) through an <img> or a script tag.
  if (req.method === "POST" && mediaType(req.headers.get("content-type")) !== "application/json") {
    return {
      status: 415,
      reason: "json_body_required",
      message:
        "Dashboard calls that change something take a JSON body (Content-Type: application/json). Form posts are refused, so that another site cannot submit one in your name.",
    };
  }
  const refused = (what: string): CrossSiteRefusal => ({
    status: 403,
    reason: "cross_site_request",
    message: `This call came from ${what}, not from this server's own pages (${ownOrigin}), so it was refused: another site must not act in your name. Open the dashboard at ${ownOrigin}; if that is not its address, set NEXTAUTH_URL to it.`,
  });
  const fetchSite = req.headers.get("sec-fetch-site")?.trim().toLowerCase();
  if (fetchSite === "same-origin") return null;
  if (fetchSite !== undefined && fetchSite !== "none") return refused(`a ${fetchSite} page`);
  const origin = req.headers.get("origin");
  if (origin !== null) {
    const from = originOf(origin);
    if (from === null || (from !== ownOrigin && from !== addressedOrigin(req)))
      return refused(`the page at ${origin.slice(0, 100)}`);
  }
  return null;
}
