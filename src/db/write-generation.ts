import type { PGlite, Transaction } from "@electric-sql/pglite";

/**
 * Per table, a counter of the statements that may have changed it in an embedded database, so that
 * a cache can tell "nothing was written to this table since I counted" from "something may have
 * been". Embedded Postgres (PGlite) runs in this process only (its data directory is locked), so
 * every write passes through the client wrapped here; a server database has other writers, and no
 * generation (undefined).
 */
type Counters = { everything: number; tables: Map<string, number> };

// Shared on globalThis with the database handle (Next.js bundles route handlers apart from start-up).
const counters = ((globalThis as Record<symbol, unknown>)[Symbol.for("agent-memory.writeGenerations")] ??= new WeakMap<
  object,
  Counters
>()) as WeakMap<object, Counters>;

/**
 * Changes no table: a plain read, a setting, a transaction's bounds (its statements count on their
 * own), and a common-table expression without a data-modifying word anywhere in it.
 */
const READ_STATEMENT =
  /^\s*(select|show|values|set|reset|begin|start\s+transaction|commit|end|rollback|savepoint|release)\b/i;
const WITH_STATEMENT = /^\s*with\b/i;
const MODIFYING_WORD = /\b(insert|update|delete|merge|truncate|copy)\b/i;
const isRead = (text: string) => READ_STATEMENT.test(text) || (WITH_STATEMENT.test(text) && !MODIFYING_WORD.test(text));
/**
 * The tables an insert, update or delete writes, wherever it stands (a common-table expression
 * leases jobs and counts rate limits with one), as drizzle and our own SQL write them. Not a
 * target: `for [no key] update` (a row lock) and `do update set` (an upsert's other half).
 */
const WRITE_TARGETS =
  /(?<!\b(?:do|for|key)\s+)\b(?:insert\s+into|update|delete\s+from)\s+(?:only\s+)?(?:"?\w+"?\.)?"?(\w+)"?/gi;
/** Writes whose tables are not read here: every table counts as written. */
const OTHER_WRITES = /\b(merge|truncate|copy)\b/i;

/** The tables `text` may write; undefined when that cannot be told (then: every table). */
function writtenTables(text: string): string[] | undefined {
  if (OTHER_WRITES.test(text)) return undefined;
  const tables = [...text.matchAll(WRITE_TARGETS)].map((m) => m[1]!.toLowerCase());
  return tables.length ? tables : undefined;
}

/**
 * Bumps the written table's generation for every insert, update or delete `client` runs, in or out
 * of a transaction, and every table's for any other statement that may write (a common-table
 * expression that modifies, DDL, `analyze`, `explain analyze`, several statements at once): a
 * statement read wrongly costs a cache a recount, never a stale answer. Transactions need no bump of their own: outside statements wait for them
 * (PGlite runs one at a time), and theirs bump as they run, before the commit makes them visible.
 */
export function trackWrites(db: object, client: PGlite): void {
  const own: Counters = { everything: 0, tables: new Map() };
  counters.set(db, own);
  const note = (text: string) => {
    if (isRead(text)) return;
    const tables = writtenTables(text);
    if (tables === undefined) own.everything++;
    else for (const table of tables) own.tables.set(table, (own.tables.get(table) ?? 0) + 1);
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
    // exec runs several statements at once: whatever they are, every table counts as written.
    target.exec = async (text, options) => {
      own.everything++;
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
