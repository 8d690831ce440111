import type { MemoryCardRow } from "~/db/schema";
import type { Transaction } from "~/db/types";
import { newId } from "~/server/ids";
import type { MemoryCallContext } from "../call-context";
import { endActiveRevision, insertCardRow, newRevisionStamp } from "../store/card-revisions";
import { buildCardSearchFields } from "../store/search-fields";
import { OperationFailure, type DraftedCard } from "./draft";

/** A drafted card's row, all but its place in a revision chain (id, revision, lineage, predecessor). */
export function cardRowValues(ctx: MemoryCallContext, draft: DraftedCard, now: Date) {
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
    ...buildCardSearchFields({ ...draft, categoryPath: draft.def.categoryPath }),
  };
}

/** Ends `previous` and inserts the next revision of its chain in its place. */
export async function writeNextRevision(
  tx: Transaction,
  ctx: MemoryCallContext,
  previous: MemoryCardRow,
  values: ReturnType<typeof cardRowValues>,
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
  return insertCardRow(tx, {
    ...values,
    id,
    revision: previous.revision + 1,
    lineageId: previous.lineageId,
    supersedesId: previous.id,
  });
}
