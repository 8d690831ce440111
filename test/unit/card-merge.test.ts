import { describe, expect, it } from "vitest";
import { draftFromCard } from "~/components/memories/card-draft";
import {
  conflictingFields,
  mergeCard,
  cardFromValues,
  resolveMerge,
  type CardValues,
} from "~/components/memories/card-merge";
import { valuesFromDraft } from "~/components/memories/card-values";

const base: CardValues = {
  title: "Prefers tea",
  content: "The user drinks green tea in the morning.",
  valueJson: { drink: "tea", when: "morning" },
  tags: ["drinks"],
  entities: ["tea"],
  confidence: 0.8,
  importance: 0.5,
  expiresAt: "2030-01-01T10:00:30.000Z",
};
const outcomes = (merges: ReturnType<typeof mergeCard>) =>
  Object.fromEntries(merges.filter((m) => m.outcome !== "unchanged").map((m) => [m.field, m.outcome]));

describe("three-way card merge", () => {
  it("keeps the other tab's tag and applies this tab's title (the issue's case)", () => {
    const theirs = { ...base, tags: ["drinks", "morning"] };
    const mine = { ...base, title: "Prefers green tea" };
    const merges = mergeCard(base, theirs, mine);
    expect(outcomes(merges)).toEqual({ tags: "theirs", title: "mine" });
    expect(conflictingFields(merges)).toEqual([]);
    expect(resolveMerge(theirs, merges, {})).toEqual({
      ...base,
      title: "Prefers green tea",
      tags: ["drinks", "morning"],
    });
  });

  it("shows scores and expiry changed on the other side, and keeps them", () => {
    const theirs = { ...base, confidence: 0.3, importance: 0.9, expiresAt: null, entities: ["tea", "morning"] };
    const mine = { ...base, content: "The user drinks green tea every morning." };
    const merges = mergeCard(base, theirs, mine);
    expect(outcomes(merges)).toEqual({
      content: "mine",
      confidence: "theirs",
      importance: "theirs",
      expiresAt: "theirs",
      entities: "theirs",
    });
    expect(resolveMerge(theirs, merges, {})).toMatchObject({
      confidence: 0.3,
      importance: 0.9,
      expiresAt: null,
      entities: ["tea", "morning"],
      content: mine.content,
    });
  });

  it("refuses to guess when both sides changed the same field differently", () => {
    const theirs = { ...base, title: "Prefers black tea" };
    const mine = { ...base, title: "Prefers green tea" };
    const merges = mergeCard(base, theirs, mine);
    expect(conflictingFields(merges)).toEqual(["title"]);
    expect(resolveMerge(theirs, merges, {})).toBeNull();
    expect(resolveMerge(theirs, merges, { title: "mine" })?.title).toBe("Prefers green tea");
    expect(resolveMerge(theirs, merges, { title: "theirs" })?.title).toBe("Prefers black tea");
  });

  it("resolves every field from a list of the differences only (as the dialog shows them)", () => {
    const theirs = { ...base, tags: ["drinks", "morning"] };
    const differences = mergeCard(base, theirs, { ...base, title: "Prefers green tea" }).filter(
      (m) => m.outcome !== "unchanged",
    );
    expect(differences.map((m) => m.field)).toEqual(["title", "tags"]);
    expect(resolveMerge(theirs, differences, {})).toEqual({ ...theirs, title: "Prefers green tea" });
  });

  it("treats the same change on both sides as no conflict", () => {
    const changed = { ...base, valueJson: { when: "morning", drink: "coffee" } };
    const merges = mergeCard(base, changed, { ...changed, valueJson: { drink: "coffee", when: "morning" } });
    expect(outcomes(merges)).toEqual({ valueJson: "same" });
    expect(conflictingFields(merges)).toEqual([]);
  });

  it("combines tag lists both sides changed: additions and removals of both", () => {
    const start = { ...base, tags: ["a", "b", "c"] };
    const theirs = { ...start, tags: ["a", "b", "c", "x"] };
    const mine = { ...start, tags: ["a", "c", "y"] };
    const merges = mergeCard(start, theirs, mine);
    expect(outcomes(merges)).toEqual({ tags: "combined" });
    expect(resolveMerge(theirs, merges, {})?.tags).toEqual(["a", "c", "x", "y"]);
  });

  it("reads a reordered list, a score printed differently and an equal instant as unchanged", () => {
    const mine = { ...base, tags: [" drinks "], confidence: 0.8000000001, expiresAt: "2030-01-01T11:00:30+01:00" };
    expect(outcomes(mergeCard(base, base, mine))).toEqual({});
  });

  it("sends every field, scores included, and leaves an absent value to the server", () => {
    expect(cardFromValues({ ...base, valueJson: null, title: "  Tea  " })).toEqual({
      title: "Tea",
      content: base.content,
      tags: ["drinks"],
      entities: ["tea"],
      confidence: 0.8,
      importance: 0.5,
      expiresAt: base.expiresAt,
    });
  });
});

describe("edit form → values", () => {
  const card = { ...base, valueJson: base.valueJson };

  it("keeps exact values for fields the person did not touch (expiry seconds, scores)", () => {
    const draft = { ...draftFromCard(card, undefined), title: "Prefers green tea" };
    expect(valuesFromDraft(draft, card, undefined)).toEqual({ ...base, title: "Prefers green tea" });
  });

  it("reads touched fields from the form, and keeps what a blank cannot clear", () => {
    const draft = { ...draftFromCard(card, undefined), tags: "drinks, 早上", confidence: "", value: "", expiresAt: "" };
    const values = valuesFromDraft(draft, card, undefined);
    expect(values.tags).toEqual(["drinks", "早上"]);
    expect(values.confidence).toBe(0.8);
    expect(values.valueJson).toEqual(base.valueJson);
    expect(values.expiresAt).toBeNull();
  });
});
