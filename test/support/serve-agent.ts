// A started agent endpoint for clients written in other languages (clients/python's tests): the
// agent listener on a local port over an in-memory PGlite database (TEST_BACKEND=postgres with
// TEST_DATABASE_URL for Postgres), with an organisation and keys. Prints one JSON line
// { baseUrl, secret, readOnlySecret } and serves until its stdin closes.
import { startAgentServer } from "./agent-server";

const server = await startAgentServer();
const readOnlySecret = await server.newKey({ permissions: ["memory:read"] });
process.stdout.write(`${JSON.stringify({ baseUrl: server.baseUrl, secret: server.secret, readOnlySecret })}\n`);
const stop = async () => {
  await server.close();
  process.exit(0);
};
process.stdin.on("end", () => void stop());
process.stdin.on("close", () => void stop());
process.stdin.resume();
process.on("SIGTERM", () => void stop());
