import type { MessageKey, Translate } from "~/i18n/translate";
import type { KindOption } from "~/trpc/types";
import { kindValueHint } from "~/i18n/labels";

/** Refusals the create form words for people (in their language); any other keeps the server's sentence. */
const WORDED = new Set([
  "invalid_value",
  "value_required",
  "item_key_required",
  "item_key_not_allowed",
  "sentence",
  "timestamp",
  "random_id",
  "too_long",
  "empty",
  "scope_not_allowed",
  "scope_not_writable",
  "invalid_scope",
  "scope_required",
  "expiry_required",
  "expires_in_past",
  "sensitive_content",
]);

/** A kind's value hint (written for agents) in the form's words: the form calls itemKey "Item". */
export const formValueHint = (t: Translate, kind: KindOption) =>
  kindValueHint(t, kind).replace(/\bitemKey\b/g, t("field.itemKey"));

/**
 * A write's refusal as the form says it: in the form's own words ("Item", not itemKey; the kind's
 * value hint, not a schema path), or the server's message for a reason it has no wording for.
 */
export function refusalText(
  t: Translate,
  refusal: { reason?: string; message: string },
  context: { kind?: KindOption; scope: string },
): string {
  if (!refusal.reason || !WORDED.has(refusal.reason)) return refusal.message;
  const kind = context.kind;
  return t(`create.refused.${refusal.reason}` as MessageKey, {
    kind: kind?.kind ?? "",
    hint: kind ? formValueHint(t, kind) : "",
    scopes: kind?.allowedScopes.join(", ") ?? "",
    scope: context.scope || "—",
  });
}
