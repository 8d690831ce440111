import type { KindOption } from "~/trpc/types";

/**
 * How the Value box is read, the same for every kind: "text" saves what was typed as one string;
 * "json" parses it (an object, a list, a number, true/false, a quoted string). The form shows the
 * choice as a toggle; until the person picks one, text starting with `{` or `[` is read as JSON.
 */
export type ValueMode = "text" | "json";

/** The editable fields of a card as form text, and the conversions to and from write payloads. */
export type CardDraft = {
  title: string;
  content: string;
  value: string;
  valueMode: ValueMode;
  /** The person picked valueMode on the toggle: typing no longer switches it. */
  valueModeChosen: boolean;
  tags: string;
  entities: string;
  confidence: string;
  importance: string;
  /** `YYYY-MM-DDTHH:mm` in the viewer's local time (datetime-local), or "". */
  expiresAt: string;
  reason: string;
};

export const emptyDraft: CardDraft = {
  title: "",
  content: "",
  value: "",
  valueMode: "text",
  valueModeChosen: false,
  tags: "",
  entities: "",
  confidence: "",
  importance: "",
  expiresAt: "",
  reason: "",
};

type Shape = KindOption["valueShape"] | undefined;

/** The mode text is read in until the person chooses: JSON when it opens an object or a list. */
export const guessValueMode = (text: string): ValueMode => (/^\s*[[{]/.test(text) ? "json" : "text");

/** A stored value as the text a person edits, and the mode that reads it back to the same value. */
export function valueToText(value: unknown): { text: string; mode: ValueMode } {
  if (value === null || value === undefined) return { text: "", mode: "text" };
  if (typeof value === "string") return { text: value, mode: "text" };
  return { text: JSON.stringify(value, null, 2), mode: "json" };
}

export type ParsedValue = { ok: true; value: unknown } | { ok: false; error: string };

/** The Value box read in `mode`; empty means no value. A JSON syntax error comes back, never text in its place. */
export function parseValue(text: string, mode: ValueMode): ParsedValue {
  const trimmed = text.trim();
  if (!trimmed) return { ok: true, value: undefined };
  if (mode === "text") return { ok: true, value: trimmed };
  try {
    return { ok: true, value: JSON.parse(trimmed) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

const list = (text: string) =>
  text
    .split(/[,，\n]/)
    .map((s) => s.trim())
    .filter(Boolean);
const fraction = (text: string) =>
  text.trim() === "" || !Number.isFinite(Number(text)) ? undefined : Math.max(0, Math.min(1, Number(text)));

const pad = (n: number) => String(n).padStart(2, "0");
/** ISO → the value a datetime-local input shows (the browser's local time). */
export function isoToLocalInput(iso: string | null | undefined): string {
  if (!iso) return "";
  const d = new Date(iso);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** `_shape` is unused: values are read the same way for every kind (kept so callers need no change). */
export function draftFromCard(
  card: {
    title: string;
    content: string;
    valueJson?: unknown;
    tags: string[];
    entities: string[];
    confidence: number;
    importance: number;
    expiresAt: string | null;
  },
  _shape?: Shape,
): CardDraft {
  const { text, mode } = valueToText(card.valueJson);
  return {
    title: card.title,
    content: card.content,
    value: text,
    valueMode: mode,
    valueModeChosen: false,
    tags: card.tags.join(", "),
    entities: card.entities.join(", "),
    confidence: String(card.confidence),
    importance: String(card.importance),
    expiresAt: isoToLocalInput(card.expiresAt),
    reason: "",
  };
}

/** The `node` of a memory_write operation (`_shape` unused, as for draftFromCard). The form blocks saving while the JSON does not parse. */
export function cardFromDraft(draft: CardDraft, _shape?: Shape) {
  const parsed = parseValue(draft.value, draft.valueMode);
  if (!parsed.ok)
    throw new Error(
      `Value is not valid JSON (${parsed.error}). Fix it, or switch Value to Text to save it as written.`,
    );
  const value = parsed.value;
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
