import path from "node:path";
import { defineConfig } from "vitest/config";

/**
 * Pure unit tests run once; database suites run once per backend: PGlite always, real Postgres
 * when TEST_DATABASE_URL is set (scripts/test.mjs refuses to run in CI without it).
 */
const alias = {
  "~": path.resolve(import.meta.dirname, "src"),
  // The examples import the client by its package name: its sources here, no build needed.
  "@agent-memory/client": path.resolve(import.meta.dirname, "packages/client/src/index.ts"),
};
const dbSuites = ["test/db/**/*.test.ts"];
/** The client packages against a started agent endpoint; the npm pack test runs once, on PGlite. */
const clientSuites = ["test/clients/**/*.test.ts"];
const packOnce = ["test/clients/pack.test.ts"];
const backends = [
  { name: "pglite", env: { TEST_BACKEND: "pglite" } },
  ...(process.env.TEST_DATABASE_URL ? [{ name: "postgres", env: { TEST_BACKEND: "postgres" } }] : []),
];

export default defineConfig({
  resolve: { alias },
  test: {
    // Each database file opens its own database; two at a time keeps a 2-core machine responsive.
    maxWorkers: 2,
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts"],
          environment: "node",
          setupFiles: ["test/support/memory-subscribers.ts"],
        },
      },
      {
        // Crash and fault injection (test/faults, docs/reliability.md): PGlite always, Postgres when
        // TEST_DATABASE_URL is set (in CI its absence fails these suites instead of skipping them).
        resolve: { alias },
        test: {
          name: "faults",
          include: ["test/faults/**/*.test.ts"],
          environment: "node",
          setupFiles: ["test/support/memory-subscribers.ts"],
          globalSetup: ["test/faults/global-setup.ts"],
          testTimeout: 90_000,
          hookTimeout: 120_000,
        },
      },
      ...backends.map((backend) => ({
        resolve: { alias },
        test: {
          name: backend.name,
          include: dbSuites,
          environment: "node",
          setupFiles: ["test/support/memory-subscribers.ts"],
          env: backend.env,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      })),
      ...backends.map((backend) => ({
        resolve: { alias },
        test: {
          name: backend.name === "pglite" ? "clients" : `clients-${backend.name}`,
          include: clientSuites,
          exclude: backend.name === "pglite" ? [] : packOnce,
          environment: "node",
          setupFiles: ["test/support/memory-subscribers.ts"],
          env: backend.env,
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      })),
    ],
  },
});
