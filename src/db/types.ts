import type { PgDatabase, PgQueryResultHKT, PgTransaction } from "drizzle-orm/pg-core";
import type { ExtractTablesWithRelations } from "drizzle-orm";
import type * as schema from "./schema";

export type Schema = typeof schema;
/** The one database type every query function takes, whichever driver is behind it. */
export type Database = PgDatabase<PgQueryResultHKT, Schema>;
export type Transaction = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Query functions accept either, so a caller can compose them inside its own transaction. */
export type DbOrTx = Database | Transaction;

export type DatabaseMode = "embedded" | "server";
