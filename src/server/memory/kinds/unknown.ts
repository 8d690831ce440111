import type { KindRegistry } from "./custom";
import { MERGED_KINDS } from "./catalogue";

/**
 * What an agent is told about kind names the organisation does not have. A search or lookup by a
 * misspelt kind ("food_avoidances") matched nothing and said only that nothing matched, which an agent
 * reads as "not stored"; it now says the kind does not exist and which one it probably meant.
 */

/** Edit distance (insertions, deletions, substitutions), for the closest kind name. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}

/** At most this many kinds are offered for one word that several kinds contain. */
const MAX_WORD_MATCHES = 4;

/**
 * Kinds a misspelt or shortened name probably meant: the nearest by edit distance when near enough to
 * be a slip (a third of the name, at most 4 edits: "food_avoidances" → food_avoidance), else the kinds whose words start with each of the name's words ("person" →
 * personal_relationship; "preference" → the few *_preference kinds).
 */
export function nearKinds(registry: KindRegistry, name: string): string[] {
  const wanted = name.normalize("NFKC").trim().toLowerCase();
  let best: { kind: string; distance: number } | undefined;
  // A merged kind's old name still works (it resolves to the kind it merged into), so it may be the one meant.
  for (const kind of [...registry.all.map((def) => def.kind), ...Object.keys(MERGED_KINDS)]) {
    const distance = editDistance(wanted, kind);
    if (!best || distance < best.distance) best = { kind, distance };
  }
  if (best && best.distance <= Math.min(4, Math.ceil(wanted.length / 3))) return [best.kind];
  const words = wanted.split(/[^\p{L}\p{N}]+/u).filter((w) => w.length >= 4);
  if (words.length === 0) return [];
  const matches = registry.all
    .map((def) => def.kind)
    .filter((kind) => {
      const kindWords = kind.split("_");
      return words.every((w) => kindWords.some((k) => k.startsWith(w) || (k.length >= 4 && w.startsWith(k))));
    });
  return matches.length <= MAX_WORD_MATCHES ? matches : [];
}

/** Every kind the organisation has, by name, for messages that list them. */
export const kindNames = (registry: KindRegistry) => registry.all.map((d) => d.kind).join(", ");

/** `Unknown kind "x" (did you mean "y"?)`, for one name the registry does not resolve. */
export function unknownKindText(registry: KindRegistry, name: string): string {
  const near = nearKinds(registry, name);
  const quoted = near.map((kind) => `"${kind}"`);
  const hint =
    quoted.length === 1
      ? ` (did you mean ${quoted[0]}?)`
      : quoted.length > 1
        ? ` (did you mean one of ${quoted.join(", ")}?)`
        : "";
  return `Unknown kind "${name}"${hint}`;
}

/**
 * For a read naming kinds: undefined when every name resolves, else one sentence naming the unknown
 * ones and the kinds there are. No current card can have an unknown kind (a custom kind is deleted
 * only once no active card uses it), so the read found nothing for those names.
 */
export function unknownKindsNotice(registry: KindRegistry, kinds: readonly string[] | undefined): string | undefined {
  const unknown = (kinds ?? []).filter((kind) => !registry.resolve(kind));
  if (unknown.length === 0) return undefined;
  return `${unknown.map((kind) => unknownKindText(registry, kind)).join("; ")}: no current card has it. Kinds: ${kindNames(registry)}.`;
}
