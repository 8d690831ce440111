import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "~/db/client";
import { DataDirectoryLockedError } from "~/db/embedded-lock";
import { embeddingIndexName, ensureEmbeddingIndex } from "~/db/embedding-index";
import { DEFAULT_MIGRATIONS_FOLDER, MigrationError, readMigrationFiles, runMigrations } from "~/db/migrate";
import { queryRows } from "~/db/raw";
import { memoryEmbeddings, tenants, users } from "~/db/schema";
import { newId } from "~/server/ids";
import { appendMessages } from "~/server/memory/evidence/messages";
import type { Database } from "~/db/types";
import { createEmptyServerDatabase, openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";

const EXPECTED_TABLES = [
  "users",
  "accounts",
  "sessions",
  "verification_tokens",
  "tenants",
  "tenant_members",
  "workspaces",
  "api_keys",
  "scope_grants",
  "idempotency_keys",
  "rate_limit_buckets",
  "memory_messages",
  "memory_summaries",
  "memory_nodes",
  "memory_embeddings",
  "memory_audit_events",
  "memory_kinds",
  "memory_query_log",
  "memory_chunks",
  "memory_topics",
  "memory_chunk_topics",
  "memory_tree_summaries",
  "memory_jobs",
];

/** A copy of the real migrations plus one more, named `<next index>_<name>`, with the given SQL. */
function migrationsWithExtra(name: string, statements: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "memory-migrations-"));
  fs.cpSync(DEFAULT_MIGRATIONS_FOLDER, dir, { recursive: true });
  const journalPath = path.join(dir, "meta", "_journal.json");
  const journal = JSON.parse(fs.readFileSync(journalPath, "utf8")) as {
    entries: { idx: number; tag: string; when: number; version: string; breakpoints: boolean }[];
  };
  const idx = journal.entries.length;
  const tag = `${String(idx).padStart(4, "0")}_${name}`;
  journal.entries.push({ idx, tag, when: Date.now(), version: "7", breakpoints: true });
  fs.writeFileSync(journalPath, JSON.stringify(journal));
  fs.writeFileSync(path.join(dir, `${tag}.sql`), statements);
  return dir;
}

/** A copy of the real migrations plus one that creates a table and then fails. */
function migrationsWithBrokenTail(): string {
  return migrationsWithExtra(
    "broken",
    `CREATE TABLE "half_done" ("id" integer);\n--> statement-breakpoint\nALTER TABLE "users" ADD COLUMN "nickname" text;\n--> statement-breakpoint\nSELECT no_such_function();`,
  );
}

async function tableNames(db: Database): Promise<string[]> {
  const rows = await queryRows<{ name: string }>(
    db,
    sql`select table_name as name from information_schema.tables where table_schema = 'public'`,
  );
  return rows.map((r) => r.name);
}

async function columnNames(db: Database, table: string): Promise<string[]> {
  const rows = await queryRows<{ name: string }>(
    db,
    sql`select column_name as name from information_schema.columns where table_schema = 'public' and table_name = ${table}`,
  );
  return rows.map((r) => r.name);
}

describe(`migrations (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  beforeAll(async () => {
    handle = await openTestDatabase();
  });
  afterAll(async () => handle?.destroy());

  it("takes an empty database to the latest schema, with every table and both extensions", async () => {
    const tables = await tableNames(handle.db);
    for (const table of EXPECTED_TABLES) expect(tables).toContain(table);
    const extensions = await queryRows<{ extname: string }>(handle.db, sql`select extname from pg_extension`);
    expect(extensions.map((e) => e.extname)).toEqual(expect.arrayContaining(["vector", "pg_trgm"]));
    const applied = await queryRows<{ tag: string }>(handle.db, sql`select tag from schema_migrations order by id`);
    expect(applied.map((r) => r.tag)).toEqual(readMigrationFiles().map((m) => m.tag));
  });

  it("declares the indexes search needs (GIN tsvector, GIN trigram, tenant-leading keys)", async () => {
    const indexes = await queryRows<{ indexname: string; indexdef: string }>(
      handle.db,
      sql`select indexname, indexdef from pg_indexes where schemaname = 'public'`,
    );
    const byName = new Map(indexes.map((i) => [i.indexname, i.indexdef]));
    // The cards' vector with a tenant-and-scope lexeme (see SCOPED_SEARCH_VECTOR).
    expect(byName.get("memory_nodes_scoped_search_idx")).toMatch(
      /USING gin \(+search_vector \|\| array_to_tsvector\(ARRAY\[\('#'::text \|\| md5\(/,
    );
    expect(byName.get("memory_nodes_trgm_idx")).toMatch(/gin_trgm_ops/);
    expect(byName.get("memory_messages_session_idx")).toMatch(/\(tenant_id, session_id, seq\)/);
    expect(byName.get("memory_nodes_tenant_id_id_pk")).toMatch(/\(tenant_id, id\)/);
    expect(byName.get("memory_nodes_active_slot_uq")).toMatch(/WHERE \(status = 'active'/);
    expect(byName.get("memory_nodes_standing_idx")).toMatch(/WHERE \(\(status = .active.::text\) AND/);
  });

  it("gives no GIN index a pending list, so a search never scans unsorted new rows", async () => {
    const gin = await queryRows<{ name: string; options: string[] | null }>(
      handle.db,
      sql`select c.relname as name, c.reloptions as options from pg_class c join pg_am a on a.oid = c.relam join pg_namespace n on n.oid = c.relnamespace
          where a.amname = 'gin' and n.nspname = 'public'`,
    );
    expect(gin.length).toBeGreaterThanOrEqual(12);
    for (const index of gin)
      expect({ index: index.name, options: index.options }).toEqual({
        index: index.name,
        options: ["fastupdate=false"],
      });
  });

  it("creates one HNSW expression index per embedding model, idempotently, and uses it for that model", async () => {
    const name = await ensureEmbeddingIndex(handle.db, "test-model", 3);
    expect(await ensureEmbeddingIndex(handle.db, "test-model", 3)).toBe(name);
    const [index] = await queryRows<{ indexdef: string }>(
      handle.db,
      sql`select indexdef from pg_indexes where indexname = ${name}`,
    );
    expect(index?.indexdef).toMatch(
      /USING hnsw \(\(\(embedding\)::vector\(3\)\) vector_cosine_ops\) WHERE \(\(model = 'test-model'::text\) AND \(dimensions = 3\)\)/,
    );
  });

  it("moves a model to a new dimension: the old size's index goes, rows of both sizes coexist, inserts of the new size work", async () => {
    const tenantId = newId("ten");
    await handle.db.insert(tenants).values({ id: tenantId, name: "dims", slug: tenantId });
    const { messages } = await appendMessages(
      handle.db,
      { tenantId, actor: { type: "system", id: null } },
      {
        sessionId: "dims",
        messages: [
          { role: "user", content: "one" },
          { role: "user", content: "two" },
        ],
      },
    );
    const vector = (n: number) => Array.from({ length: n }, (_, i) => (i + 1) / n);
    const insert = (messageId: string, dimensions: number) =>
      handle.db.insert(memoryEmbeddings).values({
        tenantId,
        id: newId("emb"),
        messageId,
        model: "resized-model",
        dimensions,
        embedding: vector(dimensions),
        contentHash: "h",
      });
    const small = await ensureEmbeddingIndex(handle.db, "resized-model", 3);
    await insert(messages[0]!.id, 3);
    const large = await ensureEmbeddingIndex(handle.db, "resized-model", 4);
    await insert(messages[1]!.id, 4);
    const names = (
      await queryRows<{ name: string }>(
        handle.db,
        sql`select indexname as name from pg_indexes where indexname like 'memory_embeddings_hnsw_resized%'`,
      )
    ).map((r) => r.name);
    expect(names).toEqual([large]);
    expect(names).not.toContain(small);
    // Another model's index is left alone.
    expect(
      (
        await queryRows(
          handle.db,
          sql`select 1 from pg_indexes where indexname = ${embeddingIndexName("test-model", 3)}`,
        )
      ).length,
    ).toBe(1);
  });

  it("is a no-op when run again", async () => {
    const second = await runMigrations(handle.db);
    expect(second.applied).toEqual([]);
  });

  it("rolls a failing migration back completely and says which one failed", async () => {
    const folder = migrationsWithBrokenTail();
    const error = await runMigrations(handle.db, folder).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MigrationError);
    expect((error as MigrationError).message).toMatch(/_broken failed: .*no_such_function/);
    expect((error as MigrationError).message).toMatch(/rolled back/);
    expect(await tableNames(handle.db)).not.toContain("half_done");
    expect(await columnNames(handle.db, "users")).not.toContain("nickname");
    const applied = await queryRows<{ tag: string }>(handle.db, sql`select tag from schema_migrations`);
    expect(applied.some((r) => r.tag.endsWith("_broken"))).toBe(false);
  });
});

describe.runIf(TEST_BACKEND === "postgres")("server mode start-up", () => {
  it("lets two instances start together: one migrates, the other waits and finds nothing to do; one builds a new model's index", async () => {
    const { url, drop } = await createEmptyServerDatabase();
    try {
      const [a, b] = await Promise.all([
        openDatabase({ url, migrate: false, poolMax: 2 }),
        openDatabase({ url, migrate: false, poolMax: 2 }),
      ]);
      const [ra, rb] = await Promise.all([runMigrations(a.db), runMigrations(b.db)]);
      expect([...ra.applied, ...rb.applied].sort()).toEqual(
        readMigrationFiles()
          .map((m) => m.tag)
          .sort(),
      );
      expect(Math.min(ra.applied.length, rb.applied.length)).toBe(0);
      // Both then ensure the index of a model new to the database, at once: one builds it, the other finds it.
      for (let round = 0; round < 3; round++) {
        const names = await Promise.all([
          ensureEmbeddingIndex(a.db, `fresh-model-${round}`, 8),
          ensureEmbeddingIndex(b.db, `fresh-model-${round}`, 8),
        ]);
        expect(names[0]).toBe(names[1]);
      }
      await Promise.all([a.close(), b.close()]);
    } finally {
      await drop();
    }
  });

  it("refuses to start on a failed migration and leaves the data as it was", async () => {
    const { url, drop } = await createEmptyServerDatabase();
    try {
      const first = await openDatabase({ url, poolMax: 2 });
      await first.db.insert(users).values({ id: "usr_keep", email: "keep@example.com" });
      await first.close();
      await expect(openDatabase({ url, poolMax: 2, migrationsFolder: migrationsWithBrokenTail() })).rejects.toThrow(
        MigrationError,
      );
      const again = await openDatabase({ url, poolMax: 2 });
      expect(await again.db.select().from(users)).toHaveLength(1);
      expect(await columnNames(again.db, "users")).not.toContain("nickname");
      await again.close();
    } finally {
      await drop();
    }
  });
});

describe.runIf(TEST_BACKEND === "pglite")("embedded data directory", () => {
  const dir = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), "memory-embedded-")), "pglite");

  it("keeps data across restarts", async () => {
    const dataDir = dir();
    const first = await openDatabase({ dataDir });
    await first.db.insert(users).values({ id: "usr_persist", email: "persist@example.com" });
    await first.close();
    const second = await openDatabase({ dataDir });
    expect((await second.db.select().from(users)).map((u) => u.email)).toEqual(["persist@example.com"]);
    await second.close();
  });

  it("lets only one process-level owner open it; a second open gets a clear error", async () => {
    const dataDir = dir();
    const first = await openDatabase({ dataDir });
    // Simulate another live process owning the lock.
    const lockPath = `${dataDir}.lock`;
    const mine = fs.readFileSync(lockPath, "utf8");
    fs.writeFileSync(lockPath, String(process.ppid));
    const error = await openDatabase({ dataDir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DataDirectoryLockedError);
    expect((error as Error).message).toMatch(/already in use by process/);
    fs.writeFileSync(lockPath, mine);
    await first.close();
    expect(fs.existsSync(lockPath)).toBe(false);
  });

  it("says on the handle what opening applied: everything when new, nothing when current, the copy taken before migrating data", async () => {
    const dataDir = dir();
    const first = await openDatabase({ dataDir });
    expect(first.migration).toEqual({
      applied: readMigrationFiles().map((m) => m.tag),
      version: readMigrationFiles().at(-1)!.tag,
      backupDir: null,
    });
    await first.db.insert(users).values({ id: "usr_outcome", email: "outcome@example.com" });
    await first.close();
    const current = await openDatabase({ dataDir });
    expect(current.migration).toEqual({ applied: [], version: readMigrationFiles().at(-1)!.tag, backupDir: null });
    await current.close();
    const folder = migrationsWithExtra("extra", `CREATE TABLE "extra_table" ("id" integer);`);
    const upgraded = await openDatabase({ dataDir, migrationsFolder: folder });
    const tag = readMigrationFiles(folder).at(-1)!.tag;
    expect(upgraded.migration?.applied).toEqual([tag]);
    expect(upgraded.migration?.version).toBe(tag);
    expect(upgraded.migration?.backupDir).toMatch(/backups[/\\]pglite-/);
    expect(fs.existsSync(upgraded.migration!.backupDir!)).toBe(true);
    await upgraded.close();
    const unmigrated = await openDatabase({ dataDir, migrate: false });
    expect(unmigrated.migration).toBeNull();
    await unmigrated.close();
  });

  it("npm run db:migrate (scripts/migrate.ts) migrates, reports, and exits 1 with the reason when it cannot", () => {
    const dataRoot = path.dirname(dir());
    const run = () =>
      spawnSync(process.execPath, ["--import", "tsx", "scripts/migrate.ts"], {
        cwd: path.resolve(import.meta.dirname, "../.."),
        env: { ...process.env, DATABASE_URL: "", MEMORY_DATA_DIR: dataRoot, NODE_ENV: "production" },
        encoding: "utf8",
        timeout: 60_000,
      });
    const first = run();
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toContain(`embedded mode: PGlite data directory ${path.join(dataRoot, "pglite")}`);
    expect(first.stdout).toContain(`applied ${readMigrationFiles().length} migration(s):`);
    expect(first.stdout).toContain(`schema version ${readMigrationFiles().at(-1)!.tag}`);
    const second = run();
    expect(second.status, second.stderr).toBe(0);
    expect(second.stdout).toContain("no pending migrations: the schema was already current");
    fs.writeFileSync(path.join(dataRoot, "pglite.lock"), String(process.pid));
    const locked = run();
    fs.rmSync(path.join(dataRoot, "pglite.lock"));
    expect(locked.status).toBe(1);
    expect(locked.stderr).toMatch(/\[db:migrate\] failed: The embedded database at .* is already in use by process/);
  });

  it("refuses to open a missing database as a new, empty one while copies of it exist", async () => {
    const dataDir = dir();
    const first = await openDatabase({ dataDir });
    await first.db.insert(users).values({ id: "usr_kept", email: "kept@example.com" });
    await first.close();
    // A copy taken before some migration, then the database itself gone (a restore that died halfway, a mistake).
    fs.mkdirSync(path.join(path.dirname(dataDir), "backups"), { recursive: true });
    fs.cpSync(
      dataDir,
      path.join(path.dirname(dataDir), "backups", `${path.basename(dataDir)}-2026-01-01T00-00-00-000Z`),
      { recursive: true },
    );
    fs.rmSync(dataDir, { recursive: true, force: true });
    const error = await openDatabase({ dataDir }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/missing or empty, but copies of it exist .*backups.*2026-01-01/);
    expect(fs.existsSync(path.join(dataDir, "PG_VERSION"))).toBe(false);
    // Restored as the docs say, it opens with its data.
    fs.cpSync(
      path.join(path.dirname(dataDir), "backups", `${path.basename(dataDir)}-2026-01-01T00-00-00-000Z`),
      dataDir,
      { recursive: true },
    );
    const restored = await openDatabase({ dataDir });
    expect((await restored.db.select().from(users)).map((u) => u.email)).toContain("kept@example.com");
    await restored.close();
  });

  it("backs the directory up before a migration and restores it when the migration fails", async () => {
    const dataDir = dir();
    const first = await openDatabase({ dataDir });
    await first.db.insert(users).values({ id: "usr_safe", email: "safe@example.com" });
    await first.close();
    const error = await openDatabase({ dataDir, migrationsFolder: migrationsWithBrokenTail() }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(MigrationError);
    expect((error as Error).message).toMatch(
      /restored as it was before \(from the copy taken first, .*backups.*, removed since\)/,
    );
    // The copy is the directory again: a service restarted in a loop on the failing migration must not
    // add a full copy per attempt.
    const again0 = await openDatabase({ dataDir, migrationsFolder: migrationsWithBrokenTail() }).catch(
      (e: unknown) => e,
    );
    expect(again0).toBeInstanceOf(MigrationError);
    expect(fs.readdirSync(path.join(path.dirname(dataDir), "backups"))).toEqual([]);
    expect(fs.readdirSync(path.dirname(dataDir)).filter((name) => /\.(failed|restoring)-/.test(name))).toEqual([]);
    const again = await openDatabase({ dataDir });
    expect((await again.db.select().from(users)).map((u) => u.email)).toEqual(["safe@example.com"]);
    expect(await tableNames(again.db)).not.toContain("half_done");
    await again.close();
  });
});
