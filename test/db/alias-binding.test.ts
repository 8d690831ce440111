import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RankingFeature } from "~/server/memory/retrieval/ranking-features";
import { appendMessages } from "~/server/memory/evidence/messages";
import { parseScopePattern } from "~/server/memory/scope";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { agentContext, appendLog, createTenant, evidenceWithout } from "../support/memory";

/** A log naming people once and then speaking of them by their relation, or the other way round. */
const LOG = [
  "我的牙医全名是周强，之前没说过。",
  "今天中午吃了面条。",
  "周强最近很忙。",
  "周强说要请我吃饭。",
  "周强约我下周见面。",
  "张飞每年十月二号过生日。",
  "刘燕三月五号过生日。",
  "晚上看了一部电影。",
  "哦对，我的牙医九月二十七号过生日。",
  "对了，一直没说，我堂姐叫李怡霞。",
  "李怡霞家里有只仓鼠，叫奶茶。",
  "张飞养了一只猫，叫团子。",
  "刘燕家的狗叫七喜，是条边牧。",
  "我堂姐又升职了。",
  "孙斌磊是我同事。",
  "我同事张鹏新养了一只鹦鹉。",
  "下周要交报告。",
];

describe(`a name and the relation a log binds it to (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  beforeAll(async () => {
    handle = await openTestDatabase();
  });
  afterAll(async () => handle?.destroy());

  it("stand for each other in a question, when the caller's scope binds the relation to that name only", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId, { readScopes: ["user:u1", "session:*"].map(parseScopePattern) });
    const ids = await appendLog(handle.db, ctx, LOG);
    const idOf = (line: string) => ids[LOG.indexOf(line)]!;
    // Another user's dentist, in a scope the caller cannot read: it neither shows nor makes 牙医 ambiguous.
    const elsewhere = "我的牙医全名是王伟，人挺好。";
    await appendMessages(handle.db, agentContext(tenantId, { readScopes: ["user:u2"].map(parseScopePattern) }), {
      sessionId: "other-log",
      userScopeId: "u2",
      messages: [elsewhere, "王伟九月一号过生日。"].map((content) => ({ role: "user" as const, content })),
    });
    const search = (queryText: string, off: RankingFeature[] = []) => evidenceWithout(handle.db, ctx, queryText, off);
    const rankOf = (hits: { id: string }[], line: string) => hits.findIndex((h) => h.id === idOf(line));

    // The birthday line never names him: by the question's words, other people's birthdays rank above it.
    const birthday = "哦对，我的牙医九月二十七号过生日。";
    const named = "周强哪天生日？";
    const without = await search(named, ["aliasBinding"]);
    const withAlias = await search(named);
    expect(rankOf(withAlias, birthday)).toBe(0);
    expect(withAlias[0]?.components?.alias).toBe(1);
    const plain = withAlias.find((h) => h.content === "周强最近很忙。");
    expect(plain).toBeDefined();
    expect(plain?.components?.alias).toBeUndefined();
    expect(rankOf(without, birthday) === -1 || rankOf(without, birthday) > 0).toBe(true);
    expect(withAlias.some((h) => h.content === elsewhere)).toBe(false);

    // The other way: the relation asked, the name in the answer.
    const pet = "李怡霞家里有只仓鼠，叫奶茶。";
    const related = "我堂姐养了什么宠物？";
    const petWith = await search(related);
    const petWithout = await search(related, ["aliasBinding"]);
    expect(rankOf(petWith, pet)).toBeGreaterThanOrEqual(0);
    expect(rankOf(petWith, pet)).toBeLessThan(2);
    expect(rankOf(petWithout, pet) === -1 || rankOf(petWithout, pet) > rankOf(petWith, pet)).toBe(true);

    // A relation bound to one name but said of another ("我同事张鹏") ties nothing: the same hits, to the score.
    const shared = "我同事养了什么宠物？";
    const on = await search(shared);
    const off = await search(shared, ["aliasBinding"]);
    expect(on.map((h) => [h.id, h.score])).toEqual(off.map((h) => [h.id, h.score]));
  });
});
