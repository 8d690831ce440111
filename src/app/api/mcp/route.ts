import { getDb } from "~/db/client";
import { logServerError } from "~/server/log";
import { handleMcpRequest } from "~/server/tools/mcp";

export const dynamic = "force-dynamic";

/** MCP (Streamable HTTP, stateless) over the agent tools; see src/server/tools/mcp.ts. */
async function handler(req: Request): Promise<Response> {
  try {
    return await handleMcpRequest(req, { db: await getDb() });
  } catch (error) {
    logServerError("mcp", error);
    return new Response(
      JSON.stringify({ jsonrpc: "2.0", error: { code: -32603, message: "The server could not complete this request and changed nothing. Retry; if it keeps failing, report it to your admin." }, id: null }),
      { status: 500, headers: { "content-type": "application/json" } },
    );
  }
}

export { handler as GET, handler as POST, handler as DELETE };
