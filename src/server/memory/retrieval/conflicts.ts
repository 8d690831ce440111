import type { MemoryCard } from "../store/card-view";
import { SCOPE_PRIORITY, type MemoryScope } from "../scope";
import type { OmitReason } from "./search-schema";

/**
 * Conflict resolution (docs/retrieval.md), applied before anything is returned. Cards for the same slot
 * (domain + canonical key) compete, and one wins:
 *   unexpired > expired (only ever both present with includeExpired: a lapsed override does not
 *   shadow a live card), then session > workspace > user > context > global, explicit > inferred,
 *   temporary constraint (has an expiry) > long-term, newer > older, higher confidence, higher importance.
 * The slot is shared along the caller's own scope chain (this turn's session, workspace and user,
 * plus context and global scopes), so a session-level override beats the user-level default. A card
 * in some *other* session or workspace the caller can read competes only within its own scope:
 * it is no override for this turn. Superseded revisions, expired cards (unless asked for) and cards
 * under 0.35 confidence never win; every loser is reported with its reason.
 */
export const MIN_CONFIDENCE = 0.35;

export type ScopeChain = { session?: MemoryScope; workspace?: MemoryScope; user?: MemoryScope };
export type Omitted = { nodeId: string; reason: OmitReason };

const scopeText = (scope: MemoryScope) => `${scope.type}:${scope.id}`;

function parseCardScope(scope: string): MemoryScope {
  const at = scope.indexOf(":");
  return at < 0
    ? { type: scope as MemoryScope["type"], id: "" }
    : { type: scope.slice(0, at) as MemoryScope["type"], id: scope.slice(at + 1) };
}

const isExpiredAt = (card: Pick<MemoryCard, "status" | "expiresAt">, now: Date) =>
  card.status === "expired" || (card.expiresAt !== null && new Date(card.expiresAt).getTime() <= now.getTime());

/** The slot a card competes for. */
export function conflictKey(card: Pick<MemoryCard, "scope" | "domain" | "key">, chain: ScopeChain): string {
  const scope = parseCardScope(card.scope);
  const own = chain[scope.type as keyof ScopeChain];
  const inChain =
    scope.type === "global" || scope.type === "context" || (own !== undefined && scopeText(own) === scopeText(scope));
  return inChain ? `${card.domain}\u0000${card.key}` : `${card.scope}\u0000${card.domain}\u0000${card.key}`;
}

/** Negative when `a` should win over `b`. */
export function compareForConflict(a: MemoryCard, b: MemoryCard, now: Date): number {
  const rules: number[] = [
    Number(isExpiredAt(a, now)) - Number(isExpiredAt(b, now)),
    SCOPE_PRIORITY[parseCardScope(b.scope).type] - SCOPE_PRIORITY[parseCardScope(a.scope).type],
    Number(b.explicitUserIntent) - Number(a.explicitUserIntent),
    Number(b.expiresAt !== null) - Number(a.expiresAt !== null),
    new Date(b.updatedAt).getTime() - new Date(a.updatedAt).getTime(),
    b.confidence - a.confidence,
    b.importance - a.importance,
  ];
  return rules.find((r) => r !== 0) ?? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * Splits ranked candidates into the ones that may be returned (same order) and the omitted ones.
 * `asOf` treats every candidate as current at that moment (history reads).
 */
export function resolveConflicts<T extends MemoryCard>(
  candidates: readonly T[],
  options: { now: Date; chain: ScopeChain; includeExpired?: boolean; asOf?: boolean },
): { kept: T[]; omitted: Omitted[] } {
  const omitted: Omitted[] = [];
  const eligible: T[] = [];
  const seen = new Set<string>();
  for (const card of candidates) {
    if (seen.has(card.id)) continue;
    seen.add(card.id);
    if (card.status === "deleted") continue;
    if (!options.asOf && card.status === "superseded") omitted.push({ nodeId: card.id, reason: "superseded" });
    else if (!options.asOf && !options.includeExpired && isExpiredAt(card, options.now))
      omitted.push({ nodeId: card.id, reason: "expired" });
    else if (card.confidence < MIN_CONFIDENCE) omitted.push({ nodeId: card.id, reason: "low_confidence" });
    else eligible.push(card);
  }
  const winners = new Map<string, T>();
  for (const card of eligible) {
    const key = conflictKey(card, options.chain);
    const current = winners.get(key);
    if (!current || compareForConflict(card, current, options.now) < 0) winners.set(key, card);
  }
  const kept: T[] = [];
  for (const card of eligible) {
    if (winners.get(conflictKey(card, options.chain)) === card) kept.push(card);
    else omitted.push({ nodeId: card.id, reason: "conflict_lost" });
  }
  return { kept, omitted };
}
