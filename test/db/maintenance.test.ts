import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "~/db/raw";
import { maintainEmbeddedDatabase, scheduleMaintenance } from "~/server/jobs/maintenance";
import { termShares } from "~/server/memory/retrieval/term-shares";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { agentContext, createOp as create, createTenant, writeCards } from "../support/memory";

describe(`embedded database maintenance (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  beforeAll(async () => {
    handle = await openTestDatabase();
  });
  afterAll(async () => handle?.destroy());

  it("gives the planner and search their statistics (PGlite has no autovacuum to do it)", async () => {
    const ctx = agentContext(await createTenant(handle.db));
    await writeCards(
      handle.db,
      ctx,
      ...Array.from({ length: 30 }, (_, i) =>
        create(
          "custom_fact",
          { title: `Note ${i}`, content: `The walrus report, part ${i}.` },
          { itemKey: `walrus_${i}` },
        ),
      ),
    );
    const stats = () =>
      queryRows<{ n: number | string }>(
        handle.db,
        sql`select count(*) as n from pg_stats where tablename = 'memory_nodes' and attname = 'search_vector'`,
      );
    const ms = await maintainEmbeddedDatabase(handle.db);
    expect(ms).toBeGreaterThan(0);
    expect(Number((await stats())[0]!.n)).toBe(1);
    const shares = await termShares(handle.db, "memory_nodes", { maxAgeMs: 0 });
    expect(shares.get("walrus")).toBeGreaterThan(0.5);
  });

  it("runs on its timer and stops when aborted", async () => {
    const stop = new AbortController();
    const before = await queryRows<{ n: number | string }>(
      handle.db,
      sql`select coalesce(sum(vacuum_count + autovacuum_count), 0) as n from pg_stat_user_tables where relname = 'memory_nodes'`,
    );
    scheduleMaintenance(handle.db, { vacuum: true, signal: stop.signal, firstAfterMs: 10, everyMs: 60_000 });
    await new Promise((r) => setTimeout(r, 1500));
    stop.abort();
    const after = await queryRows<{ n: number | string }>(
      handle.db,
      sql`select coalesce(sum(vacuum_count + autovacuum_count), 0) as n from pg_stat_user_tables where relname = 'memory_nodes'`,
    );
    expect(Number(after[0]!.n)).toBeGreaterThan(Number(before[0]!.n));
  });
});
