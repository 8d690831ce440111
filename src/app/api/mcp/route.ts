import { getDb } from "~/db/client";
import { serveMcpRequest } from "~/server/tools/mcp";

export const dynamic = "force-dynamic";

/** MCP (Streamable HTTP, stateless) over the agent tools; normally served by src/server/http/agent-listener.ts. */
const handler = async (req: Request): Promise<Response> => serveMcpRequest(req, await getDb());

export { handler as GET, handler as POST, handler as DELETE };
