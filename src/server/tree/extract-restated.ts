import type { Database } from "~/db/types";
import {
  canonicalJson,
  draftCreate,
  findActiveInSlot,
  type MemoryCallContext,
  OperationFailure,
  type WriteEnvironment,
  type WriteOperation,
} from "~/server/memory";

type Create = Extract<WriteOperation, { op: "create" }>;

const sameText = (a: string, b: string) => a.replace(/\s+/g, "").toLowerCase() === b.replace(/\s+/g, "").toLowerCase();

/**
 * An extracted create that only restates what its slot's card already holds: the same value (or, for
 * a card without one, the same title), and no stronger intent than the card's. Every later turn that
 * repeats "预算5万" quotes a different sentence; written as it is, each one made a new revision (a
 * budget card stood at revision 14 after 14 turns). Such a create is sent with the card's own title,
 * content, so memoryWrite finds the same slot with the same content and answers `noop`
 * (audited) instead of superseding. Returns the operation to send.
 */
export async function restatementAware(
  db: Database,
  env: WriteEnvironment,
  ctx: MemoryCallContext,
  operation: Create,
): Promise<Create> {
  let draft;
  try {
    draft = draftCreate(env, ctx, operation);
  } catch (error) {
    // memoryWrite reports the same failure, with its audit row.
    if (error instanceof OperationFailure) return operation;
    throw error;
  }
  const current = await findActiveInSlot(db, { tenantId: ctx.tenantId, scope: draft.scope, key: draft.key });
  // A card with an expiry is left to the normal rules: the extractor's sentence carries none.
  if (!current || current.expiresAt) return operation;
  if (draft.explicit && !current.explicitUserIntent) return operation;
  const hasValue = draft.valueJson !== undefined && draft.valueJson !== null;
  const restated = hasValue
    ? canonicalJson(current.valueJson) === canonicalJson(draft.valueJson)
    : sameText(current.title, draft.title);
  if (!restated) return operation;
  return {
    ...operation,
    node: {
      ...operation.node,
      title: current.title,
      content: current.content,
      valueJson: current.valueJson ?? undefined,
    },
  };
}
