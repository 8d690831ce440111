import type { PGlite, Transaction } from "@electric-sql/pglite";

/**
 * Per table, a counter of the statements that may have changed it in an embedded database, so that
 * a cache can tell "nothing was written to this table since I counted" from "something may have
 * been". Embedded Postgres (PGlite) runs in this process only (its data directory is locked), so
 * every write passes through the client wrapped here; a server database has other writers, and no
 * generation (undefined).
 */
type Counters = { everything: number; tables: Map<string, number> };

const counters = new WeakMap<object, Counters>();

/** A plain read: changes no table. */
const READ_STATEMENT = /^\s*(select|show|explain|values)\b/i;
/** The one table an insert, update or delete writes (as drizzle and our own SQL write them). */
const WRITE_TARGET = /^\s*(?:insert\s+into|update|delete\s+from)\s+(?:only\s+)?(?:"?\w+"?\.)?"?(\w+)"?[\s(]/i;

/**
 * Bumps the written table's generation for every insert, update or delete `client` runs, in or out
 * of a transaction, and every table's for any other statement that is not a plain read (a
 * common-table expression, DDL, `analyze`): a statement read wrongly costs a cache a recount, never
 * a stale answer. Transactions need no bump of their own: outside statements wait for them
 * (PGlite runs one at a time), and theirs bump as they run, before the commit makes them visible.
 */
export function trackWrites(db: object, client: PGlite): void {
  const own: Counters = { everything: 0, tables: new Map() };
  counters.set(db, own);
  const note = (text: string) => {
    if (READ_STATEMENT.test(text)) return;
    const table = WRITE_TARGET.exec(text)?.[1]?.toLowerCase();
    if (table === undefined) own.everything++;
    else own.tables.set(table, (own.tables.get(table) ?? 0) + 1);
  };
  const watch = <T extends Pick<Transaction, "query" | "exec" | "sql">>(target: T): T => {
    const query = target.query.bind(target);
    const exec = target.exec.bind(target);
    const sql = target.sql.bind(target);
    // A tagged-template statement is not read here: it counts as a write to every table.
    target.sql = async (strings, ...values) => {
      own.everything++;
      return sql(strings, ...values);
    };
    target.query = async (text, params, options) => {
      note(text);
      return query(text, params, options);
    };
    target.exec = async (text, options) => {
      note(text);
      return exec(text, options);
    };
    return target;
  };
  watch(client);
  const transaction = client.transaction.bind(client);
  client.transaction = async (callback) => transaction((tx) => callback(watch(tx)));
}

/**
 * A number that changes whenever `table` of `db` may have been written; undefined where writes are
 * not all seen here (a server database, a transaction handle).
 */
export function writeGeneration(db: object, table: string): number | undefined {
  const own = counters.get(db);
  return own && own.everything + (own.tables.get(table) ?? 0);
}
