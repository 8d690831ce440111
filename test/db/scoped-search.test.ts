import { sql, type SQL } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "~/db/raw";
import { SCOPE_TYPES, SCOPED_SEARCH_VECTOR_IN_QUERY } from "~/db/schema";
import { cardTextCondition } from "~/server/dashboard/cards";
import { loadKindRegistry } from "~/server/memory/kinds/custom";
import { parseScopePattern, type ScopePattern } from "~/server/memory/scope";
import { scopePatternsCondition, scopePatternsFilter } from "~/server/memory/store/scope-sql";
import { buildTsQueryText } from "~/server/text/segment";
import { cardWhere } from "~/server/memory/retrieval/card-search";
import { queryTerms } from "~/server/memory/retrieval/query-terms";
import { scopeLexeme, scopesTsQuery } from "~/server/memory/retrieval/scope-lexemes";
import { fullTextHits } from "~/server/memory/retrieval/signals";
import { CARD_SOURCE } from "~/server/memory/retrieval/text-sources";
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

  /** The plain `where` and the scoped match's (scope lexemes, scopes as a filter), as search builds them. */
  const matchParams = async (tenantId: string, scopes: ScopePattern[]) => {
    const base = {
      tenantId,
      scopes,
      filter: {},
      registry: await loadKindRegistry(handle.db, tenantId),
      statuses: ["active" as const],
    };
    return {
      where: cardWhere(base),
      scoped: { query: scopesTsQuery(tenantId, scopes)!, where: cardWhere({ ...base, indexable: false }) },
    };
  };

  it("computes the same scope lexeme as the database, Chinese scope ids included", async () => {
    const tenantId = await createTenant(handle.db);
    const scopes = ["user:u1", "session:会话-1", "workspace:w1", "context:app/项目"];
    const ctx = agentContext(tenantId, {
      readScopes: scopes.map(parseScopePattern),
      writeScopes: scopes.map(parseScopePattern),
    });
    await writeCards(
      handle.db,
      ctx,
      ...scopes.map((scope, i) =>
        create(
          "custom_fact",
          { title: `Lexeme ${i}`, content: "Scope lexeme check." },
          { scope, itemKey: `lexeme_${i}` },
        ),
      ),
    );
    // Each card's indexed vector holds exactly the lexeme TypeScript computes for its scope.
    for (const scope of scopes) {
      const [row] = await queryRows<{ scope: string }>(
        handle.db,
        sql`select scope_type || ':' || scope_id as scope from memory_nodes where tenant_id = ${tenantId} and ${sql.raw(SCOPED_SEARCH_VECTOR_IN_QUERY)} @@ ${scopesTsQuery(tenantId, [parseScopePattern(scope)])}::tsquery`,
      );
      expect(row?.scope).toBe(scope);
    }
    // Every card also carries its scope type's lexeme: "session:*" finds the session card and no other.
    const [wildcard, ...others] = await queryRows<{ scope: string }>(
      handle.db,
      sql`select scope_type || ':' || scope_id as scope from memory_nodes where tenant_id = ${tenantId} and ${sql.raw(SCOPED_SEARCH_VECTOR_IN_QUERY)} @@ ${scopesTsQuery(tenantId, [parseScopePattern("session:*")])}::tsquery`,
    );
    expect([wildcard?.scope, others.length]).toEqual(["session:会话-1", 0]);
    // The global scope's id is empty (agents cannot write there; the expression is checked directly).
    const [global] = await queryRows<{ lexeme: string }>(
      handle.db,
      sql`select '#' || md5(${tenantId} || '|' || 'global' || ':' || '') as lexeme`,
    );
    expect(scopeLexeme(tenantId, { type: "global", id: "" })).toBe(global!.lexeme);
  });

  it("never matches a query word, prefix words included, on a card's scope lexeme", async () => {
    const tenantId = await createTenant(handle.db);
    // A scope whose lexeme's hex begins with four letters, so that a Latin query word of that
    // spelling becomes a prefix term in search (and any word is a prefix in the dashboard).
    const hexOf = (id: string) => scopeLexeme(tenantId, { type: "workspace", id }).slice(1);
    const startsWithPrefixTerm = (hex: string) => {
      const [term] = queryTerms(hex.slice(0, 4));
      // …and not one that starts a word of the card below ("fact", from its kind).
      return (
        /^[a-f]{4}/.test(hex) && term?.prefix === true && hex.startsWith(term.term) && !"fact".startsWith(term.term)
      );
    };
    let scopeId = "w0";
    for (let i = 1; !startsWithPrefixTerm(hexOf(scopeId)); i++) scopeId = `w${i}`;
    const hex = hexOf(scopeId);
    const scope = `workspace:${scopeId}`;
    const ctx = agentContext(tenantId, {
      readScopes: [parseScopePattern(scope)],
      writeScopes: [parseScopePattern(scope)],
    });
    await writeCards(
      handle.db,
      ctx,
      create(
        "custom_fact",
        { title: "Unrelated", content: "Nothing about hex here." },
        { scope, itemKey: "unrelated" },
      ),
    );
    // The dashboard makes every word a prefix: the scope lexeme must add no match to the card's own words.
    for (const word of [hex.slice(0, 1), hex.slice(0, 4), hex]) {
      const scoped = await queryRows<{ id: string }>(
        handle.db,
        sql`select id from memory_nodes where tenant_id = ${tenantId} and ${cardTextCondition(word)}`,
      );
      const plain = await queryRows<{ id: string }>(
        handle.db,
        sql`select id from memory_nodes where tenant_id = ${tenantId} and search_vector @@ to_tsquery('simple', ${buildTsQueryText([word], { prefix: true })})`,
      );
      expect(scoped, `dashboard text "${word}"`).toEqual(plain);
      if (word.length > 1) expect(scoped).toEqual([]);
    }
    const { where, scoped } = await matchParams(tenantId, [parseScopePattern(scope)]);
    const terms = queryTerms(hex.slice(0, 4));
    for (const match of [undefined, scoped])
      expect(await fullTextHits(handle.db, { source: CARD_SOURCE, where, terms, limit: 10, scoped: match })).toEqual(
        [],
      );
  });

  it("finds the same cards with and without the scope lexemes, and none of another tenant", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId);
    const neighbour = agentContext(await createTenant(handle.db));
    await writeCards(
      handle.db,
      neighbour,
      create(
        "custom_fact",
        { title: "Okapi sighting", content: "An okapi in the neighbour's notes." },
        { itemKey: "okapi_n" },
      ),
    );
    const ids = await writeCards(
      handle.db,
      ctx,
      create(
        "custom_fact",
        { title: "Okapi sighting", content: "An okapi near the river." },
        { itemKey: "okapi_u", scope: "user:u1" },
      ),
      create(
        "custom_fact",
        { title: "Okapi budget", content: "The okapi project budget." },
        { itemKey: "okapi_w", scope: "workspace:w1" },
      ),
      create(
        "custom_fact",
        { title: "Okapi in session", content: "Talked about an okapi." },
        { itemKey: "okapi_s", scope: "session:s1" },
      ),
      create(
        "custom_fact",
        { title: "Okapi elsewhere", content: "Another session's okapi." },
        { itemKey: "okapi_s2", scope: "session:s2" },
      ),
    );
    const terms = queryTerms("okapi");
    // One session, and every session (a member's default grant): the wildcard has a lexeme too.
    const cases: [string[], string[]][] = [
      [["user:u1", "workspace:w1", "session:s1", "global"], ids.slice(0, 3)],
      [["user:u1", "workspace:w1", "session:*", "global"], ids],
      [["session:*"], ids.slice(2)],
      // An admin reads every scope type (effectiveUserScopes' wildcards, which agents' grants cannot hold).
      [SCOPE_TYPES.map((type) => `${type}:*`), ids],
    ];
    const patternOf = (text: string): ScopePattern =>
      text.endsWith(":*") ? { type: text.slice(0, -2) as ScopePattern["type"], id: "*" } : parseScopePattern(text);
    for (const [patterns, expected] of cases) {
      const { where, scoped: match } = await matchParams(tenantId, patterns.map(patternOf));
      const plain = await fullTextHits(handle.db, { source: CARD_SOURCE, where, terms, limit: 10 });
      const scoped = await fullTextHits(handle.db, { source: CARD_SOURCE, where, terms, limit: 10, scoped: match });
      expect(
        scoped.map((h) => h.id),
        patterns.join(", "),
      ).toEqual(plain.map((h) => h.id));
      expect(scoped.map((h) => h.id).sort(), patterns.join(", ")).toEqual([...expected].sort());
    }
  });

  it("admits exactly the cards of the indexed scope condition when the scopes are written as a filter", async () => {
    const tenantId = await createTenant(handle.db);
    const all = ["user:u1", "user:u1:x", "session:会话-1", "session:s2", "workspace:w1", "context:app/项目"];
    const ctx = agentContext(tenantId, {
      readScopes: all.map(parseScopePattern),
      writeScopes: all.map(parseScopePattern),
    });
    await writeCards(
      handle.db,
      ctx,
      ...all.map((scope, i) =>
        create(
          "custom_fact",
          { title: `Filter ${i}`, content: "Scope filter check." },
          { scope, itemKey: `filter_${i}` },
        ),
      ),
    );
    const patternSets = [
      ["user:u1"],
      ["user:u1:x", "session:*"],
      ["session:会话-1", "context:app/项目", "global"],
      ["workspace:w2"],
      [],
    ];
    for (const patterns of patternSets) {
      const scopes = patterns.map(parseScopePattern);
      const idsWhere = async (condition: SQL) =>
        (
          await queryRows<{ id: string }>(
            handle.db,
            sql`select id from memory_nodes where tenant_id = ${tenantId} and ${condition} order by id`,
          )
        ).map((r) => r.id);
      const indexed = await idsWhere(scopePatternsCondition(scopes));
      expect(await idsWhere(scopePatternsFilter(scopes)), patterns.join(", ")).toEqual(indexed);
    }
  });

  it.runIf(TEST_BACKEND === "postgres")("matches on the indexed expression (the index serves the query)", async () => {
    const tenantId = await createTenant(handle.db);
    const plan = await handle.db.transaction(async (tx) => {
      // Tiny tables are scanned whatever the indexes; this asks whether the index *can* serve it.
      await tx.execute(sql`set local enable_seqscan = off`);
      const query = `'${scopeLexeme(tenantId, { type: "user", id: "u1" })}'`;
      return queryRows<Record<string, string>>(
        tx,
        sql`explain select id from memory_nodes where ${sql.raw(SCOPED_SEARCH_VECTOR_IN_QUERY)} @@ (to_tsquery('simple', 'okapi') && ${query}::tsquery)`,
      );
    });
    expect(plan.map((row) => Object.values(row)[0]).join("\n")).toContain("memory_nodes_scoped_search_idx");
  });
});
