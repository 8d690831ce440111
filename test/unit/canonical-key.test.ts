import { describe, expect, it } from "vitest";
import {
  canonicalKey,
  itemKeyFromTitle,
  normalizeItemKey,
  parseCanonicalKey,
} from "~/server/memory/kinds/canonical-key";
import { resolveKind } from "~/server/memory/kinds/registry";

const itemKeyOf = (raw: string) => {
  const result = normalizeItemKey(raw);
  if (!result.ok) throw new Error(`${raw}: ${result.reason}`);
  return result.itemKey;
};
const reasonOf = (raw: string) => {
  const result = normalizeItemKey(raw);
  return result.ok ? "ok" : result.reason;
};

describe("normalizeItemKey", () => {
  it("gives the same key for spellings of one concept", () => {
    for (const raw of [
      "Hermes Studio",
      "hermes-studio",
      "HERMES_STUDIO",
      "Ｈｅｒｍｅｓ　Ｓｔｕｄｉｏ",
      " hermes.studio ",
      "hermes / studio",
      "hermes:studio",
      "hermes—studio",
    ]) {
      expect(itemKeyOf(raw)).toBe("hermes_studio");
    }
  });

  it("keeps CJK and drops whitespace touching CJK characters", () => {
    expect(itemKeyOf("香菜")).toBe("香菜");
    expect(itemKeyOf(" 香 菜 ")).toBe("香菜");
    expect(itemKeyOf("香　菜")).toBe("香菜");
    expect(itemKeyOf("iPhone 手机")).toBe(itemKeyOf("iphone手机"));
    expect(itemKeyOf("東京タワー")).toBe("東京タワー");
  });

  it("strips punctuation and apostrophes, collapses separators", () => {
    expect(itemKeyOf("O'Reilly  Media")).toBe("oreilly_media");
    expect(itemKeyOf("__wifi___ssid__")).toBe("wifi_ssid");
    expect(itemKeyOf("《三体》")).toBe("三体");
    expect(itemKeyOf("Café Crème")).toBe("café_crème");
    expect(itemKeyOf("bike2024")).toBe("bike2024");
  });

  it("rejects empty input", () => {
    expect(reasonOf("")).toBe("empty");
    expect(reasonOf("  -- //  ")).toBe("empty");
    expect(reasonOf(undefined as unknown as string)).toBe("empty");
  });

  it("rejects sentences and lists", () => {
    expect(reasonOf("the user really does not like eating cilantro at all")).toBe("sentence");
    expect(reasonOf("我以后做饭都不要放香菜因为我真的很讨厌这个味道")).toBe("sentence");
    expect(reasonOf("不要香菜。")).toBe("sentence");
    expect(reasonOf("Do you like it?")).toBe("sentence");
    expect(reasonOf("香菜，葱")).toBe("sentence");
  });

  it("rejects dates, times and epoch timestamps", () => {
    for (const raw of [
      "2024-05-01",
      "note 2024/5/1",
      "2024年5月1日",
      "20240501",
      "1714567890",
      "1714567890123",
      "10:30 meeting",
      "05/01/2024",
      "meeting_2024_05_01",
    ]) {
      expect(reasonOf(raw), raw).toBe("timestamp");
    }
    expect(itemKeyOf("2024 goals")).toBe("2024_goals");
  });

  it("rejects random ids", () => {
    for (const raw of [
      "550e8400-e29b-41d4-a716-446655440000",
      "deadbeef1234abcd",
      "aZ3kQ9xLm2PqR7tY",
      "order 123456789012",
      "k3j9x0q7w1e5r8t2",
    ]) {
      expect(reasonOf(raw), raw).toBe("random_id");
    }
    expect(itemKeyOf("HermesStudio2024Project")).toBe("hermesstudio2024project");
  });

  it("rejects keys longer than the limit", () => {
    expect(reasonOf("a".repeat(65))).toBe("too_long");
    expect(itemKeyOf("a".repeat(64))).toHaveLength(64);
  });
});

describe("canonicalKey", () => {
  const name = resolveKind("profile_name")!;
  const fact = resolveKind("custom_fact")!;
  const avoid = resolveKind("avoid_ingredient")!;

  it("uses the slot key for single-slot kinds and refuses an item", () => {
    expect(canonicalKey(name)).toEqual({ ok: true, key: "profile.identity.name", itemKey: null });
    expect(canonicalKey(name, "")).toMatchObject({ ok: true, key: "profile.identity.name" });
    expect(canonicalKey(name, "alice")).toMatchObject({ ok: false, reason: "item_key_not_allowed" });
  });

  it("appends the normalized item for itemized kinds and requires one", () => {
    expect(canonicalKey(fact, "WiFi SSID")).toEqual({ ok: true, key: "custom.fact:wifi_ssid", itemKey: "wifi_ssid" });
    expect(canonicalKey(avoid, " 香菜 ")).toEqual({ ok: true, key: "cooking.avoid_ingredient:香菜", itemKey: "香菜" });
    expect(canonicalKey(fact)).toMatchObject({ ok: false, reason: "item_key_required" });
    expect(canonicalKey(fact, "2024-05-01")).toMatchObject({ ok: false, reason: "timestamp" });
  });

  it("round-trips through parseCanonicalKey", () => {
    expect(parseCanonicalKey("custom.fact:wifi_ssid")).toEqual({ slotKey: "custom.fact", itemKey: "wifi_ssid" });
    expect(parseCanonicalKey("profile.identity.name")).toEqual({ slotKey: "profile.identity.name", itemKey: null });
  });
});

describe("itemKeyFromTitle", () => {
  const decision = resolveKind("durable_decision")!;
  const keyOf = (title: string) => {
    const item = itemKeyFromTitle(title);
    return item === undefined ? undefined : canonicalKey(decision, item);
  };

  it("makes a decision's item from its title's first words", () => {
    expect(keyOf("Apollo uses Postgres")).toEqual({
      ok: true,
      key: "decision.durable:apollo_uses_postgres",
      itemKey: "apollo_uses_postgres",
    });
    expect(keyOf("No Friday deploys.")).toMatchObject({ ok: true, key: "decision.durable:no_friday_deploys" });
    expect(keyOf("We decided, after the outage, that nobody deploys on a Friday")).toMatchObject({
      ok: true,
      key: "decision.durable:we_decided_after_the_outage_that",
    });
    expect(keyOf("数据库统一用 Postgres。")).toMatchObject({ ok: true, key: "decision.durable:数据库统一用postgres" });
  });

  it("leaves nothing to refuse but what is no concept", () => {
    expect(itemKeyFromTitle(" … ")).toBeUndefined();
    expect(keyOf("2024-05-01")).toMatchObject({ ok: false, reason: "timestamp" });
  });
});
