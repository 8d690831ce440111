import { describe, expect, it } from "vitest";
import { chunkId, splitIntoChunks } from "~/server/tree/chunk";
import { extractEntities, topicForEntity } from "~/server/tree/entities";
import { extractOperations } from "~/server/tree/extract-rules";
import { fastScore } from "~/server/tree/fast-score";
import { bumpHotness, decayHotness, hotnessStatus } from "~/server/tree/hotness";

const rules = (text: string) => fastScore(text).reasons.map((r) => r.rule);

describe("fast score", () => {
  it("scores a short Chinese budget-and-deadline note with explicit-remember, money and time (and project, success)", () => {
    const { score, reasons } = fastScore("记住：项目预算 5 万，9 月 15 日前完成。");
    expect(reasons.map((r) => r.rule)).toEqual(
      expect.arrayContaining(["explicit_remember", "money", "time", "project", "success"]),
    );
    // 0.25 + 0.2 + 0.05 + 0.1 + 0.1 = 0.7, halved: the sentence has fewer than 20 characters.
    expect(reasons.map((r) => r.rule)).toContain("short_text");
    expect(score).toBeCloseTo(0.35, 5);
  });

  it("applies each of the fourteen rules in Chinese and English", () => {
    const cases: [string, string][] = [
      ["explicit_remember", "Please remember that the staging database lives on host db-2 in Frankfurt"],
      ["preference", "我喜欢吃清淡一点的菜，尤其是蒸鱼和白灼青菜这种做法"],
      ["money", "The contract is worth $12,000 for the whole quarter of work"],
      ["importance", "这件事非常重要，上线之前必须先通知所有的客户和合作伙伴"],
      ["need", "We need a second reviewer for every pull request going forward"],
      ["error", "部署的时候报错了，日志里面显示数据库连接超时然后进程退出"],
      ["version", "Upgrade the service to v0.14.0 before the next planned maintenance"],
      ["project", "这个项目下个月要交给新的团队维护，需要写一份交接文档"],
      ["config", "Set the retry count in config.yaml to five for the importer job"],
      ["first_mention", "This is the first time the nightly backup ran without any warnings"],
      ["success", "迁移已经成功完成了，所有的数据都核对过一遍没有问题"],
      ["credentials", "Rotate the API key for the payment provider every ninety days"],
      ["time", "The launch is planned for 2026-05-19 at the Berlin office downstairs"],
    ];
    for (const [rule, text] of cases) expect(rules(text), text).toContain(rule);
    expect(rules("好的")).toEqual(["short_text"]);
  });

  it("halves short texts and caps at 1", () => {
    expect(fastScore("记住我喜欢蓝色").score).toBeCloseTo(0.25, 5);
    const everything = fastScore(
      "记住！非常重要：我喜欢这个项目，预算 5 万元，需要在 2026-05-19 完成 v1.2.3 的配置，第一次报错后成功修复，API key 已更新",
    );
    expect(everything.score).toBe(1);
  });
});

describe("chunks, entities, hotness, extraction rules", () => {
  it("makes deterministic chunk ids and splits long text under the token limit", () => {
    const a = chunkId({ sessionId: "session-abcdefghijk", role: "user", index: 0, messageId: "msg_1", content: "hi" });
    expect(a).toBe(
      chunkId({ sessionId: "session-abcdefghijk", role: "user", index: 0, messageId: "msg_1", content: "hi" }),
    );
    expect(a).toMatch(/^session-abcd-use-000-[0-9a-f]{16}$/);
    const long = "This sentence is about memory. ".repeat(2000);
    const chunks = splitIntoChunks(long, 500);
    expect(chunks.length).toBeGreaterThan(10);
    expect(chunks.join("")).toBe(long);
  });

  it("extracts repos, versions, money, dates, people and places, and routes them to topics", () => {
    const entities = extractEntities(
      "看看 github.com/acme/widgets 的 v1.2.3，预算 5 万，2026-05-19 和同事张伟开会，我住在杭州",
    );
    const types = entities.map((e) => `${e.type}:${e.value}`);
    expect(types).toEqual(
      expect.arrayContaining([
        "repo:acme/widgets",
        "version:1.2.3",
        "money:5万",
        "date:2026-05-19",
        "person:张伟",
        "place:杭州",
      ]),
    );
    expect(topicForEntity({ type: "repo", value: "acme/widgets" })).toEqual({
      name: "repo:acme/widgets",
      type: "project",
    });
    expect(topicForEntity({ type: "money", value: "5万" })).toBeNull();
  });

  it("takes a person or a place only where a name stands, not whatever follows a cue word", () => {
    const of = (text: string, type: "person" | "place") =>
      extractEntities(text)
        .filter((e) => e.type === type)
        .map((e) => e.value);
    expect(of("我的经理是张三", "person")).toEqual(["张三"]);
    expect(of("我和李雷一起开会", "person")).toEqual(["李雷"]);
    expect(of("明天跟欧阳修商量", "person")).toEqual(["欧阳修"]);
    for (const text of ["我和你说过。", "这个问题和数据库的关系", "请给我的朋友发消息"])
      expect(of(text, "person"), text).toEqual([]);
    expect(of("我下个月去上海出差", "place")).toEqual(["上海"]);
    expect(of("我住在杭州", "place")).toEqual(["杭州"]);
    for (const text of ["我在家工作", "我现在在公司，", "周末在家里，"]) expect(of(text, "place"), text).toEqual([]);
  });

  it("bumps hotness by 0.05, decays it ×0.95 a day and grades it active, warm, archived", () => {
    expect(bumpHotness(0.5)).toBeCloseTo(0.55, 10);
    expect(decayHotness(1, 1)).toBeCloseTo(0.95, 10);
    expect(decayHotness(1, 14)).toBeCloseTo(0.95 ** 14, 10);
    expect(hotnessStatus(0.5)).toBe("active");
    expect(hotnessStatus(0.3)).toBe("warm");
    expect(hotnessStatus(0.1)).toBe("archived");
  });

  it("proposes an avoided ingredient and a flavor profile, then the later correction", () => {
    const ops = extractOperations("以后做饭别给我推荐香菜，我喜欢少油少辣。");
    expect(ops.map((o) => [o.op, o.kind, o.itemKey ?? null, o.explicit, o.node.valueJson])).toEqual([
      ["create", "avoid_ingredient", "香菜", true, "香菜"],
      ["create", "flavor_profile", null, true, "少油少辣"],
    ]);
    expect(extractOperations("香菜现在可以接受一点，但不要太多。").map((o) => [o.op, o.kind, o.itemKey])).toEqual([
      ["supersede", "avoid_ingredient", "香菜"],
    ]);
    expect(extractOperations("From now on I don't eat peanuts.").map((o) => o.itemKey)).toEqual(["peanuts"]);
    expect(extractOperations("别给我推荐电影")).toEqual([]);
    expect(extractOperations("I like this movie, it is great").every((o) => !o.explicit)).toBe(true);
  });
});
