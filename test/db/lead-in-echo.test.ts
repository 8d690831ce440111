import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RankingFeature } from "~/server/memory/retrieval/ranking-features";
import { parseScopePattern } from "~/server/memory/scope";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { agentContext, appendLog, createTenant, evidenceWithout } from "../support/memory";

/** A user who says the same chit-chat again and again, with a few facts among it. */
const CHATTER = [
  "报销单又被退回来了",
  "刚看完一部电影",
  "今天加班到十点多",
  "工作群消息一直响",
  "中午吃了食堂的土豆丝",
];
const TAILS = ["，唉。", "！", "，真是的。", "。"];
const FACTS = [
  "哥哥一家都在郑州。",
  "表姐现在在北京生活，在银行上班。",
  "我同事王磊住在成都。",
  "我妈喜欢跳广场舞。",
  "我爸今年六十二岁了。",
  "邻居老张养了一只柴犬。",
  "我现在的工作是小学老师。",
  "上个月买了一台尼康相机。",
];

function log(): string[] {
  const lines: string[] = [];
  for (let i = 0; i < 60; i++) {
    const a = CHATTER[i % CHATTER.length]!;
    const b = CHATTER[(i * 3 + 1) % CHATTER.length]!;
    lines.push(i % 3 === 0 ? `${a}${TAILS[i % TAILS.length]}` : `${a}，${b}${TAILS[(i + 1) % TAILS.length]}`);
    const fact = i % 7 === 3 ? FACTS[(i / 7) | 0] : undefined;
    if (fact) lines.push(fact);
  }
  return lines;
}

describe(`a line repeating the lead-in (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  beforeAll(async () => {
    handle = await openTestDatabase();
  });
  afterAll(async () => handle?.destroy());

  it("falls below the line that answers the question after the chit-chat, and changes nothing without a lead-in", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId, { readScopes: ["user:u1", "session:*"].map(parseScopePattern) });
    const lines = log();
    const ids = await appendLog(handle.db, ctx, lines);
    const answer = ids[lines.indexOf("哥哥一家都在郑州。")]!;
    const search = (queryText: string, off: RankingFeature[]) => evidenceWithout(handle.db, ctx, queryText, off);

    const question = "报销单又被退回来了。刚看完一部电影！哦对，我哥现在在哪儿生活？";
    // The question asks a place, and the answer names a city: the answer type alone would lift it, so it is
    // off in both searches, and what is compared is the lead-in echo's part.
    const without = await search(question, ["leadInEcho", "answerType"]);
    const withEcho = await search(question, ["answerType"]);
    const rankOf = (hits: { id: string }[]) => hits.findIndex((h) => h.id === answer);
    expect(rankOf(withEcho)).toBeGreaterThanOrEqual(0);
    expect(rankOf(withEcho)).toBeLessThan(3);
    expect(rankOf(without) === -1 || rankOf(without) > rankOf(withEcho)).toBe(true);
    const every = await search(question, []);
    expect(rankOf(every)).toBeGreaterThanOrEqual(0);
    expect(rankOf(every)).toBeLessThan(3);

    // Without a lead-in there is nothing to echo: the same hits, to the score.
    const plain = "我哥现在在哪儿生活？";
    const on = await search(plain, []);
    const off = await search(plain, ["leadInEcho"]);
    expect(on.map((e) => [e.id, e.score])).toEqual(off.map((e) => [e.id, e.score]));
  });
});
