// How to run the production server (scripts/server.mjs): `npm start`, the e2e tests and the load
// benchmark all start it the same way.
import path from "node:path";

/**
 * V8's young generation sized for a server that allocates a lot per request (rows, JSON, cards):
 * 64 MB semi-spaces (default 16) mean fewer scavenges and less promoted garbage; under the mixed
 * benchmark the server's CPU per request fell 12–15 %, for ~60 MB more resident memory under load
 * (docs/history/performance-rounds.md, round 6).
 */
const SERVER_NODE_FLAGS = ["--max-semi-space-size=64"];

/** Node arguments that run the production server of the project at `root`. */
export const serverArgs = (root) => [...SERVER_NODE_FLAGS, path.join(root, "scripts", "server.mjs")];
