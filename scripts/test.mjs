#!/usr/bin/env node
// `npm test`: unit tests once; database suites and the client packages' suites (test/clients: client,
// framework adapters, npm pack, OpenAPI, examples) on PGlite always and on Postgres when
// TEST_DATABASE_URL is set. In CI a missing TEST_DATABASE_URL is an error, never a silent skip.
import { spawnSync } from "node:child_process";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
if (process.env.CI === "true" && !process.env.TEST_DATABASE_URL) {
  console.error(
    "CI=true but TEST_DATABASE_URL is not set: the Postgres suite would be skipped. Run scripts/setup-postgres.sh first.",
  );
  process.exit(1);
}
if (process.env.CI === "true" && !process.env.TEST_DATABASE_READ_URL) {
  console.error(
    "CI=true but TEST_DATABASE_READ_URL is not set: the read-replica suite would be skipped. Run scripts/setup-postgres.sh --standby first.",
  );
  process.exit(1);
}
console.log(
  `[test] backends: pglite${process.env.TEST_DATABASE_URL ? " + postgres" : " (set TEST_DATABASE_URL to add postgres)"}${process.env.TEST_DATABASE_READ_URL ? " + hot standby" : ""}`,
);
const result = spawnSync(
  process.execPath,
  [path.join(root, "node_modules/vitest/vitest.mjs"), "run", ...process.argv.slice(2)],
  {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, NODE_ENV: "test" },
  },
);
if (result.status !== 0 || process.argv.length > 2) process.exit(result.status ?? 1);

// Postgres restarted under load (test/faults/postgres-restart.ts): it restarts the local cluster, so it
// runs alone, after every suite, and only where that is wanted: in CI, or with TEST_POSTGRES_RESTART=1.
if (process.env.TEST_DATABASE_URL && (process.env.CI === "true" || process.env.TEST_POSTGRES_RESTART === "1")) {
  console.log("[test] postgres restarted under load (restarts the local cluster)");
  const restart = spawnSync(process.execPath, ["--import", "tsx", path.join(root, "test/faults/postgres-restart.ts")], {
    cwd: root,
    stdio: "inherit",
    env: process.env,
  });
  if (restart.status !== 0) console.error("[test] postgres restart under load: FAILED");
  process.exit(restart.status ?? 1);
}
