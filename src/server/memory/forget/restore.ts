import { and, eq, isNull } from "drizzle-orm";
import type { Database } from "~/db/types";
import { memoryNodes, type MemoryCardRow } from "~/db/schema";
import { newId } from "~/server/ids";
import { recordAudit } from "../store/audit";
import type { MemoryCallContext } from "../call-context";
import { enqueueEmbedJobs } from "../store/embeddings";
import { auditSnapshot } from "../store/card-view";
import { findActiveInSlot, getCardRow, insertCardIfSlotFree, newRevisionStamp } from "../store/card-revisions";
import { retryOnContention } from "~/db/pg-errors";
import { formatScope, scopeAllowed } from "../scope";

export type RestoreResult = {
  done: boolean;
  reason?: string;
  message: string;
  nodeId?: string;
  revision?: number;
  occupantId?: string;
};

const refused = (reason: string, message: string, extra: Partial<RestoreResult> = {}): RestoreResult => ({
  done: false,
  reason,
  message: `${message} Nothing was restored.`,
  ...extra,
});

/** The restored revision: the ended card's own fields, current again, its expiry dropped when it had passed. */
function restoredValues(row: MemoryCardRow, ctx: MemoryCallContext, id: string, now: Date) {
  // Fields of the ended revision that describe its place in the chain or its end are not copied.
  const { searchVector: _vector, id: _id, status: _status, supersededById: _next, endedAt: _ended, ...fields } = row;
  return {
    ...fields,
    id,
    status: "active" as const,
    revision: row.revision + 1,
    supersedesId: row.id,
    expiresAt: row.expiresAt && row.expiresAt.getTime() <= now.getTime() ? null : row.expiresAt,
    ...newRevisionStamp(ctx.actor, now),
  };
}

/**
 * Undoes a soft forget or an expiry: the card comes back as the next revision of its chain, current
 * and recalled again, audited as `restore` in the same transaction. Refused when the revision changed
 * since the person read it, when the card was replaced rather than ended, or when its slot now holds
 * another card (that card is named; edit it instead). Hard-deleted cards are gone for good.
 */
export async function restoreCard(
  db: Database,
  ctx: MemoryCallContext,
  input: { id: string; expectedRevision: number; reason: string },
): Promise<RestoreResult> {
  return retryOnContention(() =>
    db.transaction(async (tx) => {
      const now = new Date();
      const row = await getCardRow(tx, { tenantId: ctx.tenantId, id: input.id, forUpdate: true });
      const scope = row ? { type: row.scopeType, id: row.scopeId } : null;
      if (!row || !scope || !scopeAllowed(scope, ctx.readScopes))
        return refused("not_found", `No memory ${input.id} in scopes you can read.`);
      if (!scopeAllowed(scope, ctx.writeScopes))
        return refused("scope_not_writable", `You may read but not write scope ${formatScope(scope)}.`);
      if (row.revision !== input.expectedRevision)
        return refused(
          "conflict",
          `Memory ${row.id} is at revision ${row.revision}, not ${input.expectedRevision}; reload the page.`,
        );
      if (row.supersededById)
        return refused(
          "not_ended",
          `Memory ${row.id} was followed by ${row.supersededById}; open the current revision instead.`,
          { occupantId: row.supersededById },
        );
      if (row.status !== "deleted" && row.status !== "expired")
        return refused(
          "not_ended",
          `Memory ${row.id} is ${row.status}; only a forgotten or expired card can be restored.`,
        );

      const id = newId("mem");
      const restored = await insertCardIfSlotFree(tx, restoredValues(row, ctx, id, now));
      if (!restored) {
        const occupant = await findActiveInSlot(tx, { tenantId: ctx.tenantId, scope, key: row.key });
        return refused(
          "slot_occupied",
          `Slot ${row.key} now holds ${occupant?.id ?? "another card"}${occupant ? ` ("${occupant.title}")` : ""}; edit that card instead.`,
          { occupantId: occupant?.id },
        );
      }
      // The ended revision points at its successor, as a superseded one does; only one restore wins.
      const linked = await tx
        .update(memoryNodes)
        .set({ supersededById: id })
        .where(
          and(eq(memoryNodes.tenantId, ctx.tenantId), eq(memoryNodes.id, row.id), isNull(memoryNodes.supersededById)),
        )
        .returning({ id: memoryNodes.id });
      if (linked.length === 0) throw new Error(`Memory ${row.id} was restored concurrently.`);
      await recordAudit(tx, ctx, {
        eventType: "restore",
        nodeId: restored.id,
        lineageId: restored.lineageId,
        scope,
        reason: input.reason,
        before: auditSnapshot(row),
        after: auditSnapshot(restored),
      });
      await enqueueEmbedJobs(tx, { tenantId: ctx.tenantId, targets: [{ kind: "node", id: restored.id }] });
      return {
        done: true,
        nodeId: restored.id,
        revision: restored.revision,
        message: `Restored ${row.key} as revision ${restored.revision} (${restored.id}); it is recalled again.`,
      };
    }),
  );
}
