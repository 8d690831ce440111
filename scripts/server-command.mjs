// How to run the production server (scripts/server.mjs): `npm start`, the e2e tests and the load
// benchmark all start it the same way.
import path from "node:path";

/** Node arguments that run the production server of the project at `root`. */
export const serverArgs = (root) => [path.join(root, "scripts", "server.mjs")];
