import type { ScopeType } from "~/db/schema";
import { BUILT_IN_KINDS, kindKeySynonyms, MERGED_KINDS } from "./catalogue";
import type { KindDefinition } from "./definition";

/**
 * The kind registry: a kind name, a synonym or a slot key resolved to its definition (built-ins
 * first, then the tenant's custom kinds), and the checks the write path runs against it.
 */

/** A kind as plain data (no schema or functions): what the dashboard lists and edits. */
export function describeKind(def: KindDefinition) {
  return {
    kind: def.kind,
    key: def.key,
    domain: def.domain,
    categoryPath: [...def.categoryPath],
    type: def.type,
    itemized: def.itemized,
    /** Where the item comes from when none is given: the value ("香菜"), the title (decisions), or nowhere (required). */
    itemFrom: def.itemKeyFromValue ? ("value" as const) : def.itemKeyFromTitle ? ("title" as const) : null,
    valueShape: def.valueShape,
    valueHint: def.valueHint,
    valueRequired: def.valueRequired,
    defaultScope: def.defaultScope,
    allowedScopes: [...def.allowedScopes],
    requiresExplicitIntent: def.requiresExplicitIntent,
    alwaysRecall: def.alwaysRecall,
    temporary: def.temporary,
    description: def.description,
    source: def.source,
  };
}

/** Kinds injected into every turn ("always recalled" in docs/memory-model.md). */
export const ALWAYS_RECALLED_KINDS: readonly string[] = BUILT_IN_KINDS.filter((def) => def.alwaysRecall).map(
  (def) => def.kind,
);
/** The user's profile facts (name, home, occupation, the people in their life): recalled every turn, as "About the user". */
export const PROFILE_KINDS: readonly string[] = BUILT_IN_KINDS.filter(
  (def) => def.domain === "profile" && def.type === "fact",
).map((def) => def.kind);

const kindName = (raw: string) =>
  raw
    .normalize("NFKC")
    .trim()
    .toLowerCase()
    .replace(/[\s\-./]+/g, "_")
    .replace(/_+/g, "_");

const BUILT_IN_BY_KIND = new Map(BUILT_IN_KINDS.map((def) => [def.kind, def]));

/** The kind names cards of `kind` may be stored under: its own and those merged into it. */
export function storedKindNames(kind: string): string[] {
  return [kind, ...Object.entries(MERGED_KINDS).flatMap(([name, merged]) => (merged.into === kind ? [name] : []))];
}

/** The slot keys cards of `def` may be stored under: its own and those of kinds merged into it. */
export function storedSlotKeys(def: Pick<KindDefinition, "kind" | "key">): string[] {
  return [def.key, ...Object.values(MERGED_KINDS).flatMap((merged) => (merged.into === def.kind ? [merged.key] : []))];
}

const BUILT_IN_BY_KEY = new Map([
  ...BUILT_IN_KINDS.map((def) => [def.key, def] as const),
  ...Object.values(MERGED_KINDS).flatMap((merged) => {
    const def = BUILT_IN_KINDS.find((d) => d.kind === merged.into);
    return def ? [[merged.key, def] as const] : [];
  }),
]);

/**
 * The definition for a kind name, a synonym (`disliked_ingredient`), or a slot/canonical key
 * (`profile.identity.name`, `cooking.avoid_ingredient:香菜`). Built-ins first; custom kinds can never
 * shadow them. Undefined for anything unknown.
 */
export function resolveKind(
  kindOrSynonym: string,
  customKinds: readonly KindDefinition[] = [],
): KindDefinition | undefined {
  if (typeof kindOrSynonym !== "string") return undefined;
  const raw = kindOrSynonym.normalize("NFKC").trim().toLowerCase();
  const slotKey = raw.split(":")[0] ?? raw;
  const name = kindName(raw);
  const synonym = kindKeySynonyms[name];
  return (
    BUILT_IN_BY_KIND.get(name) ??
    (synonym ? BUILT_IN_BY_KIND.get(synonym) : undefined) ??
    BUILT_IN_BY_KEY.get(slotKey) ??
    customKinds.find((def) => def.kind === name || def.key === slotKey)
  );
}

/** Every kind a tenant can use: built-ins, then its custom kinds. */
export function listKinds(customKinds: readonly KindDefinition[] = []): readonly KindDefinition[] {
  return [...BUILT_IN_KINDS, ...customKinds];
}

// ---- checks the write path runs --------------------------------------------------------------

export type KindValueResult =
  { ok: true; value: unknown } | { ok: false; reason: "value_required" | "invalid_value"; message: string };

/** Normalizes synonyms, then validates valueJson against the kind's shape. */
export function validateKindValue(def: KindDefinition, value: unknown): KindValueResult {
  if (value === undefined || value === null) {
    return def.valueRequired
      ? { ok: false, reason: "value_required", message: `kind ${def.kind} needs valueJson: ${def.valueHint}` }
      : { ok: true, value: null };
  }
  const parsed = def.valueSchema.safeParse(def.normalizeValue ? def.normalizeValue(value) : value);
  if (parsed.success) return { ok: true, value: parsed.data };
  const details = parsed.error.issues
    .map((issue) => (issue.path.length ? `${issue.path.join(".")}: ` : "") + issue.message)
    .join("; ");
  return { ok: false, reason: "invalid_value", message: `kind ${def.kind} expects ${def.valueHint} (${details})` };
}

export type KindScopeResult =
  { ok: true } | { ok: false; reason: "scope_not_allowed" | "expiry_required"; message: string };

/** Whether a card of this kind may live in `scope`; temporary kinds need an expiry outside a session. */
export function checkKindScope(
  def: KindDefinition,
  scope: ScopeType,
  options: { hasExpiry: boolean },
): KindScopeResult {
  if (!def.allowedScopes.includes(scope)) {
    return {
      ok: false,
      reason: "scope_not_allowed",
      message: `kind ${def.kind} may be stored in ${def.allowedScopes.join(", ")} scope, not ${scope}`,
    };
  }
  if (def.temporary && scope !== "session" && !options.hasExpiry) {
    return {
      ok: false,
      reason: "expiry_required",
      message: `kind ${def.kind} is temporary: outside session scope it needs expiresAt`,
    };
  }
  return { ok: true };
}
