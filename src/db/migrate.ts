import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { queryRows } from "./raw";
import type { Database, Transaction } from "./types";

export const DEFAULT_MIGRATIONS_FOLDER = path.join(process.cwd(), "drizzle");
/** Arbitrary constant shared by every instance: `pg_advisory_xact_lock` key for migrations. */
const MIGRATION_LOCK_KEY = 727_011_001;

/** Holds the migrations' lock for the rest of `tx`: other instances' migrations (and schema work like the embedding index) wait. */
export const takeMigrationLock = (tx: Transaction) =>
  tx.execute(sql`select pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`);

export type MigrationFile = { index: number; tag: string; hash: string; statements: string[] };

export class MigrationError extends Error {
  constructor(
    message: string,
    readonly tag: string,
    readonly cause: unknown,
  ) {
    super(message);
    this.name = "MigrationError";
  }
}

/** Reads drizzle-kit's journal and the SQL files it names, split on its statement breakpoints. */
export function readMigrationFiles(folder = DEFAULT_MIGRATIONS_FOLDER): MigrationFile[] {
  const journalPath = path.join(folder, "meta", "_journal.json");
  if (!fs.existsSync(journalPath)) throw new Error(`No migrations journal at ${journalPath}`);
  const journal = JSON.parse(fs.readFileSync(journalPath, "utf8")) as { entries: { idx: number; tag: string }[] };
  return journal.entries.map((entry) => {
    const text = fs.readFileSync(path.join(folder, `${entry.tag}.sql`), "utf8");
    return {
      index: entry.idx,
      tag: entry.tag,
      hash: createHash("sha256").update(text).digest("hex"),
      statements: text
        .split("--> statement-breakpoint")
        .map((s) => s.trim())
        .filter((s) => s.replace(/--.*$/gm, "").trim().length > 0),
    };
  });
}

const ensureTableSql = sql`create table if not exists schema_migrations (
  id integer primary key,
  tag text not null,
  hash text not null,
  applied_at timestamptz not null default now()
)`;

export async function appliedMigrationTags(db: Database): Promise<string[]> {
  const exists = await queryRows<{ present: boolean }>(
    db,
    sql`select to_regclass('public.schema_migrations') is not null as present`,
  );
  if (!exists[0]?.present) return [];
  const rows = await queryRows<{ tag: string }>(db, sql`select tag from schema_migrations order by id`);
  return rows.map((r) => r.tag);
}

export async function pendingMigrations(db: Database, folder = DEFAULT_MIGRATIONS_FOLDER): Promise<MigrationFile[]> {
  const applied = new Set(await appliedMigrationTags(db));
  return readMigrationFiles(folder).filter((m) => !applied.has(m.tag));
}

/**
 * Applies every pending migration in ONE transaction under a transaction-scoped advisory lock:
 * instances starting together queue on the lock and the later ones find nothing left to do;
 * a failing statement rolls back everything this run did, so the database stays as it was.
 */
export async function runMigrations(
  db: Database,
  folder = DEFAULT_MIGRATIONS_FOLDER,
): Promise<{ applied: string[]; version: string | null }> {
  const files = readMigrationFiles(folder);
  let current = "";
  try {
    const applied = await db.transaction(async (tx) => {
      await takeMigrationLock(tx);
      await tx.execute(ensureTableSql);
      const done = new Set(
        (await queryRows<{ tag: string }>(tx, sql`select tag from schema_migrations`)).map((r) => r.tag),
      );
      const ran: string[] = [];
      for (const migration of files) {
        if (done.has(migration.tag)) continue;
        current = migration.tag;
        for (const statement of migration.statements) await tx.execute(sql.raw(statement));
        await tx.execute(
          sql`insert into schema_migrations (id, tag, hash) values (${migration.index}, ${migration.tag}, ${migration.hash})`,
        );
        ran.push(migration.tag);
      }
      return ran;
    });
    return { applied, version: files.at(-1)?.tag ?? null };
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new MigrationError(
      `Migration ${current || "(setup)"} failed: ${detail}. Every change of this run was rolled back; the database is as it was before start-up.`,
      current,
      error,
    );
  }
}

export async function schemaVersion(db: Database): Promise<string | null> {
  const tags = await appliedMigrationTags(db);
  return tags.at(-1) ?? null;
}
