import { getDb } from "~/db/client";
import { getServerAuthSession } from "~/server/auth/config";
import { serveTrpcRequest } from "~/server/http/dashboard-trpc";

export const dynamic = "force-dynamic";

/** Dashboard calls (and agent calls, which normally arrive through src/server/http/agent-listener.ts). */
const handler = (req: Request): Promise<Response> => serveTrpcRequest(req, { getDb, getSession: getServerAuthSession });

export { handler as GET, handler as POST };
