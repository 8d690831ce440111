import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { getDb } from "~/db/client";
import { appRouter } from "~/server/api/root";
import { getServerAuthSession } from "~/server/auth/config";
import { ServiceError } from "~/server/errors";
import { logServerError } from "~/server/log";
import { AGENT_MAX_BODY_BYTES, DASHBOARD_MAX_BODY_BYTES, readBodyWithin, tooLargeMessage, withBody } from "~/server/rate-limit/body-limit";

export const dynamic = "force-dynamic";

const trpc = (req: Request) =>
  fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: async () => ({ db: await getDb(), headers: req.headers, getSession: getServerAuthSession }),
    onError: ({ path, error }) => {
      if (error.code === "INTERNAL_SERVER_ERROR") logServerError(`tRPC ${path ?? "?"}`, error.cause ?? error);
    },
    // A rate-limited agent also gets the standard header saying when to come back.
    responseMeta: ({ errors }) => {
      const retry = errors.map((e) => (e.cause instanceof ServiceError ? e.cause.details?.retryAfterSeconds : undefined)).find((s) => typeof s === "number");
      return retry === undefined ? {} : { headers: new Headers({ "retry-after": String(retry) }) };
    },
  });

/** Bodies are capped before tRPC parses them: agent calls (bearer key) tightly, dashboard calls less so. */
async function handler(req: Request): Promise<Response> {
  if (req.method !== "POST") return trpc(req);
  const maxBytes = req.headers.has("authorization") ? AGENT_MAX_BODY_BYTES : DASHBOARD_MAX_BODY_BYTES;
  const body = await readBodyWithin(req, maxBytes);
  if (!body.ok) {
    const error = { message: tooLargeMessage(body.maxBytes), code: -32600, data: { code: "PAYLOAD_TOO_LARGE", httpStatus: 413, reason: "payload_too_large" } };
    return Response.json({ error }, { status: 413 });
  }
  return trpc(withBody(req, body.bytes));
}

export { handler as GET, handler as POST };
