import fs from "node:fs";
import path from "node:path";
import type { ReservedSql, Sql } from "postgres";
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
import { registerPoolStats, type PoolStats } from "./pool-stats";
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
 * Makes every statement a named prepared statement of its connection (postgres.js keeps one per
 * statement text and connection). Drizzle runs its queries unprepared, and postgres.js then asks the
 * server for the parameter types of each one before running it: two round trips per statement, the
 * first only to describe it. Prepared, that happens once per text and connection. `enabled` false
 * (DB_PREPARED_STATEMENTS) keeps the unprepared form, for poolers that cannot hold prepared statements.
 */
const MAX_PREPARED_PARAMETERS = 200;

function withPreparedStatements(client: Sql, enabled: boolean): Sql {
  if (!enabled) return client;
  const prepareAll = <C extends Pick<Sql, "unsafe">>(target: C): C => {
    const unsafe = target.unsafe.bind(target);
    // Bulk statements (many rows of parameters) stay unprepared: their text changes with the row
    // count, so each size would stay prepared on every connection, and one describe is cheap next to them.
    const prepared = (query: string, params?: unknown[], options?: { prepare?: boolean }) =>
      unsafe(query, params as never, { ...options, prepare: (params?.length ?? 0) <= MAX_PREPARED_PARAMETERS });
    return Object.assign(target, { unsafe: prepared as unknown as Sql["unsafe"] });
  };
  // Transactions run on reserved connections (withDropSafeTransactions): theirs are prepared too.
  const reserve = client.reserve.bind(client);
  return Object.assign(prepareAll(client), { reserve: async () => prepareAll(await reserve()) });
}

/**
 * A transaction's connection: each statement is queued on it when created, not when first awaited
 * (postgres.js otherwise waits for `then`), so statements go out in the order the code issued
 * them — a statement started before COMMIT is sent is ahead of it on the wire even when nobody
 * awaited it yet (see pipelined.ts). The first failure is kept: COMMIT after a failed statement
 * rolls back, and begin() reports that failure instead of a success.
 */
type TrackedConnection = ReservedSql & { firstFailure: () => unknown };

function trackStatements(reserved: ReservedSql): TrackedConnection {
  const unsafe = reserved.unsafe.bind(reserved);
  let failure: unknown;
  const started = (...args: Parameters<ReservedSql["unsafe"]>) => {
    const query = unsafe(...args).execute();
    query.catch((error: unknown) => {
      failure ??= error;
    });
    return query;
  };
  return Object.assign(reserved, { unsafe: started as unknown as ReservedSql["unsafe"], firstFailure: () => failure });
}

/**
 * Replaces postgres.js `sql.begin` (what Drizzle's transactions use) with one on a reserved connection.
 * postgres.js 3.4.9's own begin() writes ROLLBACK to a connection the server has just dropped
 * (restart, failover, pg_terminate_backend, idle-in-transaction timeout): that either throws an
 * uncatchable TypeError from a setImmediate (porsager/postgres#1133, #1208) or leaves the pool slot
 * with a stale write buffer, after which every reconnect of it ends in CONNECT_TIMEOUT. Here nothing
 * more is written to a lost connection and it is not released (the pool has already put it back to
 * reconnect cleanly); any other failure rolls back and releases as before. Reserving is retried when
 * the connection it got died or failed to start, since no statement has run yet.
 * Covered by test/faults/connection-drop.test.ts; see docs/reliability.md.
 */
function withDropSafeTransactions(client: Sql, stats: PoolStats): Sql {
  const begin = async (...args: unknown[]) => {
    const fn = args.at(-1) as (tx: Sql) => unknown;
    const options = args.length > 1 ? String(args[0]).replace(/[^a-z ]/gi, "") : "";
    let conn: ReservedSql | undefined;
    for (let attempt = 1; !conn; attempt++) {
      try {
        stats.waiting++;
        try {
          conn = await client.reserve();
        } finally {
          stats.waiting--;
        }
      } catch (error) {
        // A dead backend's stale FATAL, or a connection that closed while starting: nothing ran, try another.
        // Timeouts and refusals are not retried (the server is away; the caller should hear so promptly).
        const code = (error as { code?: unknown }).code;
        if (attempt >= 3 || !["57P01", "57P02", "57P03", "CONNECTION_CLOSED", "ECONNRESET"].includes(String(code)))
          throw error;
      }
    }
    const reserved = trackStatements(conn);
    stats.reserved++;
    let lost = false;
    let savepoints = 0;
    // Drizzle's nested transactions call `savepoint` on the transaction's client.
    const savepoint = async (cb: (tx: Sql) => unknown) => {
      const name = `s${++savepoints}`;
      await reserved.unsafe(`savepoint ${name}`);
      try {
        const result = await cb(scoped);
        await reserved.unsafe(`release savepoint ${name}`);
        return result;
      } catch (error) {
        if (!isConnectionLost(error)) await reserved.unsafe(`rollback to savepoint ${name}`);
        throw error;
      }
    };
    const scoped = Object.assign(reserved, { savepoint }) as unknown as Sql;
    try {
      // A plain BEGIN cannot fail on an idle reserved connection except by losing it (then every
      // statement after it fails too), so it is not awaited alone: it goes out in one write with the
      // transaction's first statements, saving a round trip. BEGIN with options is awaited first.
      const began = reserved.unsafe(`begin ${options}`);
      if (options) await began;
      else began.catch(() => {}); // awaited below
      const result = await fn(scoped);
      await began;
      const committed = await reserved.unsafe("commit");
      // A statement the callback did not await failed: Postgres answered COMMIT with ROLLBACK.
      if (committed.command === "ROLLBACK")
        throw (
          reserved.firstFailure() ?? new Error("The transaction was rolled back by the database; nothing was written.")
        );
      return result;
    } catch (error) {
      lost = isConnectionLost(error);
      if (!lost) {
        await reserved.unsafe("rollback").catch((rollbackError: unknown) => {
          lost = isConnectionLost(rollbackError);
        });
      }
      throw error;
    } finally {
      stats.reserved--;
      if (!lost) reserved.release();
    }
  };
  return Object.assign(client, { begin }) as Sql;
}

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
    const finalClient = client;
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
