import { startNow } from "~/db/start-now";
import type { DbOrTx } from "~/db/types";
import { memoryAuditEvents, type MemoryAuditEvent } from "~/db/schema";
import type { MemoryCallContext } from "../call-context";
import type { MemoryScope } from "../scope";
import { redactSensitive } from "~/server/text/sensitive";

export type AuditEventType = MemoryAuditEvent["eventType"];

/**
 * Appends one audit row. Always called with the transaction that makes the change, so the change and
 * its record commit or vanish together.
 */
export function recordAudit(
  db: DbOrTx,
  ctx: Pick<MemoryCallContext, "tenantId" | "actor" | "toolCallId">,
  event: {
    eventType: AuditEventType;
    nodeId?: string | null;
    lineageId?: string | null;
    scope?: MemoryScope | null;
    reason?: string | null;
    before?: unknown;
    after?: unknown;
    metadata?: Record<string, unknown>;
  },
): Promise<unknown> {
  // Started at once (not at the caller's await): it may travel with the COMMIT (pipelined.ts).
  return startNow(
    db.insert(memoryAuditEvents).values({
      tenantId: ctx.tenantId,
      nodeId: event.nodeId ?? null,
      lineageId: event.lineageId ?? null,
      eventType: event.eventType,
      actorType: ctx.actor.type,
      actorId: ctx.actor.id,
      // A reason is the caller's own words ("the user said the password is …"): no secret is kept there either.
      reason: event.reason ? redactSensitive(event.reason) : null,
      toolCallId: ctx.toolCallId ?? null,
      scopeType: event.scope?.type ?? null,
      scopeId: event.scope?.id ?? null,
      before: event.before ?? null,
      after: event.after ?? null,
      metadata: event.metadata ?? {},
    }),
  );
}
