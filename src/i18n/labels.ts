import { DEFAULT_ORGANISATION_NAME } from "~/server/auth/default-organisation";
import { en, type MessageKey } from "./messages/en";
import type { Translate } from "./translate";

/**
 * Display names for the codes the server stores and sends (event types, actor types, score and
 * match names, category segments, built-in kinds' texts). The codes stay as they are in URLs, exports
 * and the API; only what a person reads is translated. A code without a label (a custom kind's
 * category, an event type added later) shows as itself.
 */
const isMessageKey = (key: string): key is MessageKey => Object.hasOwn(en, key);

function labelOf(t: Translate, prefix: string, code: string): string {
  const key = `${prefix}.${code}`;
  return isMessageKey(key) ? t(key) : code;
}

export const eventLabel = (t: Translate, eventType: string) => labelOf(t, "event", eventType);
export const actorTypeLabel = (t: Translate, actorType: string) => labelOf(t, "actor", actorType);
/** A "why recalled" score component (`fullText`, `recency`, `final`). */
export const scoreLabel = (t: Translate, component: string) => labelOf(t, "score", component);
/** How a search hit was found (`full_text`, `exact`, `slot`). */
export const matchLabel = (t: Translate, matchedBy: string) => labelOf(t, "match", matchedBy);
/** A card's type (`preference`, `fact`). */
export const cardTypeLabel = (t: Translate, type: string) => labelOf(t, "cardType", type);
/** Who spoke a message (`user`, `assistant`). */
export const messageRoleLabel = (t: Translate, role: string) => labelOf(t, "role", role);
export const omitReasonLabel = (t: Translate, reason: string) => labelOf(t, "omit", reason);
/** One segment of a domain / category path (`preference`, `饮食偏好`), in the viewer's language. */
export const categoryLabel = (t: Translate, segment: string) => labelOf(t, "category", segment);
/** A `/`-joined category path, each segment translated. */
export const categoryPathLabel = (t: Translate, path: string) =>
  path
    .split("/")
    .map((segment) => categoryLabel(t, segment))
    .join(" / ");

type KindTexts = { kind: string; description: string; valueHint: string; source?: "builtin" | "custom" };

/** A built-in kind's description in the viewer's language; a custom kind's as its admin wrote it. */
export function kindDescription(t: Translate, kind: KindTexts): string {
  const key = `kind.${kind.kind}.description`;
  return kind.source !== "custom" && isMessageKey(key) ? t(key) : kind.description;
}

/** What a built-in kind's value should look like, in the viewer's language. */
export function kindValueHint(t: Translate, kind: KindTexts): string {
  const key = `kind.${kind.kind}.hint`;
  return kind.source !== "custom" && isMessageKey(key) ? t(key) : kind.valueHint;
}

/** The organisation's name; the one the install made for itself is named in the viewer's language. */
export const organisationLabel = (t: Translate, name: string) =>
  name === DEFAULT_ORGANISATION_NAME ? t("org.default") : name;
