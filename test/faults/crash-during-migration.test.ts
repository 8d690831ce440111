/**
 * Fault 2: the process is SIGKILLed in the middle of a migration (after its first DDL, inside a
 * slow statement). All pending migrations run in one transaction, so afterwards the database has
 * the old schema and none of the new migration; the next normal start applies it completely.
 */
import fs from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "~/db/client";
import { lockOwnerPid } from "~/db/embedded-lock";
import { queryRows } from "~/db/raw";
import { memoryNodes } from "~/db/schema";
import type { Database } from "~/db/types";
import { memoryWrite } from "~/server/memory/write/write";
import { createEmptyServerDatabase } from "../support/db";
import { agentContext, createTenant } from "../support/memory";
import {
  copyPgliteTemplate,
  describeServer,
  FaultChild,
  KEEPER_CONTENT,
  migrationsWithExtra,
  processIsAlive,
  sleep,
  withApplicationName,
} from "./support";

const SLEEP_S = 2;
/** Creates a table, sleeps (the kill lands here), then alters the new table and an existing one. */
const slowMigration = () =>
  migrationsWithExtra("fault_slow", [
    `CREATE TABLE "fault_slow" ("id" integer PRIMARY KEY)`,
    `SELECT pg_sleep(${SLEEP_S})`,
    `ALTER TABLE "fault_slow" ADD COLUMN "note" text`,
    `ALTER TABLE "memory_nodes" ADD COLUMN "fault_flag" boolean`,
    `INSERT INTO "fault_slow" ("id", "note") VALUES (1, 'done')`,
  ]);

type SchemaState = { tagApplied: boolean; table: boolean; noteColumn: boolean; flagColumn: boolean; rows: number };

async function schemaState(db: Database, tag: string): Promise<SchemaState> {
  const [row] = await queryRows<{ tag_applied: boolean; tbl: boolean; note: boolean; flag: boolean }>(
    db,
    sql`select exists (select 1 from schema_migrations where tag = ${tag}) as tag_applied,
          to_regclass('public.fault_slow') is not null as tbl,
          exists (select 1 from information_schema.columns where table_schema = 'public' and table_name = 'fault_slow' and column_name = 'note') as note,
          exists (select 1 from information_schema.columns where table_schema = 'public' and table_name = 'memory_nodes' and column_name = 'fault_flag') as flag`,
  );
  const rows = row!.tbl
    ? Number((await queryRows<{ n: number }>(db, sql`select count(*)::int as n from fault_slow`))[0]!.n)
    : 0;
  return { tagApplied: row!.tag_applied, table: row!.tbl, noteColumn: row!.note, flagColumn: row!.flag, rows };
}

const OLD: SchemaState = { tagApplied: false, table: false, noteColumn: false, flagColumn: false, rows: 0 };
const NEW: SchemaState = { tagApplied: true, table: true, noteColumn: true, flagColumn: true, rows: 1 };

/** Writes one card before the upgrade; it must be there, unchanged, in the old and in the new schema. */
async function writeKeeper(db: Database, tenantId: string) {
  const result = await memoryWrite(db, agentContext(tenantId), {
    operations: [
      {
        op: "create",
        kind: "custom_fact",
        itemKey: "keeper",
        explicitUserIntent: true,
        node: { title: "Keeper", content: KEEPER_CONTENT },
      },
    ],
  });
  expect(result.done).toBe(true);
}

async function keeperContents(db: Database) {
  return (await db.select({ content: memoryNodes.content }).from(memoryNodes)).map((r) => r.content);
}

/** Numeric relation files under base/: a new one means the migration's CREATE TABLE has run. */
function relationFiles(dataDir: string): Set<string> {
  const files = new Set<string>();
  const base = path.join(dataDir, "base");
  for (const db of fs.readdirSync(base))
    for (const f of fs.readdirSync(path.join(base, db))) if (/^\d+$/.test(f)) files.add(`${db}/${f}`);
  return files;
}

describe("SIGKILL during a migration: embedded (PGlite data dir)", () => {
  it("reopens with the old schema and data (WAL recovery), the pre-migration backup is intact, and the next start migrates fully", async () => {
    const dataDir = copyPgliteTemplate(); // holds the keeper card already
    const before = relationFiles(dataDir);
    const { folder, tag } = slowMigration();

    const child = new FaultChild("migrate.ts", { dataDir, migrationsFolder: folder });
    await child.waitFor((e) => e.event === "opening", 60_000);
    // Kill once the migration transaction has created its table's file (it is now inside pg_sleep).
    const deadline = Date.now() + 60_000;
    while (![...relationFiles(dataDir)].some((f) => !before.has(f))) {
      if (Date.now() > deadline || child.proc.exitCode !== null) throw new Error("the migration never started");
      await sleep(20);
    }
    await child.kill();
    expect(child.named("migrated")).toEqual([]);
    const backups = fs.readdirSync(path.join(path.dirname(dataDir), "backups"));
    expect(backups).toHaveLength(1);
    const owner = lockOwnerPid(`${dataDir}.lock`);
    expect(owner).toEqual(expect.any(Number));
    expect(processIsAlive(owner!)).toBe(false);

    // An old build starting on this directory: stale lock taken over, crash recovery, old schema, data intact.
    const old = await openDatabase({ dataDir });
    expect(await schemaState(old.db, tag)).toEqual(OLD);
    expect(await keeperContents(old.db)).toEqual([KEEPER_CONTENT]);
    await old.close();

    // The copy taken just before the killed migration is a consistent old-schema database too.
    const backup = await openDatabase({
      dataDir: path.join(path.dirname(dataDir), "backups", backups[0]!),
      migrate: false,
    });
    expect(await schemaState(backup.db, tag)).toEqual(OLD);
    expect(await keeperContents(backup.db)).toEqual([KEEPER_CONTENT]);
    await backup.close();

    // The new build starting normally applies the whole migration.
    const upgraded = await openDatabase({ dataDir, migrationsFolder: folder });
    expect(await schemaState(upgraded.db, tag)).toEqual(NEW);
    expect(await keeperContents(upgraded.db)).toEqual([KEEPER_CONTENT]);
    await upgraded.close();
    fs.rmSync(path.dirname(dataDir), { recursive: true, force: true });
    fs.rmSync(folder, { recursive: true, force: true });
  });
});

describeServer("SIGKILL during a migration: server (Postgres)", () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const fn of cleanup.reverse()) await fn();
  });

  it("shows none of the migration while the orphaned backend is still sleeping, and the next start (waiting on the lock) applies all of it", async () => {
    const { url, drop } = await createEmptyServerDatabase();
    cleanup.push(drop);
    const first = await openDatabase({ url, poolMax: 2 });
    await writeKeeper(first.db, await createTenant(first.db));
    await first.close();
    const { folder, tag } = slowMigration();
    const observer = await openDatabase({ url, poolMax: 1, migrate: false });
    cleanup.push(() => observer.close());
    const admin = postgres(url, { max: 1, onnotice: () => {} });
    cleanup.push(() => admin.end());

    const child = new FaultChild("migrate.ts", {
      url: withApplicationName(url, "fault-migrator"),
      migrationsFolder: folder,
    });
    const deadline = Date.now() + 60_000;
    const sleeping = () =>
      admin`select pid from pg_stat_activity where datname = current_database() and application_name = 'fault-migrator' and state = 'active' and query ilike '%pg_sleep%'`;
    let orphan: number | undefined;
    while (orphan === undefined) {
      if (Date.now() > deadline || child.proc.exitCode !== null)
        throw new Error("the migration never reached pg_sleep");
      orphan = (await sleeping())[0]?.pid as number | undefined;
      if (orphan === undefined) await sleep(20);
    }
    await child.kill();
    expect(child.named("migrated")).toEqual([]);

    // The dead client's backend is still inside pg_sleep, its transaction open; nothing of it is visible.
    expect((await sleeping()).map((r) => r.pid)).toEqual([orphan]);
    expect(await schemaState(observer.db, tag)).toEqual(OLD);
    expect(await keeperContents(observer.db)).toEqual([KEEPER_CONTENT]);

    // A normal start: waits on the migration lock until the orphan notices its client is gone and rolls back, then migrates.
    const upgraded = await openDatabase({ url, poolMax: 2, migrationsFolder: folder });
    expect(await schemaState(upgraded.db, tag)).toEqual(NEW);
    expect(await keeperContents(upgraded.db)).toEqual([KEEPER_CONTENT]);
    const left =
      await admin`select count(*)::int as n from pg_stat_activity where datname = current_database() and application_name = 'fault-migrator'`;
    expect(left[0]!.n).toBe(0);
    await upgraded.close();
    fs.rmSync(folder, { recursive: true, force: true });
  });
});
