import { and, eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordFromJson } from "~/server/memory/store/card-records";
import { loadKindRegistry } from "~/server/memory/kinds/custom";
import { cardWhere } from "~/server/memory/retrieval/card-search";
import { queryTerms } from "~/server/memory/retrieval/query-terms";
import { fullTextHits } from "~/server/memory/retrieval/signals";
import { CARD_SOURCE } from "~/server/memory/retrieval/text-sources";
import { memoryCardRecordColumns, memoryNodes, memoryNodeUsage } from "~/db/schema";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { agentContext, createOp as create, createTenant, writeCards } from "../support/memory";

/**
 * Search reads its top cards' rows from the full-text statement itself when the match is small
 * (recordsUpTo): those records must be exactly what Drizzle's own select of the columns returns,
 * for every column type — text arrays, jsonb of every shape, reals, timestamps with and without a value.
 */
describe(`full-text candidates with their records (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  beforeAll(async () => {
    handle = await openTestDatabase();
  });
  afterAll(async () => handle?.destroy());

  it("returns records equal to Drizzle's select, and none past the cap", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId);
    const ids = await writeCards(
      handle.db,
      ctx,
      create(
        "custom_fact",
        {
          title: "Quokka colony",
          content: "A quokka colony on the island.",
          valueJson: { count: 12, where: "Rottnest", 嵌套: ["一", 2, null] },
          tags: ["wildlife", "澳洲"],
        },
        { itemKey: "quokka_1" },
      ),
      create(
        "custom_fact",
        { title: "Quokka photo", content: "The quokka selfie, taken at 9:05.", valueJson: "123" },
        { itemKey: "quokka_2" },
      ),
      create(
        "custom_fact",
        {
          title: "Quokka diet",
          content: "Quokkas eat leaves; it's 'grass' mostly \"and\" bark \\ twigs.",
          expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
          confidence: 0.333333,
          importance: 0.1,
        },
        { itemKey: "quokka_3" },
      ),
      create(
        "custom_fact",
        { title: "Quokka count", content: "Quokka numbers fell 3.5 %.", valueJson: 3.5 },
        { itemKey: "quokka_4" },
      ),
      create(
        "custom_fact",
        { title: "Quokka null", content: "A quokka note whose value is the word null.", valueJson: "null" },
        { itemKey: "quokka_5" },
      ),
    );
    // An ended revision, so that column holds a value too, and recalls, whose hotness rides with the record.
    await handle.db.execute(
      sql`update memory_nodes set ended_at = now() - interval '1 day' where tenant_id = ${tenantId} and id = ${ids[0]!}`,
    );
    await handle.db
      .insert(memoryNodeUsage)
      .values({ tenantId, nodeId: ids[0]!, recallCount: 3, lastRecalledAt: new Date(), hotness: 0.125 });
    const where = cardWhere({
      tenantId,
      scopes: ctx.readScopes,
      filter: {},
      registry: await loadKindRegistry(handle.db, tenantId),
      statuses: ["active"],
    });
    const terms = queryTerms("quokka");

    const hits = await fullTextHits(handle.db, { source: CARD_SOURCE, where, terms, limit: 10, recordsUpTo: 10 });
    expect(hits.map((h) => h.id).sort()).toEqual([...ids].sort());
    const viaDrizzle = await handle.db
      .select(memoryCardRecordColumns)
      .from(memoryNodes)
      .where(and(eq(memoryNodes.tenantId, tenantId), inArray(memoryNodes.id, ids)));
    const expected = new Map(viaDrizzle.map((row) => [row.id, { ...row, hotness: row.id === ids[0] ? 0.125 : 0 }]));
    // JSON strings that are themselves JSON text stay strings (both drivers parsed jsonb before Drizzle did, twice in all).
    expect(expected.get(ids[1]!)?.valueJson).toBe("123");
    expect(expected.get(ids[4]!)?.valueJson).toBe("null");
    expect(expected.get(ids[0]!)?.valueJson).toEqual({ count: 12, where: "Rottnest", 嵌套: ["一", 2, null] });
    for (const hit of hits) {
      expect(hit.record).toBeDefined();
      expect(recordFromJson(hit.record as unknown[])).toEqual(expected.get(hit.id));
    }

    // More matches than the cap: ids only (the caller reads the rows it needs).
    const capped = await fullTextHits(handle.db, { source: CARD_SOURCE, where, terms, limit: 10, recordsUpTo: 4 });
    expect(capped.map((h) => h.id).sort()).toEqual(hits.map((h) => h.id).sort());
    expect(capped.every((h) => h.record === undefined)).toBe(true);
    // Not asked: no records.
    const plain = await fullTextHits(handle.db, { source: CARD_SOURCE, where, terms, limit: 10 });
    expect(plain.every((h) => h.record === undefined)).toBe(true);
  });
});
