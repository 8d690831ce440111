import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RankingFeature } from "~/server/memory/retrieval/ranking-features";
import { parseScopePattern } from "~/server/memory/scope";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { agentContext, appendLog, createTenant, evidenceWithout } from "../support/memory";

/** Other people's lines in the stock phrase the question uses, one person each. */
const OTHERS = ["王磊", "李娜", "张伟", "刘洋", "陈静", "杨帆", "赵敏", "黄勇", "周杰", "吴刚", "徐丽", "孙涛"];
const HOBBIES = ["打篮球", "跑步", "钓鱼", "爬山", "游泳", "下棋"];
const CHATTER = ["今天加班到很晚", "中午吃了面条", "周末下雨了", "地铁好挤", "刚开完会", "晚上看了电视剧"];

/** A log of chit-chat with the stock-phrase lines and two lines about the person asked about. */
function log(): string[] {
  const lines: string[] = [];
  for (let i = 0; i < 120; i++) {
    lines.push(`${CHATTER[i % CHATTER.length]}${["。", "，唉。", "！"][i % 3]}`);
    if (i % 9 === 4 && OTHERS[(i / 9) | 0])
      lines.push(`${OTHERS[(i / 9) | 0]}平时喜欢${HOBBIES[i % HOBBIES.length]}。`);
    if (i === 50) lines.push("彭婷的爱好是打乒乓球。");
    if (i === 90) lines.push("彭婷在上海工作。");
  }
  return lines;
}

describe(`the page's last places for what a question names (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  beforeAll(async () => {
    handle = await openTestDatabase();
  });
  afterAll(async () => handle?.destroy());

  it("bring the named person's lines onto the page, and change nothing for other queries", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId, { readScopes: ["user:u1", "session:*"].map(parseScopePattern) });
    const lines = log();
    const ids = await appendLog(handle.db, ctx, lines);
    const answer = ids[lines.indexOf("彭婷的爱好是打乒乓球。")]!;
    const search = (queryText: string, off: RankingFeature[]) => evidenceWithout(handle.db, ctx, queryText, off);

    const question = "彭婷平时喜欢干嘛？";
    const without = await search(question, ["namedTail"]);
    const withTail = await search(question, []);
    const rankOf = (hits: { id: string }[]) => hits.findIndex((h) => h.id === answer);
    // The stock phrase fills the page without it.
    expect(rankOf(without)).toBe(-1);
    expect(without.filter((h) => h.content.includes("平时喜欢")).length).toBeGreaterThanOrEqual(8);
    // With it, the first places are the same and the named lines take the last ones, marked.
    expect(withTail.slice(0, 7).map((h) => h.id)).toEqual(without.slice(0, 7).map((h) => h.id));
    expect(rankOf(withTail)).toBeGreaterThanOrEqual(7);
    expect(withTail[rankOf(withTail)]!.components?.named).toBe(1);
    expect(withTail.filter((h) => h.components?.named === 1).every((h) => h.content.includes("彭婷"))).toBe(true);
    // A hit brought on takes the place and the score of the one it displaced: scores still fall down the page.
    expect(withTail.map((h) => h.score)).toEqual(without.map((h) => h.score));

    // A remark, a query of two lines and an English question are left as they were, to the score.
    for (const query of ["彭婷平时喜欢打球。", "刚开完会。\n彭婷平时喜欢干嘛？", "What does Peng Ting like to do?"]) {
      const on = await search(query, []);
      const off = await search(query, ["namedTail"]);
      expect(on.map((e) => [e.id, e.score])).toEqual(off.map((e) => [e.id, e.score]));
    }
  });
});
