import type { KindOption } from "~/trpc/types";
import { draftFromCard, cardFromDraft, type CardDraft } from "./card-draft";
import type { CardValues } from "./card-merge";

type Shape = KindOption["valueShape"] | undefined;
type CardLike = {
  title: string;
  content: string;
  valueJson?: unknown;
  tags: string[];
  entities: string[];
  confidence: number;
  importance: number;
  expiresAt: string | null;
};

/** A card (or revision) as the values an edit can change. */
export const cardValues = (card: CardLike): CardValues => ({
  title: card.title,
  content: card.content,
  valueJson: card.valueJson ?? null,
  tags: card.tags,
  entities: card.entities,
  confidence: card.confidence,
  importance: card.importance,
  expiresAt: card.expiresAt,
});

/**
 * What the edit form says, as values: a field whose text the person did not touch keeps the card's
 * exact value (the form rounds an expiry to the minute and prints scores as text, which must not read
 * as a change); a field left blank that a write cannot clear (value, scores) keeps it too.
 */
export function valuesFromDraft(draft: CardDraft, card: CardLike, shape: Shape): CardValues {
  const base = cardValues(card);
  const untouched = draftFromCard(card, shape);
  const drafted = cardFromDraft(draft, shape);
  const touched = (name: keyof CardDraft) => draft[name] !== untouched[name];
  return {
    title: touched("title") ? drafted.title : base.title,
    content: touched("content") ? drafted.content : base.content,
    valueJson: touched("value") && drafted.valueJson !== undefined ? drafted.valueJson : base.valueJson,
    tags: touched("tags") ? drafted.tags : base.tags,
    entities: touched("entities") ? drafted.entities : base.entities,
    confidence: touched("confidence") && drafted.confidence !== undefined ? drafted.confidence : base.confidence,
    importance: touched("importance") && drafted.importance !== undefined ? drafted.importance : base.importance,
    expiresAt: touched("expiresAt") ? drafted.expiresAt : base.expiresAt,
  };
}
