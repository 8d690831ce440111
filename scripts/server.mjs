// The production HTTP server (`npm start` runs it). Next.js serves the dashboard, sign-in and the
// dashboard's tRPC. Agent calls (tRPC tools.* and me.agent, MCP) are answered before Next.js by the
// listener the app publishes at start-up (src/server/http/agent-listener.ts, from
// src/server/startup.ts): the same router and handlers, without the App Router's per-request work.
// Until it is published (or if start-up failed) Next.js' own routes answer agents the same way.
import http from "node:http";
import path from "node:path";
import next from "next";

const root = path.resolve(import.meta.dirname, "..");
const port = Number(process.env.PORT ?? 3000);
const hostname = process.env.HOST || "0.0.0.0";
// The dashboard's own address (sign-in redirects, MCP's same-origin check) when none is configured,
// whichever way the server is started (npm start, the Docker image's command, npm run serve).
process.env.NEXTAUTH_URL ||= `http://localhost:${port}`;
const app = next({ dev: false, dir: root, hostname, port });
const handle = app.getRequestHandler();
// Runs src/instrumentation.ts: opens and migrates the database, starts the worker, publishes the listener.
await app.prepare();

// src/server/http/front-door.ts: the listener the app published, and our mark that we consult it.
const published = () => globalThis[Symbol.for("agent-memory.agentListener")];
globalThis[Symbol.for("agent-memory.agentListenerInFront")] = true;
const server = http.createServer((req, res) => {
  // The peer's address, for sign-in throttling (src/server/auth/sign-in-throttle.ts); whatever a client
  // sent under this name is replaced.
  req.headers["x-memory-client-address"] = req.socket.remoteAddress ?? "unknown";
  const serveAgent = published();
  if (serveAgent?.(req, res)) return;
  void handle(req, res);
});
// Longer than a load balancer's idle timeout (60 s is common), so it never reuses a socket this closed.
server.keepAliveTimeout = 65_000;
server.listen(port, hostname, () =>
  console.log(`[memory] INFO listening on http://${hostname === "0.0.0.0" ? "localhost" : hostname}:${port}`),
);

let closing = false;
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    if (closing) return;
    closing = true;
    // Stop taking requests and let the ones in flight finish (10 s at most); the app flushes its
    // buffered query log on the same signal (src/server/startup.ts).
    setTimeout(() => process.exit(0), 10_000).unref();
    server.close(() => setTimeout(() => process.exit(0), 300));
    server.closeIdleConnections();
  });
}
