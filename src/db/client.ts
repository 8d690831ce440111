import fs from "node:fs";
import path from "node:path";
import { env } from "~/env";
import { backupDataDir, missingDatabaseWithCopies, pruneBackups, restoreDataDir } from "./backups";
import { acquireDataDirLock } from "./embedded-lock";
import { serverConnection } from "./server-url";
import {
  appliedMigrationTags,
  DEFAULT_MIGRATIONS_FOLDER,
  MigrationError,
  pendingMigrations,
  readMigrationFiles,
  runMigrations,
} from "./migrate";
import * as schema from "./schema";
import type { Database, DatabaseMode } from "./types";
import { isConnectionLost } from "./connection-errors";
import { priceTextMatch } from "./match-cost";
import { registerPoolStats, type PoolStats } from "./pool-stats";
import { withDropSafeTransactions, withPreparedStatements } from "./server-transactions";
import { trackWrites } from "./write-generation";
import {
  ReadReplicas,
  registerReadReplicas,
  replicaName,
  unregisterReadReplicas,
  type ReplicaOptions,
} from "./replicas";

export type DatabaseHandle = {
  db: Database;
  mode: DatabaseMode;
  /** Where embedded data lives (null in server mode or in-memory). */
  dataDir: string | null;
  /** What opening did to the schema; null when opened with `migrate: false`. */
  migration: MigrationOutcome | null;
  /** Server mode with DATABASE_READ_URL: the hot standbys that take reads (src/db/replicas.ts). */
  readReplicas?: ReadReplicas;
  close: () => Promise<void>;
};

export type MigrationOutcome = {
  /** Tags applied by this open, in order (empty: the schema was already current). */
  applied: string[];
  /** The newest migration this release ships (what the schema is at after a successful open). */
  version: string | null;
  /** Embedded only: the copy of the data directory taken before migrating a database that had data. */
  backupDir: string | null;
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
  /** Server mode: named prepared statements (default DB_PREPARED_STATEMENTS). */
  preparedStatements?: boolean;
};

export { isConnectionLost };

/**
 * json and jsonb reach Drizzle as text, which its column types parse: a driver that parsed them first
 * had them parsed twice, so a stored JSON string that is itself JSON text came back as something else
 * (a card's valueJson "123" read back as the number 123, "null" as null). Raw queries that read JSON
 * accept both forms. Keyed by type oid (json 114, jsonb 3802), the form both drivers take.
 */
const JSON_AS_TEXT: Record<number, (value: string) => string> = { 114: (value) => value, 3802: (value) => value };

async function openServer(
  url: string,
  poolMax: number,
  preparedStatements: boolean,
  statementTimeoutMs?: number,
): Promise<DatabaseHandle> {
  const { default: postgres } = await import("postgres");
  const { drizzle } = await import("drizzle-orm/postgres-js");
  const target = serverConnection(url);
  const stats: PoolStats = { max: poolMax, reserved: 0, waiting: 0 };
  const client = withDropSafeTransactions(
    withPreparedStatements(
      postgres(target.url, {
        ...(target.path ? { path: target.path } : {}),
        max: poolMax,
        onnotice: () => {},
        // Drop idle connections so a restarted Postgres is reconnected to instead of failing on a dead socket.
        idle_timeout: 30,
        connect_timeout: 10,
        // Replicas: the server ends a read that runs too long (it then runs again on the primary).
        ...(statementTimeoutMs ? { connection: { statement_timeout: statementTimeoutMs } } : {}),
        // postgres.js's default reconnect backoff grows to 20 s, and the attempts counter is shared by the
        // whole pool: after a Postgres restart a request could sit ~20 s behind a slot that is waiting to
        // reconnect while the server was long back. Capped at 2 s (jittered, as the default).
        backoff: (retries: number) => (0.5 + Math.random() / 2) * Math.min(3 ** retries / 100, 2),
      }),
      preparedStatements,
    ),
    stats,
  );
  Object.assign((client as unknown as { options: { parsers: Record<number, unknown> } }).options.parsers, JSON_AS_TEXT);
  const db = drizzle(client, { schema }) as unknown as Database;
  registerPoolStats(db, stats);
  return { db, mode: "server", dataDir: null, migration: null, close: () => client.end({ timeout: 5 }) };
}

async function openPglite(dataDir: string | null) {
  const { PGlite } = await import("@electric-sql/pglite");
  const { vector } = await import("@electric-sql/pglite-pgvector");
  const { pg_trgm } = await import("@electric-sql/pglite/contrib/pg_trgm");
  if (dataDir) fs.mkdirSync(dataDir, { recursive: true });
  return PGlite.create(dataDir ?? undefined, { extensions: { vector, pg_trgm }, parsers: JSON_AS_TEXT });
}

async function openEmbedded(
  dataDir: string | null,
  migrationsFolder: string,
  migrate: boolean,
): Promise<DatabaseHandle> {
  const { drizzle } = await import("drizzle-orm/pglite");
  const release = dataDir ? acquireDataDirLock(dataDir) : () => {};
  try {
    const lost = dataDir ? missingDatabaseWithCopies(dataDir) : null;
    if (lost) throw new Error(lost);
    let client = await openPglite(dataDir);
    let db = drizzle(client, { schema }) as unknown as Database;
    let migration: MigrationOutcome | null = null;
    if (migrate && dataDir) {
      const pending = await pendingMigrations(db, migrationsFolder);
      const hasData = (await appliedMigrationTags(db)).length > 0;
      if (pending.length > 0 && hasData) {
        // Copy the data directory aside before a schema change; restore it if the change fails (docs/operations.md).
        await client.close();
        const backupDir = backupDataDir(dataDir);
        client = await openPglite(dataDir);
        db = drizzle(client, { schema }) as unknown as Database;
        try {
          migration = { ...(await runMigrations(db, migrationsFolder)), backupDir };
        } catch (error) {
          await client.close();
          const message = error instanceof Error ? error.message : String(error);
          const tag = (error as MigrationError).tag ?? "";
          try {
            restoreDataDir(dataDir, backupDir);
          } catch (restoreError) {
            const why = restoreError instanceof Error ? restoreError.message : String(restoreError);
            throw new MigrationError(
              `${message} Putting back the copy taken first failed (${why}); it is kept at ${backupDir}, and the data directory holds what the rolled-back migration left. Free space, then restore the copy by hand (docs/operations.md, Restore).`,
              tag,
              error,
            );
          }
          throw new MigrationError(
            `${message} The data directory was restored as it was before (from the copy taken first, ${backupDir}, removed since).`,
            tag,
            error,
          );
        }
        pruneBackups(dataDir, env.MEMORY_BACKUPS_KEEP);
      } else if (pending.length > 0) {
        migration = { ...(await runMigrations(db, migrationsFolder)), backupDir: null };
      } else {
        migration = { applied: [], version: readMigrationFiles(migrationsFolder).at(-1)?.tag ?? null, backupDir: null };
      }
    } else if (migrate) {
      migration = { ...(await runMigrations(db, migrationsFolder)), backupDir: null };
    }
    await priceTextMatch(db);
    const finalClient = client;
    trackWrites(db, finalClient);
    return {
      db,
      mode: "embedded",
      dataDir,
      migration,
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

export async function openDatabase(options: OpenDatabaseOptions = {}): Promise<DatabaseHandle> {
  const migrationsFolder = options.migrationsFolder ?? DEFAULT_MIGRATIONS_FOLDER;
  const migrate = options.migrate ?? true;
  if (options.url) {
    const handle = await openServer(
      options.url,
      options.poolMax ?? env.DB_POOL_MAX,
      options.preparedStatements ?? env.DB_PREPARED_STATEMENTS,
    );
    if (migrate) {
      try {
        handle.migration = { ...(await runMigrations(handle.db, migrationsFolder)), backupDir: null };
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

/**
 * Opens a pool per replica URL (no migrations: a standby replays the primary's), probes them once,
 * and makes them the read replicas of `handle`, closed with it. Server mode only.
 */
export async function attachReadReplicas(
  handle: DatabaseHandle,
  urls: readonly string[],
  options: ReplicaOptions & { poolMax?: number },
): Promise<ReadReplicas> {
  if (handle.mode !== "server")
    throw new Error("Read replicas need server mode (DATABASE_URL); embedded mode has one process and no replicas.");
  const handles = await Promise.all(
    urls.map(async (url) => {
      const opened = await openServer(
        url,
        options.poolMax ?? env.DB_POOL_MAX,
        env.DB_PREPARED_STATEMENTS,
        options.readTimeoutMs ?? env.DATABASE_READ_TIMEOUT_MS,
      );
      return { name: replicaName(url), db: opened.db, close: opened.close };
    }),
  );
  const replicas = new ReadReplicas(handle.db, handles, {
    ...options,
    readTimeoutMs: options.readTimeoutMs ?? env.DATABASE_READ_TIMEOUT_MS,
  });
  registerReadReplicas(replicas);
  await replicas.start();
  const close = handle.close;
  handle.readReplicas = replicas;
  handle.close = async () => {
    unregisterReadReplicas(replicas);
    await replicas.close();
    await close();
  };
  return replicas;
}

async function openFromEnv(): Promise<DatabaseHandle> {
  const handle = await openDatabase({ url: env.DATABASE_URL });
  if (handle.mode === "server" && env.DATABASE_READ_URL.length > 0) {
    await attachReadReplicas(handle, env.DATABASE_READ_URL, { maxLagMs: env.DATABASE_READ_MAX_LAG_MS });
  }
  return handle;
}

export function embeddedDataDir(): string {
  return path.resolve(env.MEMORY_DATA_DIR, "pglite");
}

// One handle per process; kept on globalThis so dev-mode module reloads reuse it instead of opening PGlite twice.
const globalForDb = globalThis as unknown as { __memoryDb?: Promise<DatabaseHandle> };

/** The process-wide database, opened (and migrated) on first use from the environment. */
export function getDatabase(): Promise<DatabaseHandle> {
  if (!globalForDb.__memoryDb) {
    const opening = openFromEnv();
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
