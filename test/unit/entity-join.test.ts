import { describe, expect, it } from "vitest";
import {
  askedBy,
  coordinatedTerms,
  joinedCoverage,
  linkWords,
  MAX_GROUP,
  type JoinCandidate,
} from "~/server/memory/retrieval/entity-join";
import { queryTerms } from "~/server/memory/retrieval/query-terms";
import { reorderBySecondStage, SECOND_STAGE_WEIGHTS } from "~/server/memory/retrieval/second-stage";
import { normalizeSearchText } from "~/server/text/segment";

describe("entity join", () => {
  it("reads a candidate's rare words the question lacks as its links, the rarest first", () => {
    const question = "我那个喜欢爬山的表哥最爱吃什么菜？";
    const asked = askedBy(queryTerms(question));
    // 周末 is common in this table (tracked at 3 %), 一到 less so; the name's pairs are not tracked at all.
    const shares = new Map([
      ["周末", 0.03],
      ["一到", 0.01],
    ]);
    // Untracked pairs first, in the text's order, then the tracked one; 周末 is too common, 爬山 asked.
    expect(linkWords(normalizeSearchText("杨少华一到周末爬山。"), asked, shares).map((l) => l.key)).toEqual([
      "杨少",
      "少华",
      "华一",
      "到周",
      "末爬",
      "一到",
    ]);
    // At most six, the rarest.
    expect(linkWords(normalizeSearchText("杨少华一到周末就去爬山。"), asked, shares).map((l) => l.key)).toEqual([
      "杨少",
      "少华",
      "华一",
      "到周",
      "末就",
      "就去",
    ]);
    // Latin words of three letters or more, no bare numbers.
    const latin = linkWords(
      normalizeSearchText("Ravi moved to Lisbon in 2019 at 30"),
      askedBy(queryTerms("Where does Ravi live?")),
      new Map(),
    );
    expect(latin.map((l) => l.key)).toEqual(["moved", "lisbon"]);
    // Pairs only within a run: the index holds none across a mark or a space.
    const runs = linkWords(normalizeSearchText("好的。我们 走了"), askedBy([]), new Map()).map((l) => l.key);
    expect(runs).toEqual(["好的", "我们", "走了"]);
  });

  it("finds the terms a question sets side by side with a conjunction", () => {
    const zh = "程秀英和钱宏伟谁更高？";
    const zhTerms = queryTerms(zh);
    const pairs = coordinatedTerms(zh, zhTerms);
    const at = (term: string) => zhTerms.findIndex((t) => t.term === term);
    expect(pairs.has(`${at("秀英")}|${at("宏伟")}`)).toBe(true);
    expect(pairs.has(`${at("宏伟")}|${at("秀英")}`)).toBe(true);
    const en = "Did Melanie and Caroline go camping?";
    const enTerms = queryTerms(en);
    const enPairs = coordinatedTerms(en, enTerms);
    const enAt = (start: string) => enTerms.findIndex((t) => t.term.startsWith(start));
    expect(enPairs.has(`${enAt("melani")}|${enAt("carolin")}`)).toBe(true);
    expect(enPairs.has(`${enAt("melani")}|${enAt("camp")}`)).toBe(false);
    expect(
      coordinatedTerms("我那个喜欢爬山的表哥最爱吃什么菜？", queryTerms("我那个喜欢爬山的表哥最爱吃什么菜？")).size,
    ).toBe(0);
  });

  // Terms 0: 爬山, 1: 表哥, 2: 菜; each weighs 1.
  const weights = [1, 1, 1];
  const link = (key: string, share = 0) => ({ key, share });
  const candidate = (id: string, matched: number[], links: string[]): JoinCandidate => ({
    id,
    coverage: matched.length / 3,
    matched,
    links: links.map((key) => link(key)),
  });

  it("gives each member of a small group what the others hold and it lacks", () => {
    const gains = joinedCoverage(
      [
        candidate("climber", [0], ["肖宇"]), // someone else who climbs
        candidate("yang-climbs", [0], ["杨少", "少华"]),
        candidate("yang-food", [2], ["杨少", "少华"]),
        candidate("yang-cousin", [1], ["杨少", "少华"]),
        candidate("cousin-bakes", [1], ["烘焙"]),
      ],
      weights,
      new Set(),
    );
    expect(gains.get("yang-climbs")).toBeCloseTo(2 / 3, 5);
    expect(gains.get("yang-food")).toBeCloseTo(2 / 3, 5);
    expect(gains.get("yang-cousin")).toBeCloseTo(2 / 3, 5);
    expect(gains.has("climber")).toBe(false);
    expect(gains.has("cousin-bakes")).toBe(false);
  });

  it("ties nothing by a phrasing many candidates share", () => {
    const many = Array.from({ length: MAX_GROUP + 1 }, (_, i) => candidate(`c${i}`, [i % 3], ["平时"]));
    expect(joinedCoverage(many, weights, new Set()).size).toBe(0);
    expect(joinedCoverage(many.slice(0, MAX_GROUP), weights, new Set()).size).toBe(MAX_GROUP);
  });

  it("lifts no group that holds no more of the question than the best candidate alone", () => {
    const group = [candidate("a", [0], ["杨少"]), candidate("b", [1], ["杨少"])];
    const whole = candidate("whole", [0, 1], ["肖宇"]);
    expect(joinedCoverage([...group, whole], weights, new Set()).size).toBe(0);
    expect(joinedCoverage(group, weights, new Set()).size).toBe(2);
    // Weights that do not add up exactly: the same sum in another order is still equal.
    const odd = [0.1, 0.2, 0.3];
    const total = odd.reduce((x, y) => x + y, 0);
    const oddGroup = [
      { ...group[0]!, coverage: 0.1 / total },
      { ...group[1]!, matched: [1, 2], coverage: (0.2 + 0.3) / total },
      { ...whole, matched: [0, 1, 2], coverage: (0.1 + 0.2 + 0.3) / total },
    ];
    expect(joinedCoverage(oddGroup, odd, new Set()).size).toBe(0);
  });

  it("does not join terms the question sets side by side", () => {
    const two = [candidate("a", [0], ["青岛"]), candidate("b", [1], ["青岛"])];
    expect(joinedCoverage(two, weights, new Set(["0|1", "1|0"])).size).toBe(0);
    expect(joinedCoverage(two, weights, new Set()).get("a")).toBeCloseTo(1 / 3, 5);
  });

  it("lifts the described person's rows above another's in the second stage, and only with its weight", () => {
    const question = "我那个喜欢爬山的表哥最爱吃什么菜？";
    const terms = queryTerms(question);
    const df = terms.map(() => 3);
    // As the first stage scores them: each holds a word or two of the question.
    const candidates = [
      { id: "other", score: 1, text: "肖宇平时最喜欢爬山。" },
      { id: "cousin-bakes", score: 1, text: "我表哥平时最喜欢做烘焙。" },
      { id: "yang-climbs", score: 1, text: "杨少华一到周末就去爬山。" },
      { id: "yang-food", score: 1, text: "杨少华最喜欢的菜是羊肉串。" },
      { id: "yang-cousin", score: 1, text: "我表哥叫杨少华。" },
    ];
    // The phrasing's words are common in the table (tracked); the name's are not.
    const shares = new Map([
      ["平时", 0.03],
      ["最喜", 0.03],
      ["时最", 0.025],
    ]);
    // A question describing its subject lifts no answer type (evidence.ts, describedNoType): as in a search.
    const described = { ...SECOND_STAGE_WEIGHTS, answerType: 0 };
    const order = (weights = described, unlinked?: Set<string>) =>
      reorderBySecondStage(question, terms, df, 500, candidates, weights, { shares, unlinked });
    const joined = order();
    const at = (list: ReturnType<typeof order>, id: string) => list.findIndex((r) => r.id === id);
    // The answer (what 杨少华 eats) rises above the other cousin's line, which holds as many words.
    expect(at(joined, "yang-food")).toBeLessThan(at(joined, "cousin-bakes"));
    for (const id of ["yang-food", "yang-climbs", "yang-cousin"])
      expect(joined.find((r) => r.id === id)!.features.join).toBeGreaterThan(0.25);
    expect(joined.find((r) => r.id === "other")!.features.join).toBeUndefined();
    const plain = order({ ...described, join: 0 });
    expect(at(plain, "yang-food")).toBeGreaterThan(at(plain, "cousin-bakes"));
    expect(plain.every((r) => r.features.join === undefined)).toBe(true);
    // Turns the caller marks as linking to nothing (in a dialogue) join no group.
    const unlinked = order(described, new Set(["yang-climbs", "yang-food", "yang-cousin"]));
    expect(unlinked.every((r) => r.features.join === undefined)).toBe(true);
    // Without the table's statistics nothing is joined.
    const noStatistics = reorderBySecondStage(question, terms, df, 500, candidates, SECOND_STAGE_WEIGHTS, {
      shares: new Map(),
    });
    expect(noStatistics.every((r) => r.features.join === undefined)).toBe(true);
    expect(reorderBySecondStage(question, terms, df, 500, candidates).every((r) => r.features.join === undefined)).toBe(
      true,
    );
  });

  it("joins no two people a comparative question names, whatever their lines share", () => {
    const question = "杨少华和肖宇谁更高？";
    const terms = queryTerms(question);
    const candidates = [
      { id: "yang-city", score: 1, text: "杨少华工作调到青岛去了。" },
      { id: "xiao-city", score: 1, text: "肖宇一个人在青岛打拼。" },
      { id: "yang-height", score: 1, text: "杨少华身高169厘米。" },
    ];
    const staged = reorderBySecondStage(
      question,
      terms,
      terms.map(() => 3),
      500,
      candidates,
      SECOND_STAGE_WEIGHTS,
      {
        shares: new Map([["身高", 0.03]]),
      },
    );
    expect(staged.every((r) => r.features.join === undefined)).toBe(true);
    // Without the conjunction the city ties the two people's lines (what the guard prevents).
    const bare = "杨少华肖宇谁更高？";
    const unguarded = reorderBySecondStage(
      bare,
      queryTerms(bare),
      queryTerms(bare).map(() => 3),
      500,
      candidates,
      SECOND_STAGE_WEIGHTS,
      {
        shares: new Map([["身高", 0.03]]),
      },
    );
    expect(unguarded.some((r) => (r.features.join ?? 0) > 0)).toBe(true);
  });
});
