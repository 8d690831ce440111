import { is } from "drizzle-orm";
import { getTableConfig, integer, PgTable, pgTable, text } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import * as schema from "~/db/schema";
import { LINEAGE_ERASURE } from "~/server/memory/forget/erase";
import {
  TENANT_AUDIT_TABLE,
  TENANT_MEMORY_TABLES,
  TENANT_TABLES_WITHOUT_MEMORY,
} from "~/server/memory/forget/tenant-tables";

const tableName = (table: PgTable) => getTableConfig(table).name;

/** Every table of the schema with a tenant_id column: what an erasure of a tenant's memory must decide about. */
function tenantTables(exports: Record<string, unknown>): PgTable[] {
  return Object.values(exports).filter(
    (value): value is PgTable =>
      is(value, PgTable) && getTableConfig(value).columns.some((c) => c.name === "tenant_id"),
  );
}

/** Names of the tenant tables in none of the lists, and of those in more than one. */
function unsorted(tables: PgTable[]) {
  const lists = [
    Object.values(TENANT_MEMORY_TABLES),
    [TENANT_AUDIT_TABLE],
    Object.values(TENANT_TABLES_WITHOUT_MEMORY),
  ];
  const placed = (table: PgTable) => lists.filter((list) => (list as PgTable[]).includes(table)).length;
  return {
    unlisted: tables.filter((t) => placed(t) === 0).map(tableName),
    twice: tables.filter((t) => placed(t) > 1).map(tableName),
  };
}

describe("tenant memory tables", () => {
  it("sorts every tenant table of the schema into memory, audit or not-memory, exactly once", () => {
    const tables = tenantTables(schema);
    expect(tables.map(tableName)).toEqual(
      expect.arrayContaining(["memory_nodes", "memory_messages", "api_keys", "memory_audit_events"]),
    );
    // Add a new tenant table to TENANT_MEMORY_TABLES (erased with the tenant) or, if it holds no
    // memory, to TENANT_TABLES_WITHOUT_MEMORY.
    expect(unsorted(tables)).toEqual({ unlisted: [], twice: [] });
  });

  it("would catch a new tenant table that no list names", () => {
    const memoryNotes = pgTable("memory_notes", { tenantId: text("tenant_id").notNull(), body: text("body") });
    const counters = pgTable("counters", { n: integer("n") });
    expect(unsorted(tenantTables({ ...schema, memoryNotes, counters }))).toEqual({
      unlisted: ["memory_notes"],
      twice: [],
    });
  });

  it("lists only schema tables that carry tenant_id, and says what a lineage erasure does with each memory table", () => {
    const tables = tenantTables(schema);
    for (const table of [
      ...Object.values(TENANT_MEMORY_TABLES),
      TENANT_AUDIT_TABLE,
      ...Object.values(TENANT_TABLES_WITHOUT_MEMORY),
    ]) {
      expect(tables, tableName(table)).toContain(table);
    }
    expect(Object.keys(LINEAGE_ERASURE).sort()).toEqual(Object.keys(TENANT_MEMORY_TABLES).sort());
  });
});
