import fs from "node:fs";
import path from "node:path";
import { env } from "~/env";
import { acquireDataDirLock } from "./embedded-lock";
import { appliedMigrationTags, DEFAULT_MIGRATIONS_FOLDER, MigrationError, pendingMigrations, runMigrations } from "./migrate";
import * as schema from "./schema";
import type { Database, DatabaseMode } from "./types";

export type DatabaseHandle = {
  db: Database;
  mode: DatabaseMode;
  /** Where embedded data lives (null in server mode or in-memory). */
  dataDir: string | null;
  close: () => Promise<void>;
};

export type OpenDatabaseOptions = {
  /** postgres:// URL → server mode; absent → embedded PGlite. */
  url?: string;
  /** Embedded data directory; `null` keeps the database in memory (tests). */
  dataDir?: string | null;
  migrationsFolder?: string;
  /** Apply pending migrations on open (default true). */
  migrate?: boolean;
  poolMax?: number;
};

async function openServer(url: string, poolMax: number): Promise<DatabaseHandle> {
  const { default: postgres } = await import("postgres");
  const { drizzle } = await import("drizzle-orm/postgres-js");
  const client = postgres(url, {
    max: poolMax,
    onnotice: () => {},
    // Drop idle connections so a restarted Postgres is reconnected to instead of failing on a dead socket.
    idle_timeout: 30,
    connect_timeout: 10,
  });
  const db = drizzle(client, { schema }) as unknown as Database;
  return { db, mode: "server", dataDir: null, close: () => client.end({ timeout: 5 }) };
}

async function openPglite(dataDir: string | null) {
  const { PGlite } = await import("@electric-sql/pglite");
  const { vector } = await import("@electric-sql/pglite-pgvector");
  const { pg_trgm } = await import("@electric-sql/pglite/contrib/pg_trgm");
  if (dataDir) fs.mkdirSync(dataDir, { recursive: true });
  return PGlite.create(dataDir ?? undefined, { extensions: { vector, pg_trgm } });
}

async function openEmbedded(dataDir: string | null, migrationsFolder: string, migrate: boolean): Promise<DatabaseHandle> {
  const { drizzle } = await import("drizzle-orm/pglite");
  const release = dataDir ? acquireDataDirLock(dataDir) : () => {};
  try {
    let client = await openPglite(dataDir);
    let db = drizzle(client, { schema }) as unknown as Database;
    if (migrate && dataDir) {
      const pending = await pendingMigrations(db, migrationsFolder);
      const hasData = (await appliedMigrationTags(db)).length > 0;
      if (pending.length > 0 && hasData) {
        // 002's rule: copy the data directory aside before changing its schema; restore it if the change fails.
        await client.close();
        const backupDir = backupDataDir(dataDir);
        client = await openPglite(dataDir);
        db = drizzle(client, { schema }) as unknown as Database;
        try {
          await runMigrations(db, migrationsFolder);
        } catch (error) {
          await client.close();
          restoreDataDir(dataDir, backupDir);
          const message = error instanceof Error ? error.message : String(error);
          throw new MigrationError(`${message} The data directory was restored from ${backupDir}.`, (error as MigrationError).tag ?? "", error);
        }
      } else if (pending.length > 0) {
        await runMigrations(db, migrationsFolder);
      }
    } else if (migrate) {
      await runMigrations(db, migrationsFolder);
    }
    const finalClient = client;
    return {
      db,
      mode: "embedded",
      dataDir,
      close: async () => {
        await finalClient.close();
        release();
      },
    };
  } catch (error) {
    release();
    throw error;
  }
}

function backupDataDir(dataDir: string): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const backupDir = path.join(path.dirname(path.resolve(dataDir)), "backups", `${path.basename(dataDir)}-${stamp}`);
  fs.mkdirSync(path.dirname(backupDir), { recursive: true });
  fs.cpSync(dataDir, backupDir, { recursive: true });
  return backupDir;
}

function restoreDataDir(dataDir: string, backupDir: string) {
  const failedDir = `${path.resolve(dataDir)}.failed-${Date.now()}`;
  fs.renameSync(dataDir, failedDir);
  fs.cpSync(backupDir, dataDir, { recursive: true });
  fs.rmSync(failedDir, { recursive: true, force: true });
}

export async function openDatabase(options: OpenDatabaseOptions = {}): Promise<DatabaseHandle> {
  const migrationsFolder = options.migrationsFolder ?? DEFAULT_MIGRATIONS_FOLDER;
  const migrate = options.migrate ?? true;
  if (options.url) {
    const handle = await openServer(options.url, options.poolMax ?? env.DB_POOL_MAX);
    if (migrate) {
      try {
        await runMigrations(handle.db, migrationsFolder);
      } catch (error) {
        await handle.close();
        throw error;
      }
    }
    return handle;
  }
  const dataDir = options.dataDir === undefined ? embeddedDataDir() : options.dataDir;
  return openEmbedded(dataDir, migrationsFolder, migrate);
}

export function embeddedDataDir(): string {
  return path.resolve(env.MEMORY_DATA_DIR, "pglite");
}

// One handle per process; kept on globalThis so dev-mode module reloads reuse it instead of opening PGlite twice.
const globalForDb = globalThis as unknown as { __memoryDb?: Promise<DatabaseHandle> };

/** The process-wide database, opened (and migrated) on first use from the environment. */
export function getDatabase(): Promise<DatabaseHandle> {
  if (!globalForDb.__memoryDb) {
    const opening = openDatabase({ url: env.DATABASE_URL });
    // A failed open must not be remembered forever: the next caller tries again.
    opening.catch(() => {
      if (globalForDb.__memoryDb === opening) globalForDb.__memoryDb = undefined;
    });
    globalForDb.__memoryDb = opening;
  }
  return globalForDb.__memoryDb;
}

export async function getDb(): Promise<Database> {
  return (await getDatabase()).db;
}
