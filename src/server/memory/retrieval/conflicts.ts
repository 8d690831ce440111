import type { MemoryNode } from "../store/card-view";
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

function parseNodeScope(scope: string): MemoryScope {
  const at = scope.indexOf(":");
  return at < 0
    ? { type: scope as MemoryScope["type"], id: "" }
    : { type: scope.slice(0, at) as MemoryScope["type"], id: scope.slice(at + 1) };
}

const isExpiredAt = (node: Pick<MemoryNode, "status" | "expiresAt">, now: Date) =>
  node.status === "expired" || (node.expiresAt !== null && new Date(node.expiresAt).getTime() <= now.getTime());

/** The slot a card competes for. */
export function conflictKey(node: Pick<MemoryNode, "scope" | "domain" | "key">, chain: ScopeChain): string {
  const scope = parseNodeScope(node.scope);
  const own = chain[scope.type as keyof ScopeChain];
  const inChain =
    scope.type === "global" || scope.type === "context" || (own !== undefined && scopeText(own) === scopeText(scope));
  return inChain ? `${node.domain}\u0000${node.key}` : `${node.scope}\u0000${node.domain}\u0000${node.key}`;
}

/** Negative when `a` should win over `b`. */
export function compareForConflict(a: MemoryNode, b: MemoryNode, now: Date): number {
  const rules: number[] = [
    Number(isExpiredAt(a, now)) - Number(isExpiredAt(b, now)),
    SCOPE_PRIORITY[parseNodeScope(b.scope).type] - SCOPE_PRIORITY[parseNodeScope(a.scope).type],
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
export function resolveConflicts<T extends MemoryNode>(
  candidates: readonly T[],
  options: { now: Date; chain: ScopeChain; includeExpired?: boolean; asOf?: boolean },
): { kept: T[]; omitted: Omitted[] } {
  const omitted: Omitted[] = [];
  const eligible: T[] = [];
  const seen = new Set<string>();
  for (const node of candidates) {
    if (seen.has(node.id)) continue;
    seen.add(node.id);
    if (node.status === "deleted") continue;
    if (!options.asOf && node.status === "superseded") omitted.push({ nodeId: node.id, reason: "superseded" });
    else if (!options.asOf && !options.includeExpired && isExpiredAt(node, options.now))
      omitted.push({ nodeId: node.id, reason: "expired" });
    else if (node.confidence < MIN_CONFIDENCE) omitted.push({ nodeId: node.id, reason: "low_confidence" });
    else eligible.push(node);
  }
  const winners = new Map<string, T>();
  for (const node of eligible) {
    const key = conflictKey(node, options.chain);
    const current = winners.get(key);
    if (!current || compareForConflict(node, current, options.now) < 0) winners.set(key, node);
  }
  const kept: T[] = [];
  for (const node of eligible) {
    if (winners.get(conflictKey(node, options.chain)) === node) kept.push(node);
    else omitted.push({ nodeId: node.id, reason: "conflict_lost" });
  }
  return { kept, omitted };
}
