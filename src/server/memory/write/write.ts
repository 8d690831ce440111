import { and, eq, inArray } from "drizzle-orm";
import { startNow } from "~/db/start-now";
import type { Database, Transaction } from "~/db/types";
import { memoryMessages, type MemoryNodeRow } from "~/db/schema";
import { newId } from "~/server/ids";
import { recordAudit } from "../store/audit";
import { commitWith, type PipelinedStatements } from "~/db/pipelined";
import type { MemoryCallContext } from "../call-context";
import { loadTenantWithKinds, type KindRegistry } from "../kinds/custom";
import { enqueueEmbedJobs } from "../embeddings/vectors";
import { claimIdempotencyKey, findIdempotentResponse, requestHash, storeIdempotentResponse } from "./idempotency";
import { auditSnapshot } from "../store/card-view";
import {
  canonicalJson,
  endActiveRevision,
  findActiveInSlot,
  getNodeRow,
  insertNodeIfSlotFree,
  insertNodeRow,
  newRevisionStamp,
} from "../store/card-revisions";
import { contentionBackoff, isRetryableWriteError, MAX_WRITE_ATTEMPTS } from "~/db/pg-errors";
import { formatScope, parseScope, scopeAllowed, type MemoryScope } from "../scope";
import { buildNodeSearchFields } from "../store/search-fields";
import { buildDraft, OperationFailure, type DraftEnvironment, type NodeDraft } from "./draft";
import {
  memoryWriteInputSchema,
  type MemoryWriteResult,
  type NodeFields,
  type WriteOperation,
  type WriteOperationResult,
} from "./schema";
import { parseInput } from "~/server/validation";
import { kindNames, unknownKindText } from "../kinds/unknown";
import { MIN_CONFIDENCE } from "../retrieval/conflicts";
import { scopedSlotLock, shadowSlotLock, takeSlotLocks } from "./shadow-lock";
import { sameContent, updateChangesNothing, updatedFields } from "./compare";
import { abortedResults, summarize } from "./outcome";

export type WriteEnvironment = DraftEnvironment & { registry: KindRegistry };
type Env = WriteEnvironment;
type Prepared = { op: WriteOperation; draft?: NodeDraft };

/** A slot found empty was taken before the insert (a writer outside the slot lock): retried like a unique violation. */
class SlotRaceError extends Error {
  readonly code = "23505";
  constructor() {
    super("The memory slot was filled by a concurrent writer.");
  }
}

class BatchFailed extends Error {
  constructor(readonly results: WriteOperationResult[]) {
    super("batch failed");
  }
}

function resolveKindOrFail(env: Env, kind: string) {
  const def = env.registry.resolve(kind);
  if (!def) {
    throw new OperationFailure(
      "rejected",
      "unknown_kind",
      `${unknownKindText(env.registry, kind)}. Use one of: ${kindNames(env.registry)} (custom_fact with an itemKey for anything else).`,
    );
  }
  return def;
}

function requestedScope(
  ctx: MemoryCallContext,
  scopeText: string | undefined,
  defaultScope: MemoryScope["type"],
): MemoryScope {
  if (scopeText) return parseScope(scopeText);
  if (defaultScope === "global") return { type: "global", id: "" };
  const scope = ctx.defaults[defaultScope as keyof MemoryCallContext["defaults"]];
  if (!scope) {
    // The turn named one the caller may not use: "send scope workspace:w1" would only be refused next.
    const named = ctx.unreadableDefaults?.find((s) => s.type === defaultScope);
    if (named) {
      throw new OperationFailure(
        "rejected",
        "scope_not_writable",
        `This turn's ${defaultScope} ${formatScope(named)} is outside your grants, so the card has nowhere to go. Ask an admin for a grant on ${formatScope(named)}, or send a scope you hold.`,
        { scope: formatScope(named) },
      );
    }
    throw new OperationFailure(
      "rejected",
      "scope_required",
      `No default ${defaultScope} scope for this call; send scope, e.g. "${defaultScope}:<id>".`,
    );
  }
  return scope;
}

/** Static checks needing no card: every create is fully drafted here so all problems are reported at once. */
function prepare(env: Env, ctx: MemoryCallContext, op: WriteOperation): Prepared {
  if (op.op !== "create") return { op };
  return { op, draft: draftCreate(env, ctx, op) };
}

/** A create's card with every rule applied (write/preview.ts shows it before a person saves). */
export function draftCreate(
  env: Env,
  ctx: MemoryCallContext,
  op: Extract<WriteOperation, { op: "create" }>,
): NodeDraft {
  const def = resolveKindOrFail(env, op.kind);
  let scope: MemoryScope;
  try {
    scope = requestedScope(ctx, op.scope, def.defaultScope);
  } catch (error) {
    if (error instanceof OperationFailure) throw error;
    throw new OperationFailure("rejected", "invalid_scope", error instanceof Error ? error.message : String(error));
  }
  return buildDraft(env, ctx, {
    def,
    scope,
    itemKey: op.itemKey,
    fields: op.node,
    explicit: op.explicitUserIntent === true,
    allowDowngrade: true,
  });
}

const citedMessages = (op: WriteOperation): readonly string[] => ("node" in op && op.node?.sourceMessageIds) || [];

/**
 * The messages the batch cites, share-locked until it commits: a conversation erased meanwhile (the
 * background extractor read it a moment before) must not come back as a card citing it. Returns the
 * first operation citing a message that is gone, with its failure; an erasure that starts later
 * waits for this commit and then finds the cards.
 */
async function lockEvidence(
  tx: Transaction,
  tenantId: string,
  prepared: readonly Prepared[],
): Promise<{ index: number; failure: OperationFailure } | null> {
  const cited = [...new Set(prepared.flatMap((item) => citedMessages(item.op)))];
  if (cited.length === 0) return null;
  const present = await tx
    .select({ id: memoryMessages.id })
    .from(memoryMessages)
    .where(and(eq(memoryMessages.tenantId, tenantId), inArray(memoryMessages.id, cited)))
    .for("key share");
  const found = new Set(present.map((row) => row.id));
  const index = prepared.findIndex((item) => citedMessages(item.op).some((id) => !found.has(id)));
  if (index < 0) return null;
  const missing = citedMessages(prepared[index]!.op).filter((id) => !found.has(id));
  return {
    index,
    failure: new OperationFailure(
      "rejected",
      "source_erased",
      `sourceMessageIds ${missing.join(", ")} no longer exist (the conversation was erased); nothing was written. Leave them out, or do not save what was erased.`,
    ),
  };
}

/** Loads the card an id-targeted operation names and checks it is still what the caller last read. */
async function loadTarget(
  tx: Transaction,
  ctx: MemoryCallContext,
  op: Extract<WriteOperation, { targetId: string }>,
): Promise<MemoryNodeRow> {
  const row = await getNodeRow(tx, { tenantId: ctx.tenantId, id: op.targetId, forUpdate: true });
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

/** A drafted card's row, all but its place in a revision chain (id, revision, lineage, predecessor). */
function nodeValues(ctx: MemoryCallContext, draft: NodeDraft, now: Date) {
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
async function writeNextRevision(
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

/** Saved but never recalled would be a silent failure: a card under the recall threshold says so. */
function unrecalledNote(row: Pick<MemoryNodeRow, "confidence">): string {
  if (row.confidence >= MIN_CONFIDENCE) return "";
  return ` Its confidence ${row.confidence} is under ${MIN_CONFIDENCE}: memory_search and memory_context leave it out (listed in omitted as low_confidence) until an update raises it.`;
}

async function apply(
  tx: Transaction,
  env: Env,
  ctx: MemoryCallContext,
  index: number,
  prepared: Prepared,
  audits: PipelinedStatements,
): Promise<WriteOperationResult> {
  const { op } = prepared;
  const reason = op.reason ?? null;
  const done = (
    row: MemoryNodeRow,
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
    const values = nodeValues(ctx, draft, env.now);
    const found = findActiveInSlot(tx, { tenantId: ctx.tenantId, scope: draft.scope, key: draft.key, forUpdate: true });
    const inserted = insertNodeIfSlotFree(tx, { ...values, id, revision: 1, lineageId: id, supersedesId: null });
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
  const fields: NodeFields = op.op === "update" ? updatedFields(target, op.node) : op.node;
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
  const row = await writeNextRevision(tx, ctx, target, nodeValues(ctx, draft, env.now), env.now);
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

/**
 * Serialises writers of the same slot (transaction-scoped advisory locks, taken in sorted order so
 * two batches never wait on each other in a cycle): racing creates of a new slot queue up instead of
 * colliding on the unique index.
 */
async function lockSlots(tx: Transaction, tenantId: string, prepared: Prepared[]) {
  const drafts = prepared.flatMap((p) => (p.draft ? [p.draft] : []));
  // Each slot in its scope, and across scopes: the shadow-mark trigger (0013) takes the latter as it
  // inserts, in the batch's order, so a user-scope batch writing k1, k2 and a session-scope batch
  // writing k2, k1 each waited for the other (a second per deadlock; under load past the retries).
  // Taken here first, all in one order, the trigger finds it held.
  const statement = takeSlotLocks(
    drafts.flatMap((d) => [
      scopedSlotLock(tenantId, formatScope(d.scope), d.def.domain, d.key),
      shadowSlotLock(tenantId, d.def.domain, d.key),
    ]),
  );
  // Sent at once (startNow), before the slot reads issued after this call: Postgres runs them in order.
  if (statement) await startNow(tx.execute(statement));
}

const scopeNamedBy = (op: WriteOperation | undefined) =>
  op && "scope" in op && typeof op.scope === "string" ? op.scope : undefined;

function scopeOrNull(text: string): MemoryScope | null {
  try {
    return parseScope(text);
  } catch {
    return null;
  }
}

/**
 * `memory_write`: a batch of create / update / supersede / expire, validated whole and committed in
 * one transaction (all or nothing), each with an audit row in that transaction. Rejections are
 * audited too, in their own transaction, after the batch rolled back.
 */
export async function memoryWrite(db: Database, ctx: MemoryCallContext, rawInput: unknown): Promise<MemoryWriteResult> {
  const { operations, idempotencyKey } = parseInput(memoryWriteInputSchema, rawInput, "memory_write input");
  const principalId = `${ctx.actor.type}:${ctx.actor.id ?? "system"}`;
  const hash = requestHash(rawInput);
  const idem = idempotencyKey ? { tenantId: ctx.tenantId, principalId, key: idempotencyKey, hash } : null;
  if (idem) {
    const stored = await findIdempotentResponse<MemoryWriteResult>(db, idem);
    if (stored) return { ...stored, replayed: true };
  }

  const { tenant, registry } = await loadTenantWithKinds(db, ctx.tenantId);
  const env: Env = { tenant, registry, now: new Date() };

  // Pass 1: every static problem of every operation, so the caller can fix them all in one go.
  const failures = new Map<number, OperationFailure>();
  const prepared = operations.map((op, index) => {
    try {
      return prepare(env, ctx, op);
    } catch (error) {
      if (!(error instanceof OperationFailure)) throw error;
      failures.set(index, error);
      return { op };
    }
  });

  let result: MemoryWriteResult | undefined;
  if (failures.size === 0) {
    for (let attempt = 1; attempt <= MAX_WRITE_ATTEMPTS && !result; attempt++) {
      try {
        result = await commitWith(db, async (tx, audits) => {
          // The slot locks go out together with the first operation's reads, one round trip less:
          // Postgres runs the statements in order and each read takes its snapshot once the locks
          // are held, exactly as if it had waited for them here.
          const locked = lockSlots(tx, ctx.tenantId, prepared);
          locked.catch(() => {}); // awaited below
          const results: WriteOperationResult[] = [];
          try {
            const gone = await lockEvidence(tx, ctx.tenantId, prepared);
            if (gone) {
              failures.set(gone.index, gone.failure);
              throw new BatchFailed(results);
            }
            for (const [index, item] of prepared.entries()) {
              try {
                results.push(await apply(tx, env, ctx, index, item, audits));
              } catch (error) {
                if (!(error instanceof OperationFailure)) throw error;
                failures.set(index, error);
                throw new BatchFailed(results);
              }
            }
          } catch (error) {
            // A failed lock or audit insert (a deadlock, a dropped connection) is the cause; the
            // statements after it only saw an aborted transaction.
            await locked;
            await audits.settle();
            throw error;
          }
          await locked;
          const answer: MemoryWriteResult = { done: true, message: summarize(results, true), results };
          // The audit rows, the embedding jobs (new revisions get their vector from the queue; the
          // write never waits on a provider) and the idempotent reply go out with the COMMIT.
          audits.send(
            enqueueEmbedJobs(tx, {
              tenantId: ctx.tenantId,
              targets: results
                .filter((r) => r.nodeId && r.status !== "noop" && r.status !== "expired")
                .map((r) => ({ kind: "node" as const, id: r.nodeId! })),
            }),
          );
          if (idem) audits.send(storeIdempotentResponse(tx, { ...idem, response: answer }));
          return answer;
        });
      } catch (error) {
        if (error instanceof BatchFailed) break;
        // A racing writer took the slot (unique index) or a deadlock aborted us: the whole batch is
        // retried against the new state; a replayed idempotency key returns the twin's answer.
        if (isRetryableWriteError(error) && attempt < MAX_WRITE_ATTEMPTS) {
          failures.clear();
          await contentionBackoff(attempt);
          if (idem) {
            const stored = await findIdempotentResponse<MemoryWriteResult>(db, idem);
            if (stored) return { ...stored, replayed: true };
          }
          continue;
        }
        throw error;
      }
    }
  }
  if (result) return result;

  const results = abortedResults(operations, failures);
  const answer: MemoryWriteResult = { done: false, message: summarize(results, false), results };
  const replay = await db.transaction(async (tx) => {
    // A twin of this call that finished first (stored its answer) is the answer to give.
    const stored = idem ? await claimIdempotencyKey<MemoryWriteResult>(tx, idem) : undefined;
    if (stored) return stored;
    for (const r of results) {
      if (r.reason === "batch_aborted") continue;
      // The refused scope goes on the row, so the log can say where the write was headed.
      const named = r.scope ?? scopeNamedBy(operations[r.index]);
      const scope = named ? scopeOrNull(named) : null;
      await recordAudit(tx, ctx, {
        eventType: "rejected",
        nodeId: r.nodeId ?? null,
        scope,
        reason: `${r.status}: ${r.reason}`,
        metadata: { index: r.index, op: r.op, message: r.message, ...(named && !scope ? { scope: named } : {}) },
      });
    }
    if (idem) await storeIdempotentResponse(tx, { ...idem, response: answer });
    return undefined;
  });
  return replay ? { ...replay, replayed: true } : answer;
}
