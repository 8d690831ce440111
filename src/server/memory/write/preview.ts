import type { Database } from "~/db/types";
import type { MemoryCallContext } from "../call-context";
import { loadTenantWithKinds } from "../kinds/custom";
import { findActiveInSlot } from "../store/card-revisions";
import { formatScope, scopeAllowed } from "../scope";
import { parseInput } from "~/server/validation";
import { sameContent } from "./compare";
import { draftCreate } from "./prepare";
import { OperationFailure } from "./draft";
import { writeOperationSchema } from "./schema";

const createOperationSchema = writeOperationSchema.options[0];

/** The card a create would replace, as a person needs it to decide. */
export type ReplacedCard = {
  id: string;
  title: string;
  content: string;
  valueJson: unknown;
  revision: number;
  updatedAt: string;
};

export type CreatePreview =
  | { ok: false; status: "rejected" | "conflict"; reason: string; message: string }
  | {
      ok: true;
      kind: string;
      key: string;
      itemKey: string | null;
      itemized: boolean;
      scope: string;
      notes: string[];
      /** The active card in the slot this create would take, which it would replace; null when the slot is free. */
      replaces: ReplacedCard | null;
      /** The slot already says exactly this: saving would change nothing. */
      unchanged: boolean;
    };

/**
 * What a create would do, without writing: the refusal it would get, or the slot it would take and the
 * card there it would replace. The dashboard asks before saving, so a person sees "this replaces
 * <card>" with replace / cancel instead of finding a card superseded afterwards; the rules are
 * memoryWrite's own (draftCreate), never a copy in the client.
 */
export async function previewCreate(
  db: Database,
  ctx: MemoryCallContext,
  rawOperation: unknown,
): Promise<CreatePreview> {
  const op = parseInput(createOperationSchema, rawOperation, "create operation");
  const { tenant, registry } = await loadTenantWithKinds(db, ctx.tenantId);
  let draft;
  try {
    draft = draftCreate({ tenant, registry, now: new Date() }, ctx, op);
  } catch (error) {
    if (!(error instanceof OperationFailure)) throw error;
    return { ok: false, status: error.status, reason: error.reason, message: error.message };
  }
  // A writable scope is readable too; the check keeps this read inside what the caller may see.
  const occupant = scopeAllowed(draft.scope, ctx.readScopes)
    ? await findActiveInSlot(db, { tenantId: ctx.tenantId, scope: draft.scope, key: draft.key })
    : undefined;
  return {
    ok: true,
    kind: draft.def.kind,
    key: draft.key,
    itemKey: draft.itemKey,
    itemized: draft.def.itemized,
    scope: formatScope(draft.scope),
    notes: draft.notes,
    replaces: occupant
      ? {
          id: occupant.id,
          title: occupant.title,
          content: occupant.content,
          valueJson: occupant.valueJson,
          revision: occupant.revision,
          updatedAt: occupant.updatedAt.toISOString(),
        }
      : null,
    unchanged: occupant ? sameContent(occupant, draft) : false,
  };
}
