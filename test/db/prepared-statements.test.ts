import { eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "~/db/client";
import { queryRows } from "~/db/raw";
import { memoryNodes } from "~/db/schema";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";

/**
 * Server mode prepares each statement text once per connection: unprepared, postgres.js first asks
 * for the parameter types of every statement with parameters (a round trip of its own).
 */
describe.runIf(TEST_BACKEND === "postgres")(`prepared statements (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  beforeAll(async () => {
    handle = await openTestDatabase();
  });
  afterAll(async () => handle?.destroy());

  const preparedCount = async (preparedStatements: boolean) => {
    const one = await openDatabase({ url: handle.url!, migrate: false, poolMax: 1, preparedStatements });
    try {
      for (const tenant of ["ten_a", "ten_b", "ten_c"])
        await one.db.select({ id: memoryNodes.id }).from(memoryNodes).where(eq(memoryNodes.tenantId, tenant));
      // In a transaction (a reserved connection) as well.
      await one.db.transaction(async (tx) => {
        await tx.select({ id: memoryNodes.id }).from(memoryNodes).where(eq(memoryNodes.id, "mem_x"));
      });
      const [row] = await queryRows<{ n: number | string }>(
        one.db,
        sql`select count(*) as n from pg_prepared_statements where statement like '%from "memory_nodes" where%'`,
      );
      return Number(row?.n ?? 0);
    } finally {
      await one.close();
    }
  };

  it("prepares each statement text once per connection, in and out of transactions", async () => {
    expect(await preparedCount(true)).toBe(2);
  });

  it("leaves bulk statements (over 200 parameters) unprepared: their text changes with the row count", async () => {
    const one = await openDatabase({ url: handle.url!, migrate: false, poolMax: 1 });
    try {
      const ids = Array.from({ length: 201 }, (_, i) => `mem_${i}`);
      await one.db.select({ id: memoryNodes.id }).from(memoryNodes).where(inArray(memoryNodes.id, ids));
      const [row] = await queryRows<{ n: number | string }>(
        one.db,
        sql`select count(*) as n from pg_prepared_statements where statement like '%from "memory_nodes" where%'`,
      );
      expect(Number(row?.n ?? 0)).toBe(0);
    } finally {
      await one.close();
    }
  });

  it("keeps statements unprepared when turned off (poolers without prepared statements)", async () => {
    expect(await preparedCount(false)).toBe(0);
  });
});
