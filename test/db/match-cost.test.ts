import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "~/db/client";
import { readTextMatchCost, setTextMatchCost, TEXT_MATCH_COST } from "~/db/match-cost";
import { queryRows } from "~/db/raw";
import { memorySearch } from "~/server/memory/retrieval/search";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { agentContext, createTenant, noVectors } from "../support/memory";

describe(`the full-text match's price for the planner (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  let tenantId: string;
  beforeAll(async () => {
    handle = await openTestDatabase();
    tenantId = await createTenant(handle.db);
    // 1,800 messages in user u1's scope, their search text segmented as the service writes it:
    // everyday chatter, and one line in six about the garden (a sixth of the scope holds the question's words).
    await handle.db.execute(sql`
      insert into memory_messages (tenant_id, id, session_id, user_scope_id, role, content, content_hash, captured_by_type, search_text)
      select ${tenantId}, 'm' || i, 's1', 'u1', 'user', line.text, md5(i::text), 'system', line.text
        from generate_series(1, 1800) as i,
        lateral (select case when i % 6 = 0 then '花园 番茄 浇水 花 园 番 茄 浇 水 day ' || i
                             else '今天 天气 不错 我们 聊聊 电影 音乐 和 晚饭 吃 什么 line ' || i end as text) line`);
    await handle.db.execute(sql`analyze memory_messages`);
  });
  afterAll(async () => handle?.destroy());

  const matchCost = (db = handle.db) => readTextMatchCost(db);
  const setMatchCost = (cost: number) => setTextMatchCost(handle.db, cost);
  const search = async () => {
    const result = await memorySearch(
      handle.db,
      agentContext(tenantId),
      { queryText: "花园的番茄浇水了吗", includeEvidence: true, limit: 10 },
      noVectors,
    );
    return result.evidence ?? [];
  };

  it.runIf(TEST_BACKEND === "pglite")(
    "prices tsvector @@ tsquery at what it costs on the embedded database",
    async () => {
      expect(await matchCost()).toBe(TEXT_MATCH_COST);
    },
  );

  it.runIf(TEST_BACKEND === "postgres")("leaves a server database's price as its administrator set it", async () => {
    await setMatchCost(3);
    const reopened = await openDatabase({ url: handle.url!, poolMax: 1 });
    try {
      expect(await matchCost(reopened.db)).toBe(3);
    } finally {
      await reopened.close();
      await setMatchCost(1);
    }
  });

  it.runIf(TEST_BACKEND === "pglite")(
    "takes a sixth of a scope from the GIN index instead of testing every row",
    async () => {
      const plan = await queryRows<Record<string, string>>(
        handle.db,
        sql`explain select id from memory_messages
           where tenant_id = ${tenantId} and user_scope_id = any(${"{u1}"}::text[])
             and search_vector @@ to_tsquery('simple', ${"'花园' | '番茄' | '浇水'"})`,
      );
      const text = plan.map((r) => Object.values(r)[0]).join("\n");
      expect(text).toContain("memory_messages_search_idx");
      expect(text).not.toContain("Seq Scan");
    },
  );

  it.runIf(TEST_BACKEND === "pglite")("finds the same rows by the index as by testing every row", async () => {
    const byIndex = await search();
    expect(byIndex).toHaveLength(10);
    expect(byIndex.every((hit) => hit.content.startsWith("花园 番茄 浇水"))).toBe(true);
    await setMatchCost(1);
    try {
      const byScan = await search();
      expect(byScan.map((hit) => [hit.id, hit.score])).toEqual(byIndex.map((hit) => [hit.id, hit.score]));
    } finally {
      await setMatchCost(TEXT_MATCH_COST);
    }
  });
});
