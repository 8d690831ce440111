import { forbidden } from "~/server/errors";
import { formatScope, intersectScopes, parseScopePattern, type ScopePattern } from "~/server/memory";

/**
 * The scopes a dashboard query may touch: the viewer's readable patterns, narrowed to `requested`
 * when given. Unlike the agents' search (which silently drops what it cannot read), a person asking
 * for a scope they cannot read — usually through a shared link — is told so.
 */
export function requireReadableScopes(
  readable: readonly ScopePattern[],
  requested: readonly string[] | undefined,
): ScopePattern[] {
  if (!requested?.length) return [...readable];
  return requested.map((text) => {
    const wanted = parseScopePattern(text);
    const covered = intersectScopes(readable, [wanted]).some((p) => p.type === wanted.type && p.id === wanted.id);
    if (!covered)
      throw forbidden("scope_not_readable", `You may not read scope ${formatScope(wanted)}. Ask an admin for a grant.`);
    return wanted;
  });
}

export const canReadAllSessions = (readable: readonly ScopePattern[]) =>
  readable.some((p) => p.type === "session" && p.id === "*");
