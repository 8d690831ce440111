import type { DbOrTx } from "~/db/types";
import { listSessions, scopeAllowed, type ScopePattern } from "~/server/memory";
import { listMembers } from "./members";
import { canReadAllSessions } from "./scope-access";
import { labelScopes, type ScopeLabel } from "./scope-labels";
import { listWorkspaces } from "./workspaces";

export type ScopeChoices = {
  people: ScopeLabel[];
  workspaces: ScopeLabel[];
  sessions: ScopeLabel[];
  global: ScopeLabel | null;
};

/** How many recent conversations a picker offers (older ones are reached from their session page). */
export const SESSION_CHOICES = 50;

/**
 * What a scope picker offers: the people, workspaces and recent sessions of the organisation that
 * `allowed` covers (a person's write scopes for the create form; an admin's are everything), each
 * labelled. Nothing else can be picked, so nothing made-up can be written.
 */
export async function listScopeChoices(
  db: DbOrTx,
  params: { tenantId: string; allowed: readonly ScopePattern[] },
): Promise<ScopeChoices> {
  const { tenantId, allowed } = params;
  const grantedSessions = allowed.filter((p) => p.type === "session" && p.id !== "*").map((p) => p.id);
  const anySession = canReadAllSessions(allowed);
  const [members, workspaces, sessions] = await Promise.all([
    listMembers(db, tenantId),
    listWorkspaces(db, { tenantId }),
    anySession || grantedSessions.length
      ? listSessions(db, { tenantId, sessionIds: anySession ? undefined : grantedSessions, limit: SESSION_CHOICES })
      : { sessions: [] },
  ]);
  const sessionLabels = await labelScopes(db, {
    tenantId,
    scopes: sessions.sessions.map((s) => `session:${s.sessionId}`),
  });
  const person = (m: (typeof members)[number]): ScopeLabel => ({
    scope: `user:${m.userId}`,
    type: "user",
    id: m.userId,
    name: m.name || m.email,
    detail: m.email,
    known: true,
  });
  return {
    people: members
      .filter((m) => scopeAllowed({ type: "user", id: m.userId }, allowed))
      .map(person)
      .sort((a, b) => (a.name ?? "").localeCompare(b.name ?? "")),
    workspaces: workspaces
      .filter((w) => scopeAllowed({ type: "workspace", id: w.id }, allowed))
      .map((w) => ({ scope: w.scope, type: "workspace" as const, id: w.id, name: w.name, detail: null, known: true })),
    sessions: sessions.sessions.flatMap((s) => {
      const label = sessionLabels.get(`session:${s.sessionId}`);
      return label && scopeAllowed({ type: "session", id: s.sessionId }, allowed) ? [label] : [];
    }),
    global: scopeAllowed({ type: "global", id: "" }, allowed)
      ? { scope: "global", type: "global", id: "", name: null, detail: null, known: true }
      : null,
  };
}
