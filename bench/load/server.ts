// Starts the production server (scripts/server.mjs, as `npm start` does) for the load benchmark: one or more instances on free
// ports, logs to files, ready once /api/trpc/health.check answers. Only processes started here are
// ever stopped here, by their own pid.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import {
  builtAt as buildTime,
  buildIsStale,
  recordBuildSources,
  sourcesChangedAt,
} from "../../scripts/build-freshness.mjs";
import { serverArgs } from "../../scripts/server-command.mjs";

export const ROOT = path.resolve(import.meta.dirname, "..", "..");
const NEXT_BIN = path.join(ROOT, "node_modules", "next", "dist", "bin", "next");

export type BuildInfo = {
  buildId: string;
  builtAt: string;
  sourcesChangedAt: string;
  sourcesNewerThanBuild: boolean;
  rebuilt: boolean;
};

/** Uses the existing production build (.next/BUILD_ID); builds when there is none or when asked to. */
export function ensureBuild(options: { force: boolean; log: (line: string) => void }): BuildInfo {
  const buildIdFile = path.join(ROOT, ".next", "BUILD_ID");
  let rebuilt = false;
  if (options.force || !fs.existsSync(buildIdFile)) {
    options.log(options.force ? "building (--build)…" : "no production build (.next/BUILD_ID): running next build…");
    const result = spawnSync(process.execPath, [NEXT_BIN, "build"], {
      cwd: ROOT,
      stdio: "inherit",
      env: { ...process.env, NODE_ENV: "production" },
    });
    if (result.status !== 0) throw new Error("next build failed");
    recordBuildSources(ROOT);
    rebuilt = true;
  }
  const builtAt = buildTime(ROOT);
  const sources = sourcesChangedAt(ROOT);
  return {
    buildId: fs.readFileSync(buildIdFile, "utf8").trim(),
    builtAt: new Date(builtAt).toISOString(),
    sourcesChangedAt: new Date(sources).toISOString(),
    sourcesNewerThanBuild: buildIsStale(ROOT),
    rebuilt,
  };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export type Servers = { urls: string[]; pids: number[]; logs: string[]; stop: () => Promise<void> };

async function waitReady(url: string, child: ChildProcess, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server ${url} exited with code ${child.exitCode} during start-up`);
    try {
      const res = await fetch(`${url}/api/trpc/health.check`);
      await res.text();
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`server ${url} not ready after ${timeoutMs / 1000} s`);
}

/** `nodeFlags`: extra Node options for the servers (e.g. `--cpu-prof`, which NODE_OPTIONS does not accept). */
export async function startServers(params: {
  count: number;
  env: Record<string, string>;
  logDir: string;
  nodeFlags?: string[];
}): Promise<Servers> {
  fs.mkdirSync(params.logDir, { recursive: true });
  const children: ChildProcess[] = [];
  const urls: string[] = [];
  const logs: string[] = [];
  const stop = async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
            child.once("exit", () => (clearTimeout(timer), resolve()));
            child.kill("SIGTERM");
          }),
      ),
    );
  };
  try {
    for (let i = 0; i < params.count; i++) {
      const port = await freePort();
      const log = path.join(params.logDir, `server-${i}.log`);
      const fd = fs.openSync(log, "a");
      const url = `http://127.0.0.1:${port}`;
      const child = spawn(process.execPath, [...(params.nodeFlags ?? []), ...serverArgs(ROOT)], {
        cwd: ROOT,
        env: {
          ...process.env,
          ...params.env,
          NODE_ENV: "production",
          PORT: String(port),
          HOST: "127.0.0.1",
          NEXTAUTH_URL: url,
        },
        stdio: ["ignore", fd, fd],
      });
      fs.closeSync(fd);
      children.push(child);
      urls.push(url);
      logs.push(log);
      // One at a time: instances share the database and its migration lock.
      await waitReady(url, child, 180_000);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { urls, pids: children.map((c) => c.pid!), logs, stop };
}
