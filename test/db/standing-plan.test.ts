import { sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "~/db/raw";
import { parseScopePattern } from "~/server/memory/scope";
import { standingCardsStatement } from "~/server/memory/retrieval/context-parts";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { createTenant } from "../support/memory";

const literal = (value: unknown) =>
  value === null ? "null" : `'${(value instanceof Date ? value.toISOString() : String(value)).replace(/'/g, "''")}'`;

/**
 * memory_context reads a turn's standing cards on every call. Its statement must be able to use
 * memory_nodes_standing_idx (and memory_nodes_workspace_facts_idx for a workspace's facts) in a cached (generic) plan, where parameters are unknown: with the
 * index's kind and type lists sent as parameters, Postgres could not prove the partial index
 * applies and planned the statement afresh on every call (1.4 ms of a context call's Postgres time
 * under load; docs/history/performance-rounds.md, round 8).
 */
describe(`standing cards statement (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  beforeAll(async () => {
    handle = await openTestDatabase();
  });
  afterAll(async () => handle?.destroy());

  it("uses the partial standing and workspace-facts indexes in a generic plan", async () => {
    const tenantId = await createTenant(handle.db);
    const scopes = ["user:u1", "workspace:w1", "session:s1", "global"].map(parseScopePattern);
    const query = new PgDialect().sqlToQuery(standingCardsStatement({ tenantId, scopes, now: new Date() }));
    const plan = await handle.db.transaction(async (tx) => {
      // Tiny tables are scanned whatever the indexes; this asks which index a cached plan *can* use.
      await tx.execute(
        sql`select set_config('plan_cache_mode', 'force_generic_plan', true), set_config('enable_seqscan', 'off', true)`,
      );
      await tx.execute(sql.raw(`prepare standing_plan_check as ${query.sql}`));
      const rows = await queryRows<Record<string, string>>(
        tx,
        sql.raw(`explain execute standing_plan_check(${query.params.map(literal).join(", ")})`),
      );
      await tx.execute(sql.raw("deallocate standing_plan_check"));
      return rows.map((row) => Object.values(row)[0]).join("\n");
    });
    expect(plan).toContain("memory_nodes_standing_idx");
    expect(plan).toContain("memory_nodes_workspace_facts_idx");
  });
});
