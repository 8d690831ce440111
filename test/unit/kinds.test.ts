import { describe, expect, it } from "vitest";
import { CARD_TYPES, SCOPE_TYPES } from "~/db/schema";
import { BUILT_IN_KINDS, kindKeySynonyms, MERGED_KINDS } from "~/server/memory/kinds/catalogue";
import { buildCustomKind } from "~/server/memory/kinds/custom-schema";
import type { KindDefinition } from "~/server/memory/kinds/definition";
import {
  ALWAYS_RECALLED_KINDS,
  checkKindScope,
  describeKind,
  storedKindNames,
  storedSlotKeys,
  listKinds,
  resolveKind,
  validateKindValue,
} from "~/server/memory/kinds/registry";

const kind = (name: string): KindDefinition => {
  const def = resolveKind(name);
  if (!def) throw new Error(`no kind ${name}`);
  return def;
};

describe("built-in registry", () => {
  it("has the built-in kinds' fixed slots with their canonical keys", () => {
    const slots: Record<string, string> = {
      interaction_contract: "interaction.relationship",
      profile_name: "profile.identity.name",
      home_location: "profile.location.home",
      occupation: "profile.occupation",
      timezone_preference: "preference.timezone",
      language_preference: "preference.language",
      hard_constraint: "constraint.hard",
      long_term_goal: "goal.long_term",
      durable_decision: "decision.durable",
      custom_fact: "custom.fact",
    };
    for (const [name, key] of Object.entries(slots)) expect(kind(name).key).toBe(key);
    expect(kind("custom_fact").itemized).toBe(true);
    expect(kind("profile_name").itemized).toBe(false);
  });

  it("has the cooking kinds under 生活技能/做饭/饮食偏好, explicit intent, user scope", () => {
    for (const name of [
      "avoid_ingredient",
      "preferred_ingredient",
      "flavor_profile",
      "dietary_restriction",
      "cooking_time_preference",
    ]) {
      const def = kind(name);
      expect(def.domain).toBe("生活技能");
      expect(def.categoryPath).toEqual(["生活技能", "做饭", "饮食偏好"]);
      expect(def.type).toBe("preference");
      expect(def.requiresExplicitIntent).toBe(true);
      expect(def.defaultScope).toBe("user");
    }
    expect(kind("avoid_ingredient").itemized).toBe(true);
    expect(kind("flavor_profile").itemized).toBe(false);
  });

  it("is internally consistent", () => {
    const kinds = new Set<string>();
    const keys = new Set<string>();
    for (const def of BUILT_IN_KINDS) {
      expect(kinds.has(def.kind), def.kind).toBe(false);
      expect(keys.has(def.key), def.key).toBe(false);
      kinds.add(def.kind);
      keys.add(def.key);
      expect(CARD_TYPES).toContain(def.type);
      expect(def.allowedScopes).toContain(def.defaultScope);
      for (const scope of def.allowedScopes) expect(SCOPE_TYPES).toContain(scope);
      expect(def.description).toMatch(/^[A-Z].+\.$/);
      expect(def.description).not.toContain("\n");
      expect(def.source).toBe("builtin");
    }
    for (const target of Object.values(kindKeySynonyms)) expect(kinds.has(target), target).toBe(true);
    for (const synonym of Object.keys(kindKeySynonyms)) expect(kinds.has(synonym), synonym).toBe(false);
  });

  it("always recalls the contract, language, accessibility, communication and hard constraints", () => {
    expect([...ALWAYS_RECALLED_KINDS].sort()).toEqual(
      [
        "accessibility_need",
        "communication_preference",
        "hard_constraint",
        "interaction_contract",
        "language_preference",
      ].sort(),
    );
  });
});

describe("resolveKind", () => {
  it("resolves names, synonyms and keys", () => {
    expect(resolveKind("disliked_ingredient")?.kind).toBe("avoid_ingredient");
    expect(resolveKind("avoid_food")?.kind).toBe("avoid_ingredient");
    expect(resolveKind("excluded_ingredient")?.kind).toBe("avoid_ingredient");
    expect(resolveKind("food_dislike")?.kind).toBe("avoid_ingredient");
    expect(resolveKind(" Profile-Name ")?.kind).toBe("profile_name");
    expect(resolveKind("profile.identity.name")?.kind).toBe("profile_name");
    expect(resolveKind("cooking.avoid_ingredient:香菜")?.kind).toBe("avoid_ingredient");
    expect(resolveKind("no_such_kind")).toBeUndefined();
    expect(resolveKind("")).toBeUndefined();
  });
});

describe("merged kinds", () => {
  it("makes food_avoidance a synonym of avoid_ingredient, whose old slot key still resolves", () => {
    expect(BUILT_IN_KINDS.map((def) => def.kind)).not.toContain("food_avoidance");
    expect(resolveKind("food_avoidance")?.kind).toBe("avoid_ingredient");
    expect(resolveKind("preference.food.avoid:peanuts")?.kind).toBe("avoid_ingredient");
    expect(storedKindNames("avoid_ingredient")).toEqual(["avoid_ingredient", "food_avoidance"]);
    expect(storedSlotKeys(kind("avoid_ingredient"))).toEqual(["cooking.avoid_ingredient", "preference.food.avoid"]);
    expect(storedKindNames("profile_name")).toEqual(["profile_name"]);
    for (const merged of Object.values(MERGED_KINDS)) expect(resolveKind(merged.into)?.kind).toBe(merged.into);
  });

  it("takes what people typed for food_avoidance: { food, reason }, with the food as the item", () => {
    const def = kind("food_avoidance");
    expect(validateKindValue(def, { food: "香菜", reason: "dislike" })).toEqual({
      ok: true,
      value: { food: "香菜", reason: "dislike" },
    });
    expect(def.itemKeyFromValue?.({ food: "香菜", reason: "dislike" })).toBe("香菜");
  });

  it("may not be taken by a custom kind's key", () => {
    expect(
      buildCustomKind({
        kind: "food_thing",
        key: "preference.food.avoid",
        domain: "x",
        type: "fact",
        description: "x",
      }),
    ).toMatchObject({ ok: false, reason: "shadows_builtin" });
  });
});

describe("durable_decision", () => {
  it("holds one card per decision, its item made from the title when none is given", () => {
    const def = kind("durable_decision");
    expect(def.itemized).toBe(true);
    expect(def.itemKeyFromTitle).toBe(true);
    expect(describeKind(def)).toMatchObject({ itemized: true, itemFrom: "title" });
    expect(describeKind(kind("avoid_ingredient"))).toMatchObject({ itemFrom: "value" });
    expect(describeKind(kind("custom_fact"))).toMatchObject({ itemFrom: null });
  });
});

describe("validateKindValue", () => {
  it("requires one of userRole/assistantRole/addressUserAs for interaction_contract", () => {
    expect(validateKindValue(kind("interaction_contract"), { addressUserAs: "老板" })).toEqual({
      ok: true,
      value: { addressUserAs: "老板" },
    });
    expect(validateKindValue(kind("interaction_contract"), { tone: "casual" })).toMatchObject({
      ok: false,
      reason: "invalid_value",
    });
    expect(validateKindValue(kind("interaction_contract"), undefined)).toMatchObject({
      ok: false,
      reason: "value_required",
    });
  });

  it("requires city or location for home_location and wraps plain text", () => {
    expect(validateKindValue(kind("home_location"), { city: "Hangzhou" })).toMatchObject({ ok: true });
    expect(validateKindValue(kind("home_location"), "杭州")).toEqual({ ok: true, value: { location: "杭州" } });
    expect(validateKindValue(kind("home_location"), { country: "China" })).toMatchObject({ ok: false });
  });

  it("normalizes flavor phrases and rejects unrecognised ones", () => {
    expect(validateKindValue(kind("flavor_profile"), "少油少辣")).toEqual({
      ok: true,
      value: { oil: "low", spicy: "low" },
    });
    expect(validateKindValue(kind("flavor_profile"), { oil: "low", spicy: "low" })).toEqual({
      ok: true,
      value: { oil: "low", spicy: "low" },
    });
    expect(validateKindValue(kind("flavor_profile"), "我喜欢川菜")).toMatchObject({
      ok: false,
      reason: "invalid_value",
    });
  });

  it("checks time zones", () => {
    expect(validateKindValue(kind("timezone_preference"), "Asia/Shanghai")).toMatchObject({ ok: true });
    expect(validateKindValue(kind("timezone_preference"), "UTC+8")).toMatchObject({ ok: true });
    expect(validateKindValue(kind("timezone_preference"), "Mars/Olympus")).toMatchObject({ ok: false });
  });

  it("accepts a missing value where content may carry the fact", () => {
    expect(validateKindValue(kind("custom_fact"), undefined)).toEqual({ ok: true, value: null });
    expect(validateKindValue(kind("avoid_ingredient"), "  香菜 ")).toEqual({ ok: true, value: "香菜" });
  });

  it("derives item keys from values for ingredient kinds", () => {
    expect(kind("avoid_ingredient").itemKeyFromValue?.("香菜")).toBe("香菜");
    expect(kind("avoid_ingredient").itemKeyFromValue?.({ ingredient: "葱" })).toBe("葱");
    expect(kind("avoid_ingredient").itemKeyFromValue?.(42)).toBeUndefined();
  });
});

describe("checkKindScope", () => {
  it("refuses scopes a kind does not allow", () => {
    expect(checkKindScope(kind("profile_name"), "user", { hasExpiry: false })).toEqual({ ok: true });
    expect(checkKindScope(kind("profile_name"), "global", { hasExpiry: false })).toMatchObject({
      ok: false,
      reason: "scope_not_allowed",
    });
  });

  it("keeps undated temporary states out of long-term scopes", () => {
    const state = kind("temporary_state");
    expect(state.defaultScope).toBe("session");
    expect(checkKindScope(state, "session", { hasExpiry: false })).toEqual({ ok: true });
    expect(checkKindScope(state, "user", { hasExpiry: false })).toMatchObject({ ok: false, reason: "expiry_required" });
    expect(checkKindScope(state, "user", { hasExpiry: true })).toEqual({ ok: true });
  });
});

describe("custom kinds", () => {
  const instrument = {
    kind: "instrument",
    key: "hobby.instrument",
    domain: "hobby",
    categoryPath: ["hobby", "music"],
    type: "preference",
    itemized: true,
    valueShape: "string",
    description: "An instrument the user plays.",
  };

  it("builds a definition from an admin's JSON", () => {
    const result = buildCustomKind(instrument);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const def = result.definition;
    expect(def).toMatchObject({
      kind: "instrument",
      key: "hobby.instrument",
      source: "custom",
      defaultScope: "user",
      requiresExplicitIntent: true,
    });
    expect(validateKindValue(def, "cello")).toEqual({ ok: true, value: "cello" });
    expect(validateKindValue(def, 3)).toMatchObject({ ok: false });
    expect(resolveKind("instrument", [def])).toBe(def);
    expect(resolveKind("hobby.instrument:cello", [def])).toBe(def);
    expect(listKinds([def])).toHaveLength(BUILT_IN_KINDS.length + 1);
  });

  it("may not shadow built-in kinds, synonyms or keys", () => {
    expect(buildCustomKind({ ...instrument, kind: "profile_name" })).toMatchObject({
      ok: false,
      reason: "shadows_builtin",
    });
    expect(buildCustomKind({ ...instrument, kind: "disliked_ingredient" })).toMatchObject({
      ok: false,
      reason: "shadows_builtin",
    });
    expect(buildCustomKind({ ...instrument, key: "profile.identity.name" })).toMatchObject({
      ok: false,
      reason: "shadows_builtin",
    });
    expect(buildCustomKind({ ...instrument, key: "profile.identity.name.alias" })).toMatchObject({
      ok: false,
      reason: "shadows_builtin",
    });
    expect(resolveKind("profile_name", [{ ...kind("occupation"), kind: "profile_name", source: "custom" }])?.key).toBe(
      "profile.identity.name",
    );
  });

  it("rejects malformed definitions and duplicate keys", () => {
    expect(buildCustomKind({ ...instrument, kind: "Bad Name" })).toMatchObject({
      ok: false,
      reason: "invalid_definition",
    });
    expect(buildCustomKind({ ...instrument, type: "opinion" })).toMatchObject({
      ok: false,
      reason: "invalid_definition",
    });
    expect(buildCustomKind({ ...instrument, extra: true })).toMatchObject({ ok: false, reason: "invalid_definition" });
    expect(buildCustomKind({ ...instrument, defaultScope: "session", allowedScopes: ["user"] })).toMatchObject({
      ok: false,
      reason: "invalid_definition",
    });
    const first = buildCustomKind(instrument);
    if (!first.ok) throw new Error(first.message);
    expect(buildCustomKind({ ...instrument, kind: "instrument_two" }, [first.definition])).toMatchObject({
      ok: false,
      reason: "duplicate",
    });
    expect(buildCustomKind(instrument, [first.definition]).ok).toBe(true); // re-saving the same kind
  });
});
