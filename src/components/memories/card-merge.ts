/**
 * Three-way merge of an edit that lost a race: `base` is the revision the person started editing,
 * `theirs` the revision saved meanwhile, `mine` what the person typed. Only the fields this tab changed
 * are applied on top of `theirs`; a field both sides changed differently is a conflict the person
 * settles field by field (tag and entity lists combine element by element instead). Pure: no React.
 */

/** The fields of a card an edit can change, as values (not form text). */
export type CardValues = {
  title: string;
  content: string;
  valueJson: unknown;
  tags: string[];
  entities: string[];
  confidence: number;
  importance: number;
  /** ISO text, or null for "never". */
  expiresAt: string | null;
};

export const MERGE_FIELDS = [
  "title",
  "content",
  "valueJson",
  "tags",
  "entities",
  "confidence",
  "importance",
  "expiresAt",
] as const satisfies readonly (keyof CardValues)[];
export type MergeField = (typeof MERGE_FIELDS)[number];

/**
 * What happened to one field: `unchanged` (nobody touched it), `theirs` (only the other revision
 * changed it: kept), `mine` (only this tab: applied), `same` (both made the same change),
 * `combined` (both changed a list: additions and removals of both kept), `conflict` (both changed it
 * differently: the person chooses).
 */
export type FieldOutcome = "unchanged" | "theirs" | "mine" | "same" | "combined" | "conflict";

/** One field's three versions and its result (for a conflict, `theirs` until the person chooses). */
export type FieldMerge = {
  [F in MergeField]: {
    field: F;
    outcome: FieldOutcome;
    base: CardValues[F];
    theirs: CardValues[F];
    mine: CardValues[F];
    merged: CardValues[F];
  };
}[MergeField];

export type Choice = "theirs" | "mine";

/** JSON with object keys sorted, so `{a,b}` and `{b,a}` compare equal; undefined counts as null. */
function canonical(value: unknown): string {
  if (value === undefined || value === null) return "null";
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

const listKey = (items: readonly string[]) => [...new Set(items.map((s) => s.trim()))].sort().join("\u0000");
const time = (iso: string | null) => (iso ? new Date(iso).getTime() : null);

/** Whether two versions of a field say the same (lists as sets, scores to the 6 decimals stored). */
export function sameValue<F extends MergeField>(field: F, a: CardValues[F], b: CardValues[F]): boolean {
  switch (field) {
    case "title":
    case "content":
      return String(a).trim() === String(b).trim();
    case "tags":
    case "entities":
      return listKey(a as string[]) === listKey(b as string[]);
    case "confidence":
    case "importance":
      return Math.round((a as number) * 1e6) === Math.round((b as number) * 1e6);
    case "expiresAt":
      return time(a as string | null) === time(b as string | null);
    default:
      return canonical(a) === canonical(b);
  }
}

/** `theirs` with this tab's additions and removals (relative to `base`) applied, in theirs' order. */
function combineLists(base: readonly string[], theirs: readonly string[], mine: readonly string[]): string[] {
  const has = (list: readonly string[], item: string) => list.some((x) => x.trim() === item.trim());
  const removed = base.filter((item) => !has(mine, item));
  const added = mine.filter((item) => !has(base, item) && !has(theirs, item));
  return [...theirs.filter((item) => !has(removed, item)), ...added];
}

function mergeField<F extends MergeField>(
  field: F,
  base: CardValues[F],
  theirs: CardValues[F],
  mine: CardValues[F],
): FieldMerge {
  const at = (outcome: FieldOutcome, merged: CardValues[F]) =>
    ({ field, outcome, base, theirs, mine, merged }) as FieldMerge;
  const mineChanged = !sameValue(field, mine, base);
  const theirsChanged = !sameValue(field, theirs, base);
  if (!mineChanged) return at(theirsChanged ? "theirs" : "unchanged", theirs);
  if (!theirsChanged) return at("mine", mine);
  if (sameValue(field, mine, theirs)) return at("same", theirs);
  if (field === "tags" || field === "entities")
    return at("combined", combineLists(base as string[], theirs as string[], mine as string[]) as CardValues[F]);
  return at("conflict", theirs);
}

/** Every field's three-way result, in form order. */
export function mergeCard(base: CardValues, theirs: CardValues, mine: CardValues): FieldMerge[] {
  return MERGE_FIELDS.map((field) => mergeField(field, base[field], theirs[field], mine[field]));
}

/** The fields both sides changed differently, which need the person's choice. */
export const conflictingFields = (merges: readonly FieldMerge[]): MergeField[] =>
  merges.filter((m) => m.outcome === "conflict").map((m) => m.field);

/**
 * The card to save on top of `theirs`: `theirs` with every merged field, conflicts as chosen (a list
 * that leaves fields out, like the dialog's list of differences, keeps theirs for them). Null while a
 * conflict has no choice (nothing is applied by guess).
 */
export function resolveMerge(
  theirs: CardValues,
  merges: readonly FieldMerge[],
  choices: Partial<Record<MergeField, Choice>>,
): CardValues | null {
  const values: Partial<Record<MergeField, unknown>> = { ...theirs };
  for (const m of merges) {
    if (m.outcome !== "conflict") values[m.field] = m.merged;
    else if (choices[m.field]) values[m.field] = choices[m.field] === "mine" ? m.mine : m.theirs;
    else return null;
  }
  return values as CardValues;
}

/**
 * The `node` of the update that saves merged values. Every field is sent, scores included: an update
 * that changes the text and leaves the scores out gets the kind's default scores (a confidence the
 * other tab set would be lost).
 */
export function cardFromValues(values: CardValues) {
  return {
    title: values.title.trim(),
    content: values.content.trim(),
    ...(values.valueJson !== null && values.valueJson !== undefined ? { valueJson: values.valueJson } : {}),
    tags: values.tags,
    entities: values.entities,
    confidence: values.confidence,
    importance: values.importance,
    expiresAt: values.expiresAt,
  };
}
