// Whether the production build (.next) is older than what it is built from: shared by `npm start`
// (rebuilds when stale) and the load benchmark (reports it).
import fs from "node:fs";
import path from "node:path";

/** What `next build` reads, relative to the repository root. */
export const BUILD_INPUTS = ["src", "drizzle", "public", "package-lock.json", "next.config.ts", "postcss.config.mjs", "tsconfig.json"];

function newestMtime(target) {
  if (!fs.existsSync(target)) return 0;
  const stat = fs.statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of fs.readdirSync(target)) newest = Math.max(newest, newestMtime(path.join(target, entry)));
  return newest;
}

/** Newest modification time (ms) among the build inputs under `root`. */
export const sourcesChangedAt = (root) => Math.max(...BUILD_INPUTS.map((p) => newestMtime(path.join(root, p))));

/** When the build under `root` was made (ms), 0 when there is none. */
export function builtAt(root) {
  const buildId = path.join(root, ".next", "BUILD_ID");
  return fs.existsSync(buildId) ? fs.statSync(buildId).mtimeMs : 0;
}
