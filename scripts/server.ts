// The production HTTP server (`npm start` runs it): agent calls (tRPC tools.*, me.agent, MCP) are
// answered by src/server/http/agent-listener.ts straight from Node's HTTP server; everything else —
// the dashboard, sign-in, the dashboard's tRPC — by Next.js, as `next start` would.
import http from "node:http";
import path from "node:path";
import next from "next";
import { env } from "~/env";
import { getDb } from "~/db/client";
import { createAgentListener } from "~/server/http/agent-listener";
import { log } from "~/server/log";
import { flushAllQueryLogs } from "~/server/memory/retrieval/query-log";

const root = path.resolve(import.meta.dirname, "..");
const hostname = env.HOST;
const app = next({ dev: false, dir: root, hostname, port: env.PORT });
const handle = app.getRequestHandler();
// Runs src/instrumentation.ts: opens and migrates the database, starts the worker, says where to sign in.
await app.prepare();

const serveAgent = createAgentListener(getDb);
const server = http.createServer((req, res) => {
  if (serveAgent(req, res)) return;
  void handle(req, res);
});
// Longer than a load balancer's idle timeout (60 s is common), so it never reuses a socket this closed.
server.keepAliveTimeout = 65_000;
server.listen(env.PORT, hostname, () => log("info", `listening on http://${hostname === "0.0.0.0" ? "localhost" : hostname}:${env.PORT}`));

let closing = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    if (closing) return;
    closing = true;
    // Stop taking requests, let the ones in flight finish (10 s at most), write the buffered query log.
    const deadline = setTimeout(() => process.exit(0), 10_000);
    deadline.unref();
    server.close(() => {
      void flushAllQueryLogs().finally(() => process.exit(0));
    });
    server.closeIdleConnections();
  });
}
