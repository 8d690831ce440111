import type { ReservedSql, Sql } from "postgres";
import { isConnectionLost } from "./connection-errors";
import type { PoolStats } from "./pool-stats";

// How the server driver (postgres.js) is wrapped for this project: prepared statements, and
// transactions that survive a dropped connection. client.ts opens the driver and applies both.

/**
 * Makes every statement a named prepared statement of its connection (postgres.js keeps one per
 * statement text and connection). Drizzle runs its queries unprepared, and postgres.js then asks the
 * server for the parameter types of each one before running it: two round trips per statement, the
 * first only to describe it. Prepared, that happens once per text and connection. `enabled` false
 * (DB_PREPARED_STATEMENTS) keeps the unprepared form, for poolers that cannot hold prepared statements.
 */
const MAX_PREPARED_PARAMETERS = 200;

export function withPreparedStatements(client: Sql, enabled: boolean): Sql {
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
export function withDropSafeTransactions(client: Sql, stats: PoolStats): Sql {
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
