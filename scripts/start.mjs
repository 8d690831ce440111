#!/usr/bin/env node
// `npm start`: build the app when the sources are newer than the last build, then serve it.
// With no DATABASE_URL the server uses the embedded database under ./data (MEMORY_DATA_DIR).
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const buildId = path.join(root, ".next", "BUILD_ID");
const inputs = ["src", "drizzle", "public", "package-lock.json", "next.config.ts", "postcss.config.mjs", "tsconfig.json"];

function newestMtime(target) {
  if (!fs.existsSync(target)) return 0;
  const stat = fs.statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of fs.readdirSync(target)) newest = Math.max(newest, newestMtime(path.join(target, entry)));
  return newest;
}

const built = fs.existsSync(buildId) ? fs.statSync(buildId).mtimeMs : 0;
const sources = Math.max(...inputs.map((p) => newestMtime(path.join(root, p))));
if (built < sources) {
  console.log(built ? "[memory] sources changed since the last build: building…" : "[memory] first start: building the app (about half a minute)…");
  const result = spawnSync(process.execPath, [path.join(root, "node_modules/next/dist/bin/next"), "build"], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const port = process.env.PORT ?? "3000";
const env = { ...process.env, PORT: port, NEXTAUTH_URL: process.env.NEXTAUTH_URL ?? `http://localhost:${port}` };
if (!process.env.DATABASE_URL) console.log(`[memory] no DATABASE_URL: using the embedded database in ${path.resolve(root, process.env.MEMORY_DATA_DIR ?? "data")}`);
const child = spawn(process.execPath, [path.join(root, "node_modules/next/dist/bin/next"), "start", "-p", port], { cwd: root, env, stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
