import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { getDb } from "~/db/client";
import { appRouter } from "~/server/api/root";
import { logTrpcError, payloadTooLargeBody, retryAfterMeta, TRPC_ENDPOINT, trpcBodyLimit } from "~/server/api/trpc-http";
import { getServerAuthSession } from "~/server/auth/config";
import { readBodyWithin, withBody } from "~/server/rate-limit/body-limit";

export const dynamic = "force-dynamic";

const trpc = (req: Request) =>
  fetchRequestHandler({
    endpoint: TRPC_ENDPOINT,
    req,
    router: appRouter,
    createContext: async () => ({ db: await getDb(), headers: req.headers, getSession: getServerAuthSession }),
    onError: logTrpcError,
    responseMeta: retryAfterMeta,
  });

/** Bodies are capped before tRPC parses them. Agent calls normally arrive through src/server/http/agent-listener.ts. */
async function handler(req: Request): Promise<Response> {
  if (req.method !== "POST") return trpc(req);
  const body = await readBodyWithin(req, trpcBodyLimit(req.headers.has("authorization")));
  if (!body.ok) return Response.json(payloadTooLargeBody(body.maxBytes), { status: 413 });
  return trpc(withBody(req, body.bytes));
}

export { handler as GET, handler as POST };
