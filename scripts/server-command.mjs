// How to run the production server (scripts/server.ts): `npm start`, the e2e tests and the load
// benchmark all start it the same way.
import path from "node:path";

/** Node arguments that run scripts/server.ts from the project root `root`. */
export const serverArgs = (root) => ["--import", "tsx", path.join(root, "scripts", "server.ts")];
