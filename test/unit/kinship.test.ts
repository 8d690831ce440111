import { describe, expect, it } from "vitest";
import { isOwnWord, queryTerms } from "~/server/memory/retrieval/query-terms";
import { rankingFeaturesWithout } from "~/server/memory/retrieval/ranking-features";
import { kinshipTerms } from "~/server/text/kinship";

describe("kinship words", () => {
  it("covers the kin a group word names, narrowed by a side of the family", () => {
    const mothers = kinshipTerms("我妈那边的亲戚分布在哪几个城市？");
    expect(mothers).toEqual(expect.arrayContaining(["舅舅", "姨妈", "小姨", "表姐", "外婆"]));
    expect(mothers).not.toContain("叔叔");
    expect(mothers).not.toContain("堂哥");
    const fathers = kinshipTerms("我爸那边的亲戚平时都有些什么爱好？");
    expect(fathers).toEqual(expect.arrayContaining(["大伯", "叔叔", "姑姑", "堂弟", "奶奶"]));
    expect(fathers).not.toContain("舅舅");
    // Elders: every side's older generation, parents too; not a cousin.
    const elders = kinshipTerms("家里的长辈都是做什么的？");
    expect(elders).toEqual(expect.arrayContaining(["大伯", "舅舅", "姨妈", "叔叔", "妈妈"]));
    expect(elders).not.toContain("表哥");
    // Relatives leave out one's own household; family is that household.
    expect(kinshipTerms("我的亲戚中谁家养狗？")).not.toContain("妈妈");
    expect(kinshipTerms("喜欢玩桌游的那个家里人是哪里人？")).toEqual(expect.arrayContaining(["妈妈", "哥哥", "女儿"]));
    // 堂兄 is in the text itself.
    expect(kinshipTerms("我的堂兄弟姐妹都是做什么的？")).toEqual(["堂哥", "堂姐", "堂弟", "堂妹", "堂姊"]);
  });

  it("reads sides, generations and groups as the language does", () => {
    // 表 cousins are a father's sister's children too.
    expect(kinshipTerms("我爸那边的亲戚都是做什么的？")).toEqual(expect.arrayContaining(["堂哥", "表姐"]));
    // 姑妈 is the father's sister: her side is not the mother's.
    expect(kinshipTerms("我姑妈那边的亲戚")).not.toEqual(kinshipTerms("我妈那边的亲戚"));
    expect(kinshipTerms("我奶奶那边的亲戚")).toEqual(expect.arrayContaining(["大伯", "姑姑"]));
    expect(kinshipTerms("我奶奶那边的亲戚")).not.toContain("舅舅");
    // A parent's siblings, not one's own; one's own, not the parents'.
    const fathersSiblings = kinshipTerms("我爸的兄弟姐妹都在哪？");
    expect(fathersSiblings).toEqual(expect.arrayContaining(["大伯", "叔叔", "姑姑"]));
    expect(fathersSiblings).not.toContain("哥哥");
    expect(fathersSiblings).not.toContain("舅舅");
    expect(kinshipTerms("我的兄弟姐妹都在哪？")).toEqual(["哥哥", "姐姐", "弟弟", "妹妹"]);
    // A generation narrows a group: the older relatives, no cousin or parent.
    const olderRelatives = kinshipTerms("亲戚里的长辈有谁？");
    expect(olderRelatives).toEqual(expect.arrayContaining(["舅舅", "爷爷"]));
    expect(olderRelatives).not.toContain("表妹");
    expect(olderRelatives).not.toContain("妈妈");
    // 亲人 is everyone, the household too; both parents' sides are every relative, not the parents.
    expect(kinshipTerms("我的亲人都在哪？")).toEqual(expect.arrayContaining(["妈妈", "舅舅"]));
    expect(kinshipTerms("我爸妈那边的亲戚")).toEqual(expect.arrayContaining(["舅舅", "大伯"]));
    expect(kinshipTerms("我爸妈那边的亲戚")).not.toContain("妈妈");
    expect(kinshipTerms("我父母住在哪？")).toEqual(expect.arrayContaining(["爸爸", "妈妈"]));
  });

  it("finds no group inside other words", () => {
    expect(kinshipTerms("国家人口有多少？")).toEqual([]);
    expect(kinshipTerms("专家人数是多少？")).toEqual([]);
    expect(kinshipTerms("发表亲身经历")).toEqual([]);
  });

  it("adds nothing without a group word, and not what the text holds already", () => {
    expect(kinshipTerms("我的朋友里养猫的有几个？")).toEqual([]);
    expect(kinshipTerms("我舅舅住在哪？")).toEqual([]);
    expect(kinshipTerms("我的亲戚里舅舅最高吗？")).not.toContain("舅舅");
  });

  it("are query terms of a word's weight, standing for the group word, not words of the question", () => {
    const terms = queryTerms("我妈那边的亲戚住在哪？");
    const uncle = terms.find((term) => term.term === "舅舅");
    expect(uncle).toMatchObject({ weight: 1, kin: true });
    expect(isOwnWord(uncle!)).toBe(false);
    // Traditional script is read as simplified.
    expect(queryTerms("我媽那邊的親戚住在哪？").some((term) => term.term === "舅舅")).toBe(true);
    expect(queryTerms("我妈那边的亲戚住在哪？", rankingFeaturesWithout(["kinship"])).some((t) => t.kin)).toBe(false);
  });

  it("are read from the last sentence of a one-line query, not from a pasted dialogue", () => {
    const kin = (text: string) =>
      queryTerms(text)
        .filter((term) => term.kin)
        .map((term) => term.term);
    expect(kin("今天好累。话说，我的亲戚里谁家养狗？")).toContain("舅舅");
    // Said in passing before the question, or in a dialogue's turns: who was there, not who is asked about.
    expect(kin("上周和家人一起去野餐了。你觉得野餐带什么好？")).toEqual([]);
    expect(kin("Bart: 我和家人一起吃早餐。\nAssistant: 真好！\nBart: 我的家人都在等我，他们会担心吗？")).toEqual([]);
    // Not even from a dialogue's last turn: a pasted dialogue says who was there, in every turn.
    expect(kin("A: 我和家人一起去野餐了\nB: 好的\n我妈那边的亲戚都住在哪？")).toEqual([]);
    // After a lead-in on one line, the kin terms count as the question's: not halved as the lead-in's words.
    const afterLeadIn = queryTerms("今天好累。话说，我的亲戚里谁家养狗？").find((term) => term.term === "舅舅");
    expect(afterLeadIn).toMatchObject({ weight: 1, kin: true });
    expect(afterLeadIn?.lead).toBeUndefined();
    // A search need not be a question.
    expect(kin("妈妈那边的亲戚 住址")).toContain("舅舅");
  });
});
