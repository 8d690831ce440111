import { randomBytes } from "node:crypto";
import type { PGlite } from "@electric-sql/pglite";
import postgres, { type Sql } from "postgres";
import { openDatabase, type DatabaseHandle, type OpenDatabaseOptions } from "~/db/client";
import * as schema from "~/db/schema";
import type { Database } from "~/db/types";
import { flushBufferedWrites } from "~/db/buffered-writes";

/** Which backend this Vitest project runs against (see vitest.config.ts). */
export const TEST_BACKEND = (process.env.TEST_BACKEND ?? "pglite") as "pglite" | "postgres";

export type TestDatabase = DatabaseHandle & { url: string | null; destroy: () => Promise<void> };

function serverUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error("TEST_BACKEND=postgres needs TEST_DATABASE_URL (run scripts/setup-postgres.sh).");
  return url;
}

/** A fresh, empty database on the server (no migrations applied), dropped by the returned cleanup. */
export async function createEmptyServerDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const base = new URL(serverUrl());
  const name = `memory_t_${randomBytes(6).toString("hex")}`;
  const admin = postgres(base.toString(), { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const again = postgres(base.toString(), { max: 1, onnotice: () => {} });
      await again.unsafe(`drop database if exists ${name} with (force)`);
      await again.end();
    },
  };
}

/**
 * Writes the handle's buffered query-log and recall rows before closing it, as the CLI does: a
 * flush timer firing during close would open a connection the pool is tearing down (postgres.js
 * then rejects its start-up query where nothing can catch it).
 */
async function closeAfterBufferedWrites(handle: DatabaseHandle) {
  await flushBufferedWrites(handle.db);
  await handle.close();
}

/**
 * A migrated database of the current backend, private to the calling test file:
 * in-memory PGlite, or a new database on the test Postgres server.
 */
export async function openTestDatabase(
  options: Omit<OpenDatabaseOptions, "url" | "dataDir"> = {},
): Promise<TestDatabase> {
  if (TEST_BACKEND === "postgres") {
    const { url, drop } = await createEmptyServerDatabase();
    const handle = await openDatabase({ ...options, url, poolMax: 5 });
    return { ...handle, url, destroy: async () => (await closeAfterBufferedWrites(handle), await drop()) };
  }
  const handle = await openDatabase({ ...options, dataDir: null });
  return { ...handle, url: null, destroy: () => closeAfterBufferedWrites(handle) };
}

/** A second Drizzle handle over the same connection(s) that records the text of every statement it runs. */
export async function recordingDb(handle: DatabaseHandle): Promise<{ db: Database; statements: string[] }> {
  const statements: string[] = [];
  const logger = { logQuery: (query: string) => void statements.push(query) };
  const client = (handle.db as unknown as { $client: unknown }).$client;
  if (handle.mode === "server") {
    const { drizzle } = await import("drizzle-orm/postgres-js");
    return { db: drizzle(client as Sql, { schema, logger }) as unknown as Database, statements };
  }
  const { drizzle } = await import("drizzle-orm/pglite");
  return { db: drizzle(client as PGlite, { schema, logger }) as unknown as Database, statements };
}
