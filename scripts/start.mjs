#!/usr/bin/env node
// `npm start`: build the app when it was not built from these sources, then serve it.
// With no DATABASE_URL the server uses the embedded database under ./data (MEMORY_DATA_DIR).
import { spawn, spawnSync } from "node:child_process";
import path from "node:path";
import { builtAt, buildIsStale, recordBuildSources } from "./build-freshness.mjs";
import { serverArgs } from "./server-command.mjs";

const root = path.resolve(import.meta.dirname, "..");
if (buildIsStale(root)) {
  console.log(
    builtAt(root)
      ? "[memory] sources changed since the last build: building…"
      : "[memory] first start: building the app (a few minutes on a small machine; once)…",
  );
  const result = spawnSync(process.execPath, [path.join(root, "node_modules/next/dist/bin/next"), "build"], {
    cwd: root,
    stdio: "inherit",
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
  recordBuildSources(root);
}

const env = { ...process.env, PORT: process.env.PORT ?? "3000" };
if (!process.env.DATABASE_URL)
  console.log(
    `[memory] no DATABASE_URL: using the embedded database in ${path.resolve(root, process.env.MEMORY_DATA_DIR ?? "data")}`,
  );
const child = spawn(process.execPath, serverArgs(root), { cwd: root, env, stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
