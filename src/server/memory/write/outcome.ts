import type { OperationFailure } from "./draft";
import type { WriteOperation, WriteOperationResult } from "./schema";

/** What a batch's caller is told, operation by operation and in one sentence. */

export const failureResult = (index: number, op: WriteOperation, f: OperationFailure): WriteOperationResult => ({
  index,
  op: op.op,
  status: f.status,
  reason: f.reason,
  message: f.message,
  ...(f.extra.nodeId ? { nodeId: f.extra.nodeId } : {}),
  ...(f.extra.scope ? { scope: f.extra.scope } : {}),
  ...(f.extra.currentRevision !== undefined ? { currentRevision: f.extra.currentRevision } : {}),
  ...(f.extra.currentStatus ? { currentStatus: f.extra.currentStatus } : {}),
});

export function summarize(results: WriteOperationResult[], done: boolean): string {
  if (done) {
    const counts = results.reduce<Record<string, number>>(
      (acc, r) => ({ ...acc, [r.status]: (acc[r.status] ?? 0) + 1 }),
      {},
    );
    return `All ${results.length} operation(s) applied (${Object.entries(counts)
      .map(([k, n]) => `${n} ${k}`)
      .join(", ")}).`;
  }
  const failed = results.filter(
    (r) => r.status === "conflict" || (r.status === "rejected" && r.reason !== "batch_aborted"),
  );
  return `Nothing was written: ${failed.map((r) => `operation ${r.index} ${r.status} (${r.reason})`).join("; ")}. Fix ${failed.length > 1 ? "them" : "it"} and resend the whole batch. Do not tell the user it was saved.`;
}

/** Every operation not at fault is reported as not applied, so no caller mistakes it for a success. */

/** Every operation not at fault is reported as not applied, so no caller mistakes it for a success. */
export function abortedResults(ops: WriteOperation[], failures: Map<number, OperationFailure>): WriteOperationResult[] {
  return ops.map((op, index) => {
    const failure = failures.get(index);
    if (failure) return failureResult(index, op, failure);
    return {
      index,
      op: op.op,
      status: "rejected",
      reason: "batch_aborted",
      message: "Not applied: another operation of this batch failed, and batches are all or nothing.",
    };
  });
}
