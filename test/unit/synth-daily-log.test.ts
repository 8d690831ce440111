import { describe, expect, it } from "vitest";
import { synthDailyLog, type DailyLogOptions } from "../../bench/synth-daily-zh";
import { evalDatasetSchema } from "../../bench/lib/eval-format";

const options: DailyLogOptions = { conversations: 2, stories: 12, seed: 7, wrapped: 0, name: "t" };

describe("the made-up daily-life log", () => {
  it("is the same for the same options and another for another seed", () => {
    expect(synthDailyLog(options)).toEqual(synthDailyLog(options));
    expect(synthDailyLog({ ...options, seed: 8 })).not.toEqual(synthDailyLog(options));
  });

  it("is memory-eval/v1, and every question's evidence is a message of its own conversation", () => {
    const log = synthDailyLog(options);
    expect(evalDatasetSchema.safeParse(log).success).toBe(true);
    const idsOf = new Map(log.conversations.map((c) => [c.id, new Set(c.messages.map((m) => m.id))]));
    for (const query of log.queries) {
      expect(query.evidence.length).toBeGreaterThan(0);
      for (const id of query.evidence) expect(idsOf.get(query.conversationId)?.has(id)).toBe(true);
    }
    const ids = log.conversations.flatMap((c) => c.messages.map((m) => m.id));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("asks every kind of question, and names a person the evidence is about", () => {
    const log = synthDailyLog(options);
    const text = new Map(log.conversations.flatMap((c) => c.messages.map((m) => [m.id, m.content] as const)));
    const categories = new Set(log.queries.map((q) => q.category));
    for (const category of [
      "simple",
      "noisy",
      "by-relation",
      "conditional",
      "comparative",
      "aggregative",
      "post-processing",
    ])
      expect(categories).toContain(category);
    expect(categories).not.toContain("in-chatter");
    const comparisons = log.queries.filter((q) => q.category === "comparative").map((q) => q.question);
    expect(new Set(comparisons).size).toBe(comparisons.length);
    // A simple question names its person; its evidence names them too, or the relation and the introduction that ties it.
    const introduced = [...text.values()]
      .map((content) => /^(?:我\S{1,4}叫|我有个\S{1,4}，名字叫|我\S{1,4}的名字是)(\S{2,3})。$/u.exec(content)?.[1])
      .filter((n) => n !== undefined);
    let checked = 0;
    for (const query of log.queries.filter((q) => q.category === "simple")) {
      const name = introduced.find((n) => query.question.startsWith(n));
      if (!name) continue;
      expect(query.evidence.some((id) => text.get(id)!.includes(name))).toBe(true);
      checked++;
    }
    expect(checked).toBeGreaterThan(5);
  });

  it("tells a share of facts inside chit-chat only when asked to", () => {
    const log = synthDailyLog({ ...options, wrapped: 0.5 });
    const inChatter = log.queries.filter((q) => q.category === "in-chatter");
    expect(inChatter.length).toBeGreaterThan(0);
    const text = new Map(log.conversations.flatMap((c) => c.messages.map((m) => [m.id, m.content] as const)));
    for (const query of inChatter)
      expect(text.get(query.evidence[0]!)).toMatch(/对了，|说到这个，|顺便一提，|哦还有，/u);
  });

  it("wraps a fact in several chit-chat sentences with --wrap-length", () => {
    const sentences = (content: string) => content.split(/[。？]/u).filter(Boolean).length;
    const longest = (wrapLength: number) => {
      const log = synthDailyLog({ ...options, wrapped: 1, wrapLength });
      const text = new Map(log.conversations.flatMap((c) => c.messages.map((m) => [m.id, m.content] as const)));
      const wrapped = log.queries.filter((q) => q.category === "in-chatter").map((q) => text.get(q.evidence[0]!)!);
      expect(wrapped.length).toBeGreaterThan(0);
      return Math.max(...wrapped.map(sentences));
    };
    // One chit-chat sentence, the fact, and a tail at most: three; with three on each side, more.
    expect(longest(1)).toBeLessThanOrEqual(3);
    expect(longest(3)).toBeGreaterThan(3);
  });

  it("calls a person 他 or 她 right after a line about them only with --pronouns", () => {
    const textOf = (log: ReturnType<typeof synthDailyLog>) =>
      log.conversations.flatMap((c) => c.messages.map((m) => m.content));
    expect(textOf(synthDailyLog(options)).some((content) => /\u0001/u.test(content))).toBe(false);
    expect(synthDailyLog(options).queries.some((q) => q.category === "by-pronoun")).toBe(false);
    const log = synthDailyLog({ ...options, pronouns: 1 });
    expect(textOf(log).some((content) => /\u0001/u.test(content))).toBe(false);
    const messages = log.conversations.flatMap((c) => c.messages);
    const asked = log.queries.filter((q) => q.category === "by-pronoun");
    expect(asked.length).toBeGreaterThan(0);
    for (const query of asked) {
      const at = messages.findIndex((m) => m.id === query.evidence[0]);
      // The answer calls them by pronoun (not always first: "说起来他…"), right after a line about them.
      expect(messages[at]!.content).toMatch(/[他她]/u);
      expect(messages[at]!.content.includes(query.question.slice(0, 2))).toBe(false);
      expect(query.evidence).toHaveLength(1);
      // Not chit-chat (which opens with a time of day or week).
      expect(messages[at - 1]!.content).not.toMatch(/^(?:今天|昨天|刚才|这周|最近|早上|晚上|周末)/u);
    }
  });
});
