import type { ScopeType } from "~/db/schema";
import { badRequest } from "~/server/errors";

/** A concrete scope a card lives in: `user:<id>`, `session:<id>`, `workspace:<id>`, `context:<ns>/<id>`, `global`. */
export type MemoryScope = { type: ScopeType; id: string };
/** A grant pattern: a concrete scope, or `session:*` (any session). */
export type ScopePattern = { type: ScopeType; id: string | "*" };

/** Read priority when facts conflict (docs/memory-model.md): session > workspace > user > context > global. */
export const SCOPE_PRIORITY: Record<ScopeType, number> = { session: 5, workspace: 4, user: 3, context: 2, global: 1 };

const SCOPE_RE = /^(session|workspace|user|context|global)(?::(.+))?$/;

/** Scope types a pattern may name with `*`: any session; for API keys also any workspace (see parseKeyScopePattern). */
const GRANT_WILDCARDS: readonly ScopeType[] = ["session"];
const KEY_WILDCARDS: readonly ScopeType[] = ["session", "workspace"];

function parsePattern(text: string, wildcards: readonly ScopeType[]): ScopePattern {
  const match = SCOPE_RE.exec(text.trim());
  if (!match) {
    throw badRequest(
      "invalid_scope",
      `"${text}" is not a scope. Use user:<id>, session:<id>, workspace:<id>, context:<namespace>/<id> or global.`,
    );
  }
  const type = match[1] as ScopeType;
  const id = match[2] ?? "";
  if (type === "global") {
    if (id) throw badRequest("invalid_scope", `The global scope has no id: send "global", not "${text}".`);
    return { type, id: "" };
  }
  if (!id) throw badRequest("invalid_scope", `Scope "${type}" needs an id, e.g. ${type}:abc.`);
  if (id === "*" && !wildcards.includes(type)) {
    throw badRequest(
      "invalid_scope",
      `Only ${wildcards.map((w) => `${w}:*`).join(" and ")} may use a wildcard here; name ${type} scopes one by one.`,
    );
  }
  if (type === "context" && id !== "*" && !/^[^/]+\/.+$/.test(id)) {
    throw badRequest("invalid_scope", `Context scopes look like context:<namespace>/<id>, not "${text}".`);
  }
  if (id.length > 200) throw badRequest("invalid_scope", "Scope ids are at most 200 characters.");
  return { type, id };
}

/**
 * An API key's scope: `workspace:*` is allowed there, meaning "the workspaces its owner is granted"
 * (a key's scopes are always intersected with its owner's grants); people are granted workspaces one
 * by one.
 */
export const parseKeyScopePattern = (text: string): ScopePattern => parsePattern(text, KEY_WILDCARDS);

/** A grant's scope: a concrete scope, or `session:*`. */
export const parseScopePattern = (text: string): ScopePattern => parsePattern(text, GRANT_WILDCARDS);

export function parseScope(text: string): MemoryScope {
  const pattern = parseScopePattern(text);
  if (pattern.id === "*")
    throw badRequest("invalid_scope", `"${text}" is a pattern; name one session, e.g. session:abc.`);
  return pattern as MemoryScope;
}

export const formatScope = (scope: ScopePattern) => (scope.type === "global" ? "global" : `${scope.type}:${scope.id}`);

export function scopeMatches(pattern: ScopePattern, scope: MemoryScope): boolean {
  return pattern.type === scope.type && (pattern.id === "*" || pattern.id === scope.id);
}

export const scopeAllowed = (scope: MemoryScope, patterns: readonly ScopePattern[]) =>
  patterns.some((p) => scopeMatches(p, scope));

/** Intersection of two grant lists (a key never exceeds its owner): patterns of `a` narrowed by `b`. */
export function intersectScopes(a: readonly ScopePattern[], b: readonly ScopePattern[]): ScopePattern[] {
  const out = new Map<string, ScopePattern>();
  for (const x of a) {
    for (const y of b) {
      if (x.type !== y.type) continue;
      if (x.id === "*" && y.id === "*") out.set(formatScope(x), x);
      else if (x.id === "*" || x.id === y.id) out.set(formatScope(y), y);
      else if (y.id === "*") out.set(formatScope(x), x);
    }
  }
  return [...out.values()];
}
