import type { MemoryCardRow } from "~/db/schema";
import type { Transaction } from "~/db/types";
import type { MemoryCallContext } from "../call-context";
import { formatScope, scopeAllowed } from "../scope";
import { getCardRow } from "../store/card-revisions";
import { OperationFailure } from "./draft";
import type { WriteOperation } from "./schema";

/** Loads the card an id-targeted operation names and checks it is still what the caller last read. */
export async function loadTarget(
  tx: Transaction,
  ctx: MemoryCallContext,
  op: Extract<WriteOperation, { targetId: string }>,
): Promise<MemoryCardRow> {
  const row = await getCardRow(tx, { tenantId: ctx.tenantId, id: op.targetId, forUpdate: true });
  const scope = row ? { type: row.scopeType, id: row.scopeId } : null;
  if (!row || !scope || !scopeAllowed(scope, ctx.readScopes)) {
    throw new OperationFailure(
      "rejected",
      "not_found",
      `No memory ${op.targetId} in scopes you can read. Find it with memory_search first.`,
    );
  }
  if (!scopeAllowed(scope, ctx.writeScopes)) {
    throw new OperationFailure(
      "rejected",
      "scope_not_writable",
      `You may read but not write scope ${formatScope(scope)}.`,
      { scope: formatScope(scope) },
    );
  }
  if (row.status !== "active") {
    throw new OperationFailure(
      "conflict",
      "not_active",
      `Memory ${row.id} is ${row.status}${row.supersededById ? ` (replaced by ${row.supersededById})` : ""}; read the current card with memory_get and retry against it.`,
      {
        nodeId: row.id,
        currentRevision: row.revision,
        currentStatus: row.status,
      },
    );
  }
  if (row.revision !== op.expectedRevision) {
    throw new OperationFailure(
      "conflict",
      "revision_mismatch",
      `Memory ${row.id} is at revision ${row.revision}, not ${op.expectedRevision}: it changed since you read it. Re-read it with memory_get and retry.`,
      {
        nodeId: row.id,
        currentRevision: row.revision,
        currentStatus: row.status,
      },
    );
  }
  return row;
}
