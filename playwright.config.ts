import os from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";

/**
 * End-to-end: the production build on an embedded database in a fresh temp folder, driven through
 * Debian's chromium (never a downloaded browser). `npm run build` first.
 */
const port = Number(process.env.E2E_PORT ?? 3100);
const baseURL = `http://localhost:${port}`;
const dataDir = process.env.E2E_DATA_DIR ?? path.join(os.tmpdir(), `memory-e2e-${process.pid}`);

export default defineConfig({
  testDir: "e2e",
  outputDir: "e2e/artifacts/results",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [["list"]],
  timeout: 60_000,
  use: { baseURL, trace: "off" },
  projects: [
    { name: "api", testMatch: /api\/.*\.spec\.ts/ },
    {
      name: "ui",
      testMatch: /ui\/.*\.spec\.ts/,
      use: {
        browserName: "chromium",
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
      },
    },
  ],
  webServer: {
    command: `node node_modules/next/dist/bin/next start -p ${port}`,
    url: `${baseURL}/api/health`,
    timeout: 120_000,
    reuseExistingServer: false,
    stdout: "pipe",
    env: { MEMORY_DATA_DIR: dataDir, NEXTAUTH_URL: baseURL, PORT: String(port), DATABASE_URL: "" },
  },
});
