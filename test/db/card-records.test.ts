import { asc, desc, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryCardRecordColumns, memoryNodes } from "~/db/schema";
import { selectCardRecords } from "~/server/memory/store/card-records";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { agentContext, createOp, createTenant, writeCards } from "../support/memory";

describe(`card records read without Drizzle's row mapper (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  beforeAll(async () => {
    handle = await openTestDatabase();
  });
  afterAll(async () => handle?.destroy());

  it("decode every column exactly as Drizzle's select does (dates, arrays, JSON, nulls)", async () => {
    const t = await createTenant(handle.db);
    const ctx = agentContext(t);
    await writeCards(
      handle.db,
      ctx,
      createOp(
        "food_avoidance",
        {
          title: "不吃香菜",
          content: "用户喜欢川菜，不吃香菜。",
          tags: ["food", "辣"],
          entities: ["川菜"],
          valueJson: { food: "香菜", reason: "dislike" },
        },
        { itemKey: "cilantro" },
      ),
      createOp(
        "custom_fact",
        { title: "Visa expires", content: "The visa ends in March.", expiresAt: "2031-03-01T00:00:00.000Z" },
        { itemKey: "visa" },
      ),
    );
    const where = eq(memoryNodes.tenantId, t);
    const viaDrizzle = await handle.db
      .select(memoryCardRecordColumns)
      .from(memoryNodes)
      .where(where)
      .orderBy(asc(memoryNodes.id));
    const fast = await selectCardRecords(handle.db, sql`where ${where} order by ${memoryNodes.id} asc`);
    expect(fast).toHaveLength(2);
    expect(fast).toStrictEqual(viaDrizzle);
    expect(fast[0]!.createdAt).toBeInstanceOf(Date);
  });

  it("keep the statement's order and limit (the records are built over the limited rows)", async () => {
    const t = await createTenant(handle.db);
    const ctx = agentContext(t);
    const importances = [0.3, 0.9, 0.1, 0.5, 0.7, 0.2, 0.8, 0.4, 0.6, 0.35, 0.95, 0.05];
    await writeCards(
      handle.db,
      ctx,
      ...importances.map((importance, i) =>
        createOp(
          "custom_fact",
          { title: `Fact ${i}`, content: `Fact number ${i}.`, importance },
          { itemKey: `fact_${i}` },
        ),
      ),
    );
    const where = eq(memoryNodes.tenantId, t);
    const viaDrizzle = await handle.db
      .select(memoryCardRecordColumns)
      .from(memoryNodes)
      .where(where)
      .orderBy(desc(memoryNodes.importance), asc(memoryNodes.id))
      .limit(7);
    const fast = await selectCardRecords(
      handle.db,
      sql`where ${where} order by ${memoryNodes.importance} desc, ${memoryNodes.id} asc limit 7`,
    );
    expect(fast.map((r) => r.importance)).toEqual([0.95, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4]);
    expect(fast).toStrictEqual(viaDrizzle);
  });
});
