import { sql } from "drizzle-orm";
import { PgTransaction } from "drizzle-orm/pg-core";
import { writeTargetOf } from "~/db/replicas";
import type { DbOrTx, Transaction } from "~/db/types";
import { describeError, log } from "~/server/log";

/**
 * Best-effort bookkeeping rows written after the request that made them (the query log, recall
 * counts): a row per search written on its own would be four round trips, half of a search's
 * statements. Outside a transaction rows are buffered per database handle and written together a
 * moment later, committed without waiting for the WAL; a crash loses at most the last delay's rows
 * and nothing else. Inside a caller's transaction they are written there, in a savepoint, so they
 * cannot abort it. A failed write is logged, never raised.
 */
export type BufferedWriter<Row> = {
  add: (db: DbOrTx, rows: readonly Row[]) => Promise<void>;
  /** Writes what is buffered for `db` now (shutdown, tests, before reading the rows back). */
  flush: (db: DbOrTx) => Promise<void>;
};

type Buffer<Row> = { rows: Row[]; timer?: ReturnType<typeof setTimeout>; flushing?: Promise<void> };

const writers = new Set<{ flushAll: () => Promise<void>; flush: (db: DbOrTx) => Promise<void> }>();

export function bufferedWriter<Row>(options: {
  /** What the rows are, for the warning when they could not be written. */
  what: string;
  delayMs: number;
  /** Rows per statement. */
  batchSize: number;
  /** `ownTransaction`: false inside a caller's transaction, where `set local` would outlive the savepoint. */
  write: (tx: Transaction, rows: readonly Row[], ownTransaction: boolean) => Promise<unknown>;
}): BufferedWriter<Row> {
  const buffers = new Map<DbOrTx, Buffer<Row>>();
  const warn = (error: unknown) => log("warn", `${options.what} not written: ${describeError(error)}`);

  async function writeAll(db: DbOrTx, rows: readonly Row[]) {
    // In a caller's transaction `set local` would outlive the savepoint: the caller's own commit would not wait for the WAL.
    const ownTransaction = !(db instanceof PgTransaction);
    try {
      for (let i = 0; i < rows.length; i += options.batchSize) {
        await db.transaction(async (tx) => {
          if (ownTransaction) await tx.execute(sql`set local synchronous_commit = off`);
          await options.write(tx, rows.slice(i, i + options.batchSize), ownTransaction);
        });
      }
    } catch (error) {
      warn(error);
    }
  }

  async function flush(handle: DbOrTx) {
    const db = writeTargetOf(handle);
    const buffer = buffers.get(db);
    if (!buffer) return;
    if (buffer.timer) clearTimeout(buffer.timer);
    buffer.timer = undefined;
    await buffer.flushing;
    const rows = buffer.rows.splice(0);
    if (rows.length === 0) {
      buffers.delete(db);
      return;
    }
    buffer.flushing = writeAll(db, rows);
    await buffer.flushing;
    buffer.flushing = undefined;
    if (buffer.rows.length === 0 && !buffer.timer) buffers.delete(db);
  }

  async function add(handle: DbOrTx, rows: readonly Row[]) {
    if (rows.length === 0) return;
    // Rows a read on a replica leaves behind are written on its primary (a standby takes no writes).
    const db = writeTargetOf(handle);
    if (db instanceof PgTransaction) {
      // The savepoint keeps a failed write from aborting the caller's transaction.
      await writeAll(db, rows);
      return;
    }
    const buffer = buffers.get(db) ?? { rows: [] };
    buffers.set(db, buffer);
    buffer.rows.push(...rows);
    buffer.timer ??= setTimeout(() => void flush(db), options.delayMs);
    // A timer alone must not keep a CLI or test process alive; exiting code calls flushBufferedWrites.
    buffer.timer.unref?.();
  }

  writers.add({ flush, flushAll: () => Promise.all([...buffers.keys()].map((db) => flush(db))).then(() => undefined) });
  return { add, flush };
}

/**
 * Writes every writer's buffered rows, for one database handle or all of them (graceful shutdown,
 * CLI exit, before a handle closes: a flush timer firing during close would open a connection the
 * pool is tearing down).
 */
export async function flushBufferedWrites(db?: DbOrTx): Promise<void> {
  await Promise.all([...writers].map((writer) => (db ? writer.flush(db) : writer.flushAll())));
}
