import { describe, expect, it } from "vitest";
import { aliasCandidates, bindingsIn, boundName } from "~/server/memory/retrieval/alias-binding";

describe("alias binding", () => {
  it("reads a relation bound to a name, one clause at a time", () => {
    expect(bindingsIn("我的牙医全名是周强，之前没说过。")).toEqual([{ relation: "牙医", name: "周强" }]);
    expect(bindingsIn("对了，一直没说，我堂姐叫李怡霞。")).toEqual([{ relation: "堂姐", name: "李怡霞" }]);
    expect(bindingsIn("我领导大名徐国刚。")).toEqual([{ relation: "领导", name: "徐国刚" }]);
    expect(bindingsIn("我发小的名字是侯俊杰")).toEqual([{ relation: "发小", name: "侯俊杰" }]);
    expect(bindingsIn("我女儿的班主任全名是徐丹")).toEqual([{ relation: "女儿的班主任", name: "徐丹" }]);
    expect(bindingsIn("我有个朋友叫张飞，是农科院的研究员。")).toEqual([{ relation: "朋友", name: "张飞" }]);
    expect(bindingsIn("记一下，孙斌磊是我同事。")).toEqual([{ relation: "同事", name: "孙斌磊" }]);
    expect(bindingsIn("李平其实是我堂哥。")).toEqual([{ relation: "堂哥", name: "李平" }]);
    expect(bindingsIn("给你介绍一下，顾心怡是我的姐姐。")).toEqual([{ relation: "姐姐", name: "顾心怡" }]);
    // Traditional script is read as simplified.
    expect(bindingsIn("我表姊叫孫丹月")).toEqual([{ relation: "表姊", name: "孙丹月" }]);
  });

  it("reads no binding from a pronoun, a question, a thing of theirs or a list", () => {
    expect(bindingsIn("忘了说，他是我堂哥。")).toEqual([]);
    expect(bindingsIn("她是我同事，认识好些年了。")).toEqual([]);
    expect(bindingsIn("我堂姐叫什么来着？")).toEqual([]);
    expect(bindingsIn("盐城是我堂姐的老家。")).toEqual([]);
    expect(bindingsIn("苏州是我姨妈现在常住的地方。")).toEqual([]);
    expect(bindingsIn("我大学同学里有个叫张娟的，新领养了一只布偶猫。")).toEqual([]);
    expect(bindingsIn("今天是我生日")).toEqual([]);
    expect(bindingsIn("我叫李明")).toEqual([]);
    expect(bindingsIn("My dentist is called Zhou Qiang.")).toEqual([]);
    // The asker's own name has no relation; a place, a time or a thing is no person; a denial binds nothing.
    expect(bindingsIn("你好，我的名字是李明，家里养了一只猫。")).toEqual([]);
    expect(bindingsIn("北京是我老家。")).toEqual([]);
    expect(bindingsIn("周末是我休息日。")).toEqual([]);
    expect(bindingsIn("钓鱼是我爱好。")).toEqual([]);
    expect(bindingsIn("张三不是我同事。")).toEqual([]);
    expect(bindingsIn("王五曾经是我男朋友。")).toEqual([]);
    expect(bindingsIn("我的牙医叫周强吗")).toEqual([]);
    // A single-character relation is a close relative's only.
    expect(bindingsIn("我妈叫刘梅。")).toEqual([{ relation: "妈", name: "刘梅" }]);
    expect(bindingsIn("我家叫刘梅。")).toEqual([]);
    expect(bindingsIn("老王是我同事。")).toEqual([{ relation: "同事", name: "老王" }]);
    expect(bindingsIn("阿强是我发小。")).toEqual([{ relation: "发小", name: "阿强" }]);
    // What 叫 and 是 join is a person's name only when it reads as one.
    expect(bindingsIn("中午我同事叫外卖。")).toEqual([]);
    expect(bindingsIn("我同事叫车去机场。")).toEqual([]);
    // A place that starts like a surname still binds, and the alias holds: 老家 is 武汉.
    expect(bindingsIn("武汉是我老家。")).toEqual([{ relation: "老家", name: "武汉" }]);
    expect(bindingsIn("王五之前是我男朋友。")).toEqual([]);
    expect(bindingsIn("我表哥叫郑一鸣啦。")).toEqual([]);
    expect(bindingsIn("我表姐叫刘洋不叫刘阳。")).toEqual([]);
  });

  it("offers the other side of a binding the question holds one side of", () => {
    const bindings = [
      { relation: "牙医", name: "周强" },
      { relation: "堂姐", name: "李怡霞" },
      { relation: "邻居", name: "周强杰" },
    ];
    expect(aliasCandidates("周强哪天生日？", bindings)).toEqual([
      { relation: "牙医", name: "周强", held: "name", alias: "牙医" },
    ]);
    expect(aliasCandidates("我堂姐养了什么宠物？", bindings)).toEqual([
      { relation: "堂姐", name: "李怡霞", held: "relation", alias: "李怡霞" },
    ]);
    expect(aliasCandidates("我的牙医住哪？", bindings).map((c) => c.alias)).toEqual(["周强"]);
    // A name inside a longer one the question holds is not that name.
    expect(aliasCandidates("周强杰家几口人？", bindings).map((c) => c.alias)).toEqual(["邻居"]);
    // A question holding both sides needs neither; a relation that is not the asker's is someone else's.
    expect(aliasCandidates("我堂姐李怡霞养了什么宠物？", bindings)).toEqual([]);
    expect(aliasCandidates("他的牙医是谁？", bindings)).toEqual([]);
    // A one-character relation inside a longer word of the question is not asked.
    const sister = [{ relation: "姐", name: "王丽" }];
    expect(aliasCandidates("我姐在哪上班？", sister).map((c) => c.alias)).toEqual(["王丽"]);
    expect(aliasCandidates("我姐夫在哪上班？", sister)).toEqual([]);
  });

  it("takes a relation's name only when the scope binds it to that one", () => {
    const dentist = ["我的牙医全名是周强，之前没说过。", "我的牙医对麻辣烫毫无抵抗力。", "周强是我牙医。"];
    expect(boundName("牙医", dentist)).toBe("周强");
    expect(boundName("同事", ["孙斌磊是我同事。", "我有个同事叫黄雪玲。", "我同事张鹏又升职了。"])).toBeUndefined();
    expect(boundName("堂姐", ["我堂姐又升职了。"])).toBeUndefined();
    // A row calling someone else by the relation shares it; words after it that start like a surname do not.
    expect(boundName("大学同学", ["杨佳丽是我大学同学。", "我大学同学李东最爱吃饺子。"])).toBeUndefined();
    expect(boundName("小姨", ["我小姨的名字叫孙雨。", "我小姨周末去打羽毛球。", "我小姨孙雨有一米五八高。"])).toBe(
      "孙雨",
    );
    expect(boundName("叔叔", ["我叔叔全名周涛。", "我叔叔马上要退休了。"])).toBe("周涛");
    expect(boundName("同事", ["孙斌磊是我同事。", "我同事老王又迟到了。"])).toBeUndefined();
    expect(boundName("同事", ["孙斌磊是我同事。", "我同事们都去聚餐了。"])).toBeUndefined();
    expect(boundName("同事", ["孙斌磊是我同事。", "我另一个同事叫王超。"])).toBeUndefined();
    expect(boundName("堂姐", ["我堂姐叫李怡霞。", "我大堂姐叫王芳。"])).toBeUndefined();
    expect(boundName("朋友", ["我有个朋友叫张飞。", "我朋友时不时约我打球。"])).toBe("张飞");
    expect(boundName("表哥", ["郑一鸣是我表哥。", "我表哥小时候在农村长大。"])).toBe("郑一鸣");
    // Another relation's binding says nothing of this one's.
    expect(boundName("同事", ["孙斌磊是我同事。", "我大学同学叫王超。"])).toBe("孙斌磊");
  });
});
