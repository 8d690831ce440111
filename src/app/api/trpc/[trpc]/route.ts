import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { getDb } from "~/db/client";
import { appRouter } from "~/server/api/root";
import { getServerAuthSession } from "~/server/auth/config";
import { logServerError } from "~/server/log";

export const dynamic = "force-dynamic";

const handler = (req: Request) =>
  fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: async () => ({ db: await getDb(), headers: req.headers, getSession: getServerAuthSession }),
    onError: ({ path, error }) => {
      if (error.code === "INTERNAL_SERVER_ERROR") logServerError(`tRPC ${path ?? "?"}`, error.cause ?? error);
    },
  });

export { handler as GET, handler as POST };
