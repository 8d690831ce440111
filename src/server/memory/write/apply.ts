import type { MemoryCardRow } from "~/db/schema";
import type { Transaction } from "~/db/types";
import type { PipelinedStatements } from "~/db/pipelined";
import { newId } from "~/server/ids";
import type { MemoryCallContext } from "../call-context";
import { MIN_CONFIDENCE } from "../retrieval/conflicts";
import { formatScope } from "../scope";
import { recordAudit } from "../store/audit";
import { canonicalJson, endActiveRevision, findActiveInSlot, insertCardIfSlotFree } from "../store/card-revisions";
import { auditSnapshot } from "../store/card-view";
import { sameContent, updateChangesNothing, updatedFields } from "./compare";
import { buildDraft, OperationFailure } from "./draft";
import { resolveKindOrFail, type Prepared, type WriteEnvironment } from "./prepare";
import { cardRowValues, writeNextRevision } from "./revision";
import type { CardFieldsInput, WriteOperationResult } from "./schema";
import { loadTarget } from "./target";

/** A slot found empty was taken before the insert (a writer outside the slot lock): retried like a unique violation. */
class SlotRaceError extends Error {
  readonly code = "23505";
  constructor() {
    super("The memory slot was filled by a concurrent writer.");
  }
}

/** Saved but never recalled would be a silent failure: a card under the recall threshold says so. */
function unrecalledNote(row: Pick<MemoryCardRow, "confidence">): string {
  if (row.confidence >= MIN_CONFIDENCE) return "";
  return ` Its confidence ${row.confidence} is under ${MIN_CONFIDENCE}: memory_search and memory_context leave it out (listed in omitted as low_confidence) until an update raises it.`;
}

export async function apply(
  tx: Transaction,
  env: WriteEnvironment,
  ctx: MemoryCallContext,
  index: number,
  prepared: Prepared,
  audits: PipelinedStatements,
): Promise<WriteOperationResult> {
  const { op } = prepared;
  const reason = op.reason ?? null;
  const done = (
    row: MemoryCardRow,
    status: WriteOperationResult["status"],
    message: string,
    extra: Partial<WriteOperationResult> = {},
  ): WriteOperationResult => ({
    index,
    op: op.op,
    status,
    nodeId: row.id,
    key: row.key,
    scope: formatScope({ type: row.scopeType, id: row.scopeId }),
    revision: row.revision,
    message: status === "expired" ? message : `${message}${unrecalledNote(row)}`,
    ...extra,
  });

  if (op.op === "create") {
    const draft = prepared.draft!;
    const notes = draft.notes.length ? { notes: draft.notes } : {};
    // The slot's read and the insert of a first revision go out together: the insert only happens
    // when the read finds the slot empty (it is locked by lockSlots, so no one fills it in between).
    const id = newId("mem");
    const values = cardRowValues(ctx, draft, env.now);
    const found = findActiveInSlot(tx, { tenantId: ctx.tenantId, scope: draft.scope, key: draft.key, forUpdate: true });
    const inserted = insertCardIfSlotFree(tx, { ...values, id, revision: 1, lineageId: id, supersedesId: null });
    const [existing, row] = await Promise.all([found, inserted]);
    if (!existing) {
      // Empty when read, taken when inserting: a writer that bypassed the slot lock; the batch is retried.
      if (!row) throw new SlotRaceError();
      audits.send(
        recordAudit(tx, ctx, {
          eventType: "create",
          nodeId: row.id,
          lineageId: row.lineageId,
          scope: draft.scope,
          reason,
          after: auditSnapshot(row),
        }),
      );
      return done(row, "created", `Saved ${row.key} as ${row.id}. This write is done; do not repeat it.`, notes);
    }
    if (row) throw new Error(`Internal error: the slot of ${draft.key} was read after its insert.`);
    if (sameContent(existing, draft)) {
      audits.send(
        recordAudit(tx, ctx, {
          eventType: "noop",
          nodeId: existing.id,
          lineageId: existing.lineageId,
          scope: draft.scope,
          reason: reason ?? "same slot, same content",
        }),
      );
      return done(
        existing,
        "noop",
        `Memory ${existing.id} (${existing.key}) already says this; nothing changed. Do not repeat this write.`,
        notes,
      );
    }
    const next = await writeNextRevision(tx, ctx, existing, values, env.now);
    audits.send(
      recordAudit(tx, ctx, {
        eventType: "supersede",
        nodeId: next.id,
        lineageId: next.lineageId,
        scope: draft.scope,
        reason,
        before: auditSnapshot(existing),
        after: auditSnapshot(next),
      }),
    );
    // A create that lands on a taken slot replaces its card: said plainly, so the agent can tell the
    // user (a second decision once replaced the first without a word).
    const replaced = { id: existing.id, title: existing.title, revision: existing.revision };
    return done(
      next,
      "superseded",
      `Saved revision ${next.revision} of ${next.key} as ${next.id}. It replaced ${existing.id} "${existing.title}" (${next.key} holds one card per scope), which is no longer recalled; tell the user if that was not meant. This write is done; do not repeat it.`,
      { previousId: existing.id, replaced, ...notes },
    );
  }

  const target = await loadTarget(tx, ctx, op);
  const scope = { type: target.scopeType, id: target.scopeId };

  if (op.op === "expire") {
    const row = await endActiveRevision(tx, {
      tenantId: ctx.tenantId,
      id: target.id,
      expectedRevision: op.expectedRevision,
      status: "expired",
      actor: ctx.actor,
      at: env.now,
    });
    if (!row)
      throw new OperationFailure(
        "conflict",
        "revision_mismatch",
        `Memory ${target.id} changed while expiring it; re-read and retry.`,
        { nodeId: target.id },
      );
    audits.send(
      recordAudit(tx, ctx, {
        eventType: "expire",
        nodeId: row.id,
        lineageId: row.lineageId,
        scope,
        reason,
        before: auditSnapshot(target),
        after: auditSnapshot(row),
      }),
    );
    return done(row, "expired", `Memory ${row.id} is expired and will no longer be recalled. This write is done.`);
  }

  const def = resolveKindOrFail(env, op.op === "supersede" && op.kind ? op.kind : target.kind);
  const fields: CardFieldsInput = op.op === "update" ? updatedFields(target, op.node) : op.node;
  const itemKey =
    op.op === "supersede" ? (op.itemKey ?? (def.kind === target.kind ? target.itemKey : undefined)) : target.itemKey;
  const explicit = op.explicitUserIntent === true;
  const draft = buildDraft(env, ctx, { def, scope, itemKey, fields, explicit, allowDowngrade: false });
  // Recall shows a card's content, not its value: a new value under the old sentence ("Answer in
  // English." over "zh-CN") would keep recalling what the user changed.
  if (
    op.op === "update" &&
    op.node.content === undefined &&
    canonicalJson(draft.valueJson ?? null) !== canonicalJson(target.valueJson ?? null)
  ) {
    throw new OperationFailure(
      "rejected",
      "content_required",
      `This update changes valueJson of ${target.id} but not its content, which still says "${target.content.slice(0, 120)}" and is what recall shows. Send node.content stating the new value (and title if it names the old one).`,
      { nodeId: target.id },
    );
  }
  // Sources of the earlier revision stay part of the new one's provenance.
  draft.sourceMessageIds = [...new Set([...target.sourceMessageIds, ...draft.sourceMessageIds])];
  // A supersede that restates the card word for word is no new fact either (same slot, same content: noop).
  if (updateChangesNothing(target, draft, op.node)) {
    audits.send(
      recordAudit(tx, ctx, {
        eventType: "noop",
        nodeId: target.id,
        lineageId: target.lineageId,
        scope,
        reason: reason ?? `${op.op} without a change`,
      }),
    );
    return done(target, "noop", `Memory ${target.id} already says this; nothing changed.`);
  }
  if (draft.key !== target.key) {
    const occupant = await findActiveInSlot(tx, { tenantId: ctx.tenantId, scope, key: draft.key, forUpdate: true });
    if (occupant) {
      throw new OperationFailure(
        "conflict",
        "slot_occupied",
        `Slot ${draft.key} already holds ${occupant.id}; update that card instead, or expire it first.`,
        { nodeId: occupant.id, currentRevision: occupant.revision },
      );
    }
  }
  const row = await writeNextRevision(tx, ctx, target, cardRowValues(ctx, draft, env.now), env.now);
  const eventType = op.op === "update" ? "update" : "supersede";
  audits.send(
    recordAudit(tx, ctx, {
      eventType,
      nodeId: row.id,
      lineageId: row.lineageId,
      scope,
      reason,
      before: auditSnapshot(target),
      after: auditSnapshot(row),
    }),
  );
  const status = op.op === "update" ? "updated" : "superseded";
  return done(
    row,
    status,
    `Saved revision ${row.revision} of ${row.key} as ${row.id} (replaces ${target.id}). This write is done; do not repeat it.`,
    {
      previousId: target.id,
      ...(draft.notes.length ? { notes: draft.notes } : {}),
    },
  );
}
