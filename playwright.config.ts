import os from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";
import { serverArgs } from "./scripts/server-command.mjs";

/**
 * End-to-end: the production build on an embedded database in a fresh temp folder, driven through
 * Debian's chromium (never a downloaded browser). `npm run build` first.
 *
 * Each project gets its own server and database, so both can start from an empty install: the api
 * project signs up its own first admin over HTTP, and the ui project still sees a fresh install
 * (first-admin sign-up through the page, then "sign-up is closed").
 */
const port = Number(process.env.E2E_PORT ?? 3100);
const dataRoot = process.env.E2E_DATA_DIR ?? path.join(os.tmpdir(), `memory-e2e-${process.pid}`);
const servers = {
  api: { port, baseURL: `http://localhost:${port}`, dataDir: path.join(dataRoot, "api") },
  ui: { port: port + 1, baseURL: `http://localhost:${port + 1}`, dataDir: path.join(dataRoot, "ui") },
};

const uiUse = {
  baseURL: servers.ui.baseURL,
  browserName: "chromium" as const,
  viewport: { width: 1280, height: 800 },
  launchOptions: {
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-dev-shm-usage",
    ],
  },
};

export default defineConfig({
  testDir: "e2e",
  outputDir: "e2e/artifacts/results",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [["list"]],
  timeout: 60_000,
  // A page that hashes a password or renders a first build can take more than the default 5 s on a
  // busy two-core machine; assertions still fail when the thing never appears.
  expect: { timeout: 15_000 },
  use: { trace: "off" },
  projects: [
    { name: "api", testMatch: /api\/.*\.spec\.ts/, use: { baseURL: servers.api.baseURL } },
    // sign-in.spec creates the install's first admin, so it runs before every other ui spec.
    { name: "ui-setup", testMatch: /ui\/sign-in\.spec\.ts/, use: uiUse },
    {
      name: "ui",
      testMatch: /ui\/.*\.spec\.ts/,
      testIgnore: /ui\/sign-in\.spec\.ts/,
      dependencies: ["ui-setup"],
      use: uiUse,
    },
  ],
  webServer: Object.values(servers).map((server) => ({
    // The production server as `npm start` runs it (agent calls served in front of Next.js).
    command: ["node", ...serverArgs(".")].join(" "),
    url: `${server.baseURL}/api/health`,
    timeout: 120_000,
    reuseExistingServer: false,
    stdout: "pipe" as const,
    env: { MEMORY_DATA_DIR: server.dataDir, NEXTAUTH_URL: server.baseURL, PORT: String(server.port), DATABASE_URL: "" },
  })),
});
