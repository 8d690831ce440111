import { describe, expect, it } from "vitest";
import { questionAnswerType } from "~/server/memory/retrieval/answer-type";
import { asksTheDescribedEvent, describesItsSubject } from "~/server/memory/retrieval/described-subject";

describe("a question describing its subject", () => {
  it("is read from 那 and a measure word in the question a query ends with", () => {
    expect(describesItsSubject("有六百位客人的那次活动持续了多久？")).toBe(true);
    expect(describesItsSubject("我那个养仓鼠的同事住在哪？")).toBe(true);
    expect(describesItsSubject("今天好累。那位当记者的朋友叫什么？")).toBe(true);
    // Traditional script is read as simplified.
    expect(describesItsSubject("那個養貓的同事叫什麼？")).toBe(true);
    expect(describesItsSubject("彭婷在哪里上班？")).toBe(false);
    // 那次 and a name refers to a thing the memory names.
    expect(describesItsSubject("那次婚礼和那次露营一共来了多少人？")).toBe(false);
    expect(describesItsSubject("那次装修请的哪家？")).toBe(false);
    // A described time is held by the describing line itself: the answer type stays.
    expect(describesItsSubject("我结婚的那天是几号？")).toBe(false);
    expect(describesItsSubject("我毕业的那年是哪一年？")).toBe(false);
    // Read as descriptions too (the hop runs as it always did; the answer type is not lifted).
    expect(describesItsSubject("彭婷的那只猫叫什么？")).toBe(true);
    expect(describesItsSubject("我那个朋友的女儿几岁？")).toBe(true);
    // A description in the lead-in is not the question's.
    expect(describesItsSubject("那次活动真累。彭婷在哪里上班？")).toBe(false);
    expect(describesItsSubject("Who is the one that adopted a dog?")).toBe(false);
  });

  it("asks which event a described occasion was: the line describing it names it", () => {
    const names = (question: string) => asksTheDescribedEvent(question, questionAnswerType(question));
    expect(names("小林也去了的那次活动叫什么来着？")).toBe(true);
    expect(names("花了五千块的那场聚会是哪个活动？")).toBe(true);
    // An occasion's other values, and a described person's events, are not held by the description.
    expect(names("有六百位客人的那次活动持续了多久？")).toBe(false);
    expect(names("我那个养猫的同事参加过哪些活动？")).toBe(false);
  });
});
