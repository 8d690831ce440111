import { describe, expect, it } from "vitest";
import type { MemorySummary } from "~/db/schema";
import { sentenceScore, summarizeIncrement } from "~/server/tree/summarize";

const user = (content: string) => ({ role: "user" as const, content });
const assistant = (content: string) => ({ role: "assistant" as const, content });
/** A stored summary as the chain holds it (only the fields the summarizer reads). */
const stored = (next: ReturnType<typeof summarizeIncrement>) =>
  ({ ...next, id: "sum_prev" }) as unknown as MemorySummary;

describe("extractive session summaries: goal, constraints, preferences, decisions, work, issues", () => {
  it("fills the goal and every list by patterns in Chinese", () => {
    const next = summarizeIncrement(undefined, [
      user("我们在做北京的旅行计划，预算5万。"),
      user("我们决定住在王府井附近。"),
      user("我不喜欢太早起床。"),
      user("机票已经订好了。"),
      user("接下来还要订故宫的门票。"),
      user("昨天订酒店的时候支付失败了，报错 502。"),
    ]);
    expect(next.currentGoal).toBe("北京的旅行计划");
    expect(next.constraints).toContain("预算 5万");
    expect(next.decisions).toContain("住在王府井附近");
    expect(next.preferences).toContain("不喜欢太早起床");
    expect(next.completedWork).toEqual(["机票已经订好了。"]);
    expect(next.pendingWork).toEqual(["接下来还要订故宫的门票。"]);
    expect(next.knownIssues).toEqual(["昨天订酒店的时候支付失败了，报错 502。"]);
    expect(next.summary.split("\n").slice(0, 2)).toEqual(["目标：北京的旅行计划", "要点：预算 5万；住在王府井附近"]);
  });

  it("fills them in English", () => {
    const next = summarizeIncrement(undefined, [
      user("My goal is to launch the beta by June."),
      user("The budget is $3,000 for the whole project."),
      user("We decided to use Postgres."),
      user("I prefer short answers."),
      user("I finished the login page."),
      user("I still need to write the docs."),
      user("The deploy failed with an error."),
    ]);
    expect(next.currentGoal).toBe("launch the beta by June");
    expect(next.constraints).toContain("预算 $3,000");
    expect(next.decisions).toContain("use Postgres");
    expect(next.preferences).toEqual(["Likes short answers"]);
    expect(next.completedWork).toEqual(["I finished the login page."]);
    expect(next.pendingWork).toEqual(["I still need to write the docs."]);
    expect(next.knownIssues).toEqual(["The deploy failed with an error."]);
  });

  it("chains: carries open items until done, says only what is new, keeps the latest budget", () => {
    const first = summarizeIncrement(undefined, [
      user("我们在做杭州的旅行计划，预算5000元。"),
      user("接下来还要订高铁票。"),
      user("我们决定住西湖边。"),
    ]);
    const second = summarizeIncrement(stored(first), [
      user("高铁票订好了。"),
      user("预算改成8000元吧。"),
      user("我们在做杭州的旅行计划，预算8000元，住西湖边。"),
    ]);
    expect(second.currentGoal).toBe("杭州的旅行计划");
    expect(second.decisions).toEqual(["住西湖边"]);
    expect(second.constraints.filter((c) => c.startsWith("预算"))).toEqual(["预算 8000元"]);
    expect(second.completedWork).toEqual(["高铁票订好了。"]);
    // 订高铁票 was pending and is done now.
    expect(first.pendingWork).toEqual(["接下来还要订高铁票。"]);
    expect(second.pendingWork).toEqual([]);
    // The first summary's sentences stay; one the new messages restate is said once, as restated.
    expect(second.summary).toContain("接下来还要订高铁票。");
    expect(second.summary.match(/我们在做杭州的旅行计划/g)).toHaveLength(1);
  });

  it("picks the sentences that carry facts over pleasantries and near duplicates", () => {
    expect(sentenceScore("I just adopted a puppy named Max from the shelter in Denver.", "user")).toBeGreaterThan(
      sentenceScore("Thanks, that's so nice of you!", "user"),
    );
    expect(sentenceScore("How are you doing these days?", "assistant")).toBeLessThan(0);
    const turns = Array.from({ length: 12 }, (_, i) =>
      user(`我们在做北京的旅行计划，预算5万，第${i + 1}天去故宫和长城。`),
    );
    const next = summarizeIncrement(undefined, [assistant("好的"), ...turns, user("谢谢")]);
    expect(next.summary).not.toContain("谢谢");
    expect(next.summary.match(/故宫和长城/g)).toHaveLength(1);
  });

  it("says how many messages it read when none carries anything", () => {
    expect(summarizeIncrement(undefined, [user("ok"), assistant("好的")]).summary).toBe("2 new message(s).");
  });
});
