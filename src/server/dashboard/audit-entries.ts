import type { DbOrTx } from "~/db/types";
import type { MemoryAuditEvent } from "~/db/schema";
import { labelActors, type ActorLabel, type ActorRef } from "./actors";
import { labelScopes, type ScopeLabel } from "./scope-labels";

/** Whom a grant, key or member event was about: the person or key, and a key's owner. */
export type AuditSubject = ActorLabel & { owner: ActorLabel | null };

export type AuditEntry = {
  id: number;
  eventType: MemoryAuditEvent["eventType"];
  nodeId: string | null;
  lineageId: string | null;
  /** The card's scope; for a grant, the granted scope; for a rejected write, the refused one. */
  scope: string | null;
  scopeLabel: ScopeLabel | null;
  actor: ActorLabel;
  subject: AuditSubject | null;
  reason: string | null;
  toolCallId: string | null;
  before: unknown;
  after: unknown;
  metadata: Record<string, unknown>;
  createdAt: string;
};

type Payload = Record<string, unknown>;
const asPayload = (value: unknown): Payload =>
  value && typeof value === "object" && !Array.isArray(value) ? (value as Payload) : {};
const textOf = (value: unknown) => (typeof value === "string" && value ? value : null);

/**
 * What an event without a card was about, read from its before/after snapshots (grant, key and
 * member rows carry no scope column): the principal and scope of a grant, a key and its owner, the
 * member whose role or membership changed.
 */
function subjectOf(e: MemoryAuditEvent): {
  subject: ActorRef | null;
  email: string | null;
  owner: ActorRef | null;
  scope: string | null;
} {
  const state = { ...asPayload(e.before), ...asPayload(e.after) };
  const none = { subject: null, email: null, owner: null, scope: null };
  if (e.eventType === "grant") {
    const type = textOf(state.principalType);
    return { ...none, subject: type ? { type, id: textOf(state.principalId) } : null, scope: textOf(state.scope) };
  }
  if (e.eventType === "key") {
    const owner = textOf(state.ownerUserId);
    return {
      ...none,
      subject: { type: "api_key", id: textOf(state.keyId) },
      owner: owner ? { type: "user", id: owner } : null,
    };
  }
  if (e.eventType === "member") {
    const userId = textOf(state.userId);
    return { ...none, subject: userId ? { type: "user", id: userId } : null, email: textOf(state.email) };
  }
  // A rejected write whose scope could not even be parsed keeps it in metadata.
  if (e.eventType === "rejected") return { ...none, scope: textOf(e.metadata.scope) };
  return none;
}

const scopeText = (e: MemoryAuditEvent) =>
  e.scopeType ? (e.scopeType === "global" ? "global" : `${e.scopeType}:${e.scopeId ?? ""}`) : null;

/** Audit rows as the dashboard shows them: actors and subjects named, scopes labelled, dates as ISO text. */
export async function toAuditEntries(
  db: DbOrTx,
  tenantId: string,
  events: readonly MemoryAuditEvent[],
): Promise<AuditEntry[]> {
  const derived = events.map((e) => {
    const about = subjectOf(e);
    return { event: e, ...about, scope: scopeText(e) ?? about.scope };
  });
  const refs = derived.flatMap((d) => [
    { type: d.event.actorType, id: d.event.actorId },
    ...(d.subject ? [d.subject] : []),
    ...(d.owner ? [d.owner] : []),
  ]);
  const [label, scopeLabels] = await Promise.all([
    labelActors(db, tenantId, refs),
    labelScopes(db, { tenantId, scopes: derived.flatMap((d) => (d.scope ? [d.scope] : [])) }),
  ]);
  return derived.map(({ event: e, subject, email, owner, scope }) => ({
    id: e.id,
    eventType: e.eventType,
    nodeId: e.nodeId,
    lineageId: e.lineageId,
    scope,
    scopeLabel: scope ? (scopeLabels.get(scope) ?? null) : null,
    actor: label({ type: e.actorType, id: e.actorId }),
    subject: subject
      ? { ...label(subject), owner: owner ? label(owner) : null }
      : email
        ? { type: "user", id: null, label: email, owner: null }
        : null,
    reason: e.reason,
    toolCallId: e.toolCallId,
    before: e.before,
    after: e.after,
    metadata: e.metadata,
    createdAt: e.createdAt.toISOString(),
  }));
}
