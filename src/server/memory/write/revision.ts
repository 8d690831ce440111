import type { MemoryNodeRow } from "~/db/schema";
import type { Transaction } from "~/db/types";
import { newId } from "~/server/ids";
import type { MemoryCallContext } from "../call-context";
import { endActiveRevision, insertNodeRow, newRevisionStamp } from "../store/card-revisions";
import { buildNodeSearchFields } from "../store/search-fields";
import { OperationFailure, type NodeDraft } from "./draft";

/** A drafted card's row, all but its place in a revision chain (id, revision, lineage, predecessor). */
export function nodeValues(ctx: MemoryCallContext, draft: NodeDraft, now: Date) {
  return {
    tenantId: ctx.tenantId,
    scopeType: draft.scope.type,
    scopeId: draft.scope.id,
    kind: draft.def.kind,
    key: draft.key,
    itemKey: draft.itemKey,
    domain: draft.def.domain,
    categoryPath: [...draft.def.categoryPath],
    categoryPathText: draft.def.categoryPath.join("/"),
    type: draft.def.type,
    valueJson: draft.valueJson ?? null,
    title: draft.title,
    content: draft.content,
    status: "active" as const,
    confidence: draft.confidence,
    importance: draft.importance,
    tags: draft.tags,
    entities: draft.entities,
    sourceMessageIds: draft.sourceMessageIds,
    explicitUserIntent: draft.explicit,
    redacted: draft.redacted,
    ...newRevisionStamp(ctx.actor, now),
    expiresAt: draft.expiresAt,
    ...buildNodeSearchFields({ ...draft, categoryPath: draft.def.categoryPath }),
  };
}

/** Ends `previous` and inserts the next revision of its chain in its place. */
export async function writeNextRevision(
  tx: Transaction,
  ctx: MemoryCallContext,
  previous: MemoryNodeRow,
  values: ReturnType<typeof nodeValues>,
  now: Date,
) {
  const id = newId("mem");
  const ended = await endActiveRevision(tx, {
    tenantId: ctx.tenantId,
    id: previous.id,
    expectedRevision: previous.revision,
    status: "superseded",
    actor: ctx.actor,
    supersededById: id,
    at: now,
  });
  if (!ended) {
    throw new OperationFailure(
      "conflict",
      "revision_mismatch",
      `Memory ${previous.id} changed while writing; re-read it and retry.`,
      { nodeId: previous.id },
    );
  }
  return insertNodeRow(tx, {
    ...values,
    id,
    revision: previous.revision + 1,
    lineageId: previous.lineageId,
    supersedesId: previous.id,
  });
}
