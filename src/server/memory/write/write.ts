import type { Database } from "~/db/types";
import { commitWith } from "~/db/pipelined";
import { contentionBackoff, isRetryableWriteError, MAX_WRITE_ATTEMPTS } from "~/db/pg-errors";
import { parseInput } from "~/server/validation";
import type { CallTime, MemoryCallContext } from "../call-context";
import { enqueueEmbedJobs } from "../store/embeddings";
import { loadTenantWithKinds } from "../kinds/custom";
import { parseScope, type MemoryScope } from "../scope";
import { recordAudit } from "../store/audit";
import { apply } from "./apply";
import { OperationFailure } from "./draft";
import { claimIdempotencyKey, findIdempotentResponse, requestHash, storeIdempotentResponse } from "./idempotency";
import { lockEvidence, lockSlots } from "./locks";
import { abortedResults, summarize } from "./outcome";
import { prepare, type WriteEnvironment } from "./prepare";
import {
  memoryWriteInputSchema,
  type MemoryWriteResult,
  type WriteOperation,
  type WriteOperationResult,
} from "./schema";

class BatchFailed extends Error {
  constructor(readonly results: WriteOperationResult[]) {
    super("batch failed");
  }
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
export async function memoryWrite(
  db: Database,
  ctx: MemoryCallContext,
  rawInput: unknown,
  time: CallTime = {},
): Promise<MemoryWriteResult> {
  const { operations, idempotencyKey } = parseInput(memoryWriteInputSchema, rawInput, "memory_write input");
  const principalId = `${ctx.actor.type}:${ctx.actor.id ?? "system"}`;
  const hash = requestHash(rawInput);
  const idem = idempotencyKey ? { tenantId: ctx.tenantId, principalId, key: idempotencyKey, hash } : null;
  if (idem) {
    const stored = await findIdempotentResponse<MemoryWriteResult>(db, idem);
    if (stored) return { ...stored, replayed: true };
  }

  const { tenant, registry } = await loadTenantWithKinds(db, ctx.tenantId);
  const env: WriteEnvironment = { tenant, registry, now: time.now ?? new Date() };

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
