import type { KindOption } from "~/trpc/types";

/** The editable fields of a card as form text, and the conversions to and from write payloads. */
export type CardDraft = {
  title: string;
  content: string;
  value: string;
  tags: string;
  entities: string;
  confidence: string;
  importance: string;
  /** `YYYY-MM-DDTHH:mm` in the viewer's local time (datetime-local), or "". */
  expiresAt: string;
  reason: string;
};

export const emptyDraft: CardDraft = { title: "", content: "", value: "", tags: "", entities: "", confidence: "", importance: "", expiresAt: "", reason: "" };

type Shape = KindOption["valueShape"] | undefined;

/** A value as the text a person edits: strings bare, lists one per line for string lists, JSON otherwise. */
export function valueToText(value: unknown, shape: Shape): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (shape === "string[]" && Array.isArray(value) && value.every((v) => typeof v === "string")) return value.join("\n");
  return JSON.stringify(value, null, 2);
}

/** The reverse: text kinds stay text; lists split by line; anything else is JSON if it parses, else text. */
export function textToValue(text: string, shape: Shape): unknown {
  const trimmed = text.trim();
  if (!trimmed) return undefined;
  if (shape === "string") return trimmed;
  if (shape === "string[]" && !trimmed.startsWith("[")) {
    return trimmed
      .split(/\n|[,，]/)
      .map((s) => s.trim())
      .filter(Boolean);
  }
  try {
    return JSON.parse(trimmed);
  } catch {
    return trimmed;
  }
}

const list = (text: string) =>
  text
    .split(/[,，\n]/)
    .map((s) => s.trim())
    .filter(Boolean);
const fraction = (text: string) => (text.trim() === "" || !Number.isFinite(Number(text)) ? undefined : Math.max(0, Math.min(1, Number(text))));

const pad = (n: number) => String(n).padStart(2, "0");
/** ISO → the value a datetime-local input shows (the browser's local time). */
export function isoToLocalInput(iso: string | null | undefined): string {
  if (!iso) return "";
  const d = new Date(iso);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export function draftFromCard(card: { title: string; content: string; valueJson?: unknown; tags: string[]; entities: string[]; confidence: number; importance: number; expiresAt: string | null }, shape: Shape): CardDraft {
  return {
    title: card.title,
    content: card.content,
    value: valueToText(card.valueJson, shape),
    tags: card.tags.join(", "),
    entities: card.entities.join(", "),
    confidence: String(card.confidence),
    importance: String(card.importance),
    expiresAt: isoToLocalInput(card.expiresAt),
    reason: "",
  };
}

/** The `node` of a memory_write operation; `partial` (updates) leaves unchanged scores to the server. */
export function nodeFromDraft(draft: CardDraft, shape: Shape) {
  const value = textToValue(draft.value, shape);
  return {
    title: draft.title.trim(),
    content: draft.content.trim(),
    ...(value !== undefined ? { valueJson: value } : {}),
    tags: list(draft.tags),
    entities: list(draft.entities),
    ...(fraction(draft.confidence) !== undefined ? { confidence: fraction(draft.confidence) } : {}),
    ...(fraction(draft.importance) !== undefined ? { importance: fraction(draft.importance) } : {}),
    expiresAt: draft.expiresAt ? new Date(draft.expiresAt).toISOString() : null,
  };
}
