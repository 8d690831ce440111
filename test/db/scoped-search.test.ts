import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "~/db/raw";
import { SCOPED_SEARCH_VECTOR_IN_QUERY } from "~/db/schema";
import { loadKindRegistry } from "~/server/memory/custom-kinds";
import { parseScopePattern } from "~/server/memory/scope";
import { nodeWhere } from "~/server/memory/retrieval/node-search";
import { queryTerms } from "~/server/memory/retrieval/query-terms";
import { scopeLexeme, scopesTsQuery } from "~/server/memory/retrieval/scope-lexemes";
import { fullTextHits, NODE_SOURCE } from "~/server/memory/retrieval/signals";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { agentContext, createOp as create, createTenant, writeCards } from "../support/memory";

/**
 * Cards are matched by terms and scope in one GIN index (memory_nodes_scoped_search_idx): the
 * indexed vector carries a lexeme per tenant and scope, computed in SQL at write time and in
 * TypeScript at query time. Both must agree, and the query must use the indexed expression.
 */
describe(`scoped full-text index (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  beforeAll(async () => {
    handle = await openTestDatabase();
  });
  afterAll(async () => handle?.destroy());

  it("computes the same scope lexeme as the database, Chinese scope ids included", async () => {
    const tenantId = await createTenant(handle.db);
    const scopes = ["user:u1", "session:会话-1", "workspace:w1", "context:app/项目"];
    const ctx = agentContext(tenantId, { readScopes: scopes.map(parseScopePattern), writeScopes: scopes.map(parseScopePattern) });
    await writeCards(handle.db, ctx, ...scopes.map((scope, i) => create("custom_fact", { title: `Lexeme ${i}`, content: "Scope lexeme check." }, { scope, itemKey: `lexeme_${i}` })));
    const rows = await queryRows<{ scope_type: string; scope_id: string; lexeme: string }>(
      handle.db,
      sql`select scope_type, scope_id, md5(tenant_id || '|' || scope_type || ':' || scope_id) as lexeme from memory_nodes where tenant_id = ${tenantId}`,
    );
    expect(rows).toHaveLength(scopes.length);
    for (const row of rows) expect(scopeLexeme(tenantId, { type: row.scope_type, id: row.scope_id })).toBe(row.lexeme);
    // The global scope's id is empty.
    const [global] = await queryRows<{ lexeme: string }>(handle.db, sql`select md5(${tenantId} || '|' || 'global' || ':' || '') as lexeme`);
    expect(scopeLexeme(tenantId, { type: "global", id: "" })).toBe(global!.lexeme);
  });

  it("finds the same cards with and without the scope lexemes, and none of another tenant", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId);
    const neighbour = agentContext(await createTenant(handle.db));
    await writeCards(handle.db, neighbour, create("custom_fact", { title: "Okapi sighting", content: "An okapi in the neighbour's notes." }, { itemKey: "okapi_n" }));
    const ids = await writeCards(
      handle.db,
      ctx,
      create("custom_fact", { title: "Okapi sighting", content: "An okapi near the river." }, { itemKey: "okapi_u", scope: "user:u1" }),
      create("custom_fact", { title: "Okapi budget", content: "The okapi project budget." }, { itemKey: "okapi_w", scope: "workspace:w1" }),
      create("custom_fact", { title: "Okapi in session", content: "Talked about an okapi." }, { itemKey: "okapi_s", scope: "session:s1" }),
      create("custom_fact", { title: "Okapi elsewhere", content: "Another session's okapi." }, { itemKey: "okapi_s2", scope: "session:s2" }),
    );
    const scopes = ["user:u1", "workspace:w1", "session:s1", "global"].map(parseScopePattern);
    const where = nodeWhere({ tenantId, scopes, filter: {}, registry: await loadKindRegistry(handle.db, tenantId), statuses: ["active"] });
    const terms = queryTerms("okapi");
    const plain = await fullTextHits(handle.db, { source: NODE_SOURCE, where, terms, limit: 10 });
    const scoped = await fullTextHits(handle.db, { source: NODE_SOURCE, where, terms, limit: 10, scopeQuery: scopesTsQuery(tenantId, scopes) });
    expect(scoped.map((h) => h.id)).toEqual(plain.map((h) => h.id));
    expect(scoped.map((h) => h.id).sort()).toEqual(ids.slice(0, 3).sort());
    expect(scopesTsQuery(tenantId, ["session:*"].map(parseScopePattern))).toBeUndefined();
  });

  it.runIf(TEST_BACKEND === "postgres")("matches on the indexed expression (the index serves the query)", async () => {
    const tenantId = await createTenant(handle.db);
    const plan = await handle.db.transaction(async (tx) => {
      // Tiny tables are scanned whatever the indexes; this asks whether the index *can* serve it.
      await tx.execute(sql`set local enable_seqscan = off`);
      const query = `'${scopeLexeme(tenantId, { type: "user", id: "u1" })}'`;
      return queryRows<Record<string, string>>(tx, sql`explain select id from memory_nodes where ${sql.raw(SCOPED_SEARCH_VECTOR_IN_QUERY)} @@ (to_tsquery('simple', 'okapi') && ${query}::tsquery)`);
    });
    expect(plan.map((row) => Object.values(row)[0]).join("\n")).toContain("memory_nodes_scoped_search_idx");
  });
});
