// `npm run db:migrate`: bring the configured database's schema up to this release without starting the
// server. It opens the database exactly as the server and the CLI do (`openDatabase` in src/db/client.ts:
// every pending migration in one transaction under the migration advisory lock; in embedded mode a copy
// of the data directory first when it already holds data, put back if the migration fails), ensures the
// HNSW index of the configured embedding model as the server's start-up does, prints what it did, and
// closes. Exit status 0 when the schema is current afterwards, 1 on any failure (nothing half-applied).
const say = (line: string) => console.log(`[db:migrate] ${line}`);

/** The server's address without credentials: user@host:port/database. */
function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.username ? `${decodeURIComponent(u.username)}@` : ""}${u.host}${u.pathname}`;
  } catch {
    return "(unparsable DATABASE_URL)";
  }
}

async function main(): Promise<number> {
  // Imported here so that an invalid environment is reported as a failure of this command, not as a stack trace.
  const { env } = await import("~/env");
  const { embeddedDataDir, openDatabase } = await import("~/db/client");
  const { appliedMigrationTags, readMigrationFiles } = await import("~/db/migrate");
  const { ensureEmbeddingIndex } = await import("~/db/embedding-index");

  const where = env.DATABASE_URL
    ? `server mode: Postgres ${describeUrl(env.DATABASE_URL)} (DATABASE_URL)`
    : `embedded mode: PGlite data directory ${embeddedDataDir()} (MEMORY_DATA_DIR)`;
  say(where);
  const shipped = readMigrationFiles().map((m) => m.tag);
  const handle = await openDatabase({ url: env.DATABASE_URL, poolMax: 2 });
  try {
    const outcome = handle.migration!;
    if (outcome.backupDir) say(`copied the data directory to ${outcome.backupDir} before migrating`);
    if (outcome.applied.length > 0) {
      say(`applied ${outcome.applied.length} migration(s):`);
      for (const tag of outcome.applied) say(`  ${tag}`);
    } else {
      say("no pending migrations: the schema was already current");
    }
    const inDatabase = await appliedMigrationTags(handle.db);
    const unknown = inDatabase.filter((tag) => !shipped.includes(tag));
    say(
      `schema version ${inDatabase.at(-1) ?? "(none)"} (${inDatabase.length - unknown.length} of this release's ${shipped.length} migration(s) applied${unknown.length ? `, plus ${unknown.length} it does not ship` : ""})`,
    );
    if (unknown.length)
      say(
        `warning: the database has migration(s) this release does not know (${unknown.join(", ")}): a newer release migrated it; run that release against it`,
      );
    const index = await ensureEmbeddingIndex(handle.db, env.EMBEDDING_MODEL, env.EMBEDDING_DIMENSIONS);
    say(
      `embedding index ${index} present (EMBEDDING_MODEL ${env.EMBEDDING_MODEL}, ${env.EMBEDDING_DIMENSIONS} dimensions)`,
    );
  } finally {
    await handle.close();
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`[db:migrate] failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
