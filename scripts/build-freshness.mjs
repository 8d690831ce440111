// Whether the production build (.next) was made from the sources here: shared by `npm start` (rebuilds
// when not), `npm run build` (records what it was built from) and the load benchmark (reports it).
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** What `next build` reads, relative to the repository root. */
export const BUILD_INPUTS = [
  "src",
  "drizzle",
  "public",
  "package-lock.json",
  "next.config.ts",
  "postcss.config.mjs",
  "tsconfig.json",
];

/** Where a build records the fingerprint of the sources it was made from. */
const FINGERPRINT_FILE = path.join(".next", "memory-sources.sha256");

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

function addFiles(hash, root, relative) {
  const full = path.join(root, relative);
  if (!fs.existsSync(full)) return;
  if (!fs.statSync(full).isDirectory()) {
    hash.update(`${relative}\0`).update(fs.readFileSync(full)).update("\0");
    return;
  }
  for (const entry of fs.readdirSync(full).sort()) addFiles(hash, root, path.join(relative, entry));
}

/**
 * The build inputs' content, as one hash: unlike modification times, it changes whenever a file does,
 * also when a release is unpacked with its original (older) times over a newer local build.
 */
export function sourcesFingerprint(root) {
  const hash = createHash("sha256");
  for (const input of BUILD_INPUTS) addFiles(hash, root, input);
  return hash.digest("hex");
}

/** Records that the build under `root` was made from its current sources (after a successful build). */
export const recordBuildSources = (root) =>
  fs.writeFileSync(path.join(root, FINGERPRINT_FILE), `${sourcesFingerprint(root)}\n`);

/**
 * Whether the build under `root` must be made again: none yet, or made from other sources (by the
 * recorded fingerprint; a build without one, made by `next build` alone, by modification times).
 */
export function buildIsStale(root) {
  const built = builtAt(root);
  if (!built) return true;
  const recorded = path.join(root, FINGERPRINT_FILE);
  if (fs.existsSync(recorded)) return fs.readFileSync(recorded, "utf8").trim() !== sourcesFingerprint(root);
  return built < sourcesChangedAt(root);
}

// `node scripts/build-freshness.mjs --record`: run by `npm run build` after `next build`.
if (
  process.argv[1] &&
  path.resolve(process.argv[1]) === fileURLToPath(import.meta.url) &&
  process.argv.includes("--record")
) {
  recordBuildSources(path.resolve(path.dirname(fileURLToPath(import.meta.url)), ".."));
}
