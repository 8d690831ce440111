import { describe, expect, it } from "vitest";
import { ACTOR_TYPES, CARD_TYPES } from "~/db/schema";
import { htmlLang } from "~/i18n/config";
import {
  actorTypeLabel,
  categoryLabel,
  categoryPathLabel,
  eventLabel,
  kindDescription,
  kindValueHint,
  messageRoleLabel,
  cardTypeLabel,
  organisationLabel,
  scoreLabel,
} from "~/i18n/labels";
import { createTranslator } from "~/i18n/translate";
import { DEFAULT_ORGANISATION_NAME } from "~/server/auth/default-organisation";
import { AUDIT_EVENT_TYPES } from "~/server/dashboard/audit";
import { BUILT_IN_KINDS } from "~/server/memory/kinds/catalogue";
import { describeKind } from "~/server/memory/kinds/registry";

const en = createTranslator("en");
const zh = createTranslator("zh");
const HAN = /\p{Script=Han}/u;
const LATIN = /[A-Za-z]/;

describe("display labels in both languages", () => {
  it("gives every built-in kind its registry texts in English and a Chinese translation", () => {
    for (const def of BUILT_IN_KINDS) {
      const kind = describeKind(def);
      // The English dictionary repeats the registry: a changed registry text must be changed there too.
      expect(kindDescription(en, kind), def.kind).toBe(def.description);
      expect(kindValueHint(en, kind), def.kind).toBe(def.valueHint);
      expect(kindDescription(zh, kind), def.kind).toMatch(HAN);
      expect(kindValueHint(zh, kind), def.kind).toMatch(HAN);
    }
  });

  it("shows a custom kind's texts as its admin wrote them, in either language", () => {
    const custom = { kind: "hobby", description: "A hobby.", valueHint: "text", source: "custom" as const };
    expect(kindDescription(zh, custom)).toBe("A hobby.");
    expect(kindValueHint(zh, custom)).toBe("text");
    // A custom kind may not take a built-in name, but even then its own text wins.
    expect(kindDescription(zh, { ...custom, kind: "recipe" })).toBe("A hobby.");
  });

  it("names every category segment of the registry in one language per tree", () => {
    const segments = new Set(BUILT_IN_KINDS.flatMap((def) => [def.domain, ...def.categoryPath]));
    for (const segment of segments) {
      expect(categoryLabel(en, segment), segment).not.toMatch(HAN);
      expect(categoryLabel(zh, segment), segment).toMatch(HAN);
      expect(categoryLabel(zh, segment), segment).not.toMatch(LATIN);
    }
    expect(categoryPathLabel(en, "生活技能/做饭/饮食偏好")).toBe("life skills / cooking / dietary preferences");
    expect(categoryPathLabel(zh, "preference/food")).toBe("偏好 / 饮食");
    // A segment nobody translated (a custom kind's) shows as it is.
    expect(categoryPathLabel(zh, "hobby/music")).toBe("hobby / music");
  });

  it("names every audit event, actor type, card type and message role, and the score components", () => {
    for (const type of AUDIT_EVENT_TYPES) {
      expect(eventLabel(en, type)).toBe(type);
      expect(eventLabel(zh, type), type).toMatch(HAN);
    }
    for (const type of ACTOR_TYPES) expect(actorTypeLabel(zh, type), type).toMatch(HAN);
    for (const name of [
      "fullText",
      "trigram",
      "vector",
      "fused",
      "importance",
      "confidence",
      "recency",
      "hotness",
      "explicit",
      "final",
    ]) {
      expect(scoreLabel(zh, name), name).toMatch(HAN);
    }
    for (const type of CARD_TYPES) {
      expect(cardTypeLabel(en, type)).toBe(type);
      expect(cardTypeLabel(zh, type), type).toMatch(HAN);
    }
    for (const role of ["system", "user", "assistant", "tool"]) expect(messageRoleLabel(zh, role), role).toMatch(HAN);
    expect(eventLabel(zh, "some_future_event")).toBe("some_future_event");
  });

  it("translates the install's default organisation name only", () => {
    expect(organisationLabel(zh, DEFAULT_ORGANISATION_NAME)).toBe("默认组织");
    expect(organisationLabel(en, DEFAULT_ORGANISATION_NAME)).toBe("Default organisation");
    expect(organisationLabel(zh, "Acme")).toBe("Acme");
  });

  it("sets the page language tag", () => {
    expect(htmlLang("zh")).toBe("zh-CN");
    expect(htmlLang("en")).toBe("en");
  });
});
