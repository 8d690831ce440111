import type { MemoryCardRow } from "~/db/schema";
import { canonicalJson } from "../store/card-revisions";
import type { DraftedCard } from "./draft";
import type { CardFieldsInput } from "./schema";

/** Whether a write changes a card: what noop, update and supersede decide on. */

export const sameText = (a: string, b: string) => a.replace(/\s+/g, " ").trim() === b.replace(/\s+/g, " ").trim();

export const sameContent = (row: MemoryCardRow, draft: DraftedCard) =>
  row.key === draft.key &&
  canonicalJson(row.valueJson) === canonicalJson(draft.valueJson) &&
  sameText(row.content, draft.content) &&
  (row.expiresAt?.getTime() ?? null) === (draft.expiresAt?.getTime() ?? null);

export const sameSet = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((item) => b.includes(item));

/**
 * An update changes nothing when the card's content is the same (sameContent) and so is every other
 * field it sent: before, an update of the title, tags, confidence or importance alone answered "already
 * says this; nothing changed" and dropped the edit (a card raised above the recall threshold stayed
 * hidden). New evidence (sourceMessageIds) is a change too, and so is an inferred card made explicit.
 */
export const updateChangesNothing = (target: MemoryCardRow, draft: DraftedCard, sent: Partial<CardFieldsInput>) =>
  sameContent(target, draft) &&
  // A person confirming an inferred card (explicitUserIntent) makes it explicit: a change of its own.
  !(draft.explicit && !target.explicitUserIntent) &&
  sameText(target.title, draft.title) &&
  sameSet(target.tags, draft.tags) &&
  sameSet(target.entities, draft.entities) &&
  (sent.confidence === undefined || sent.confidence === target.confidence) &&
  (sent.importance === undefined || sent.importance === target.importance) &&
  sameSet(target.sourceMessageIds, draft.sourceMessageIds);

/**
 * An update's card: the fields it sent over the target's. Confidence and importance it did not send
 * are the target's while the card says the same thing (a new tag does not make a stated fact less
 * certain); when title, content or value change, they are those of a new statement (by intent), as
 * for a create.
 */
export function updatedFields(target: MemoryCardRow, sent: Partial<CardFieldsInput>): CardFieldsInput {
  const fields = {
    title: sent.title ?? target.title,
    content: sent.content ?? target.content,
    valueJson: sent.valueJson ?? sent.value ?? target.valueJson ?? undefined,
  };
  const restated =
    !sameText(fields.title, target.title) ||
    !sameText(fields.content, target.content) ||
    canonicalJson(fields.valueJson ?? null) !== canonicalJson(target.valueJson ?? null);
  return {
    ...fields,
    tags: sent.tags ?? target.tags,
    entities: sent.entities ?? target.entities,
    confidence: sent.confidence ?? (restated ? undefined : target.confidence),
    importance: sent.importance ?? (restated ? undefined : target.importance),
    expiresAt: sent.expiresAt === undefined ? target.expiresAt : sent.expiresAt,
    sourceMessageIds: sent.sourceMessageIds,
  };
}
