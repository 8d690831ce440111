import type { Database, Transaction } from "~/db/types";

/**
 * Statements whose answer a transaction does not need (audit rows, queued jobs, an idempotent
 * reply): sent at once, pipelined with what follows on the transaction's connection, and settled
 * either before the transaction ends (`settle`) or together with its COMMIT (`commitWith`).
 */
export function pipelinedStatements() {
  const pending: Promise<unknown>[] = [];
  return {
    /** `statement` must already be started (startNow): it is then on the wire before the COMMIT. */
    send(statement: Promise<unknown>) {
      statement.catch(() => {}); // awaited in settle()
      pending.push(statement);
    },
    settle: () => Promise.all(pending),
  };
}
export type PipelinedStatements = ReturnType<typeof pipelinedStatements>;

/**
 * Runs `work` in a transaction and sends its COMMIT right behind the statements `work` left in
 * `trailing`, without waiting for their answers first: one round trip less per write. If one of
 * them fails, Postgres has aborted the transaction and answers the COMMIT with a rollback; that
 * failure is thrown here (server mode: by the transaction itself, see src/db/client.ts), so nothing
 * is reported done that was not written.
 */
export async function commitWith<T>(
  db: Database,
  work: (tx: Transaction, trailing: PipelinedStatements) => Promise<T>,
): Promise<T> {
  let settled: Promise<unknown> | undefined;
  try {
    const answer = await db.transaction(async (tx) => {
      const trailing = pipelinedStatements();
      const result = await work(tx, trailing);
      settled = trailing.settle();
      settled.catch(() => {}); // awaited below, once the transaction is over
      return result;
    });
    await settled;
    return answer;
  } catch (error) {
    // The failed trailing statement itself (as the driver and Drizzle report it) is the cause.
    await settled;
    throw error;
  }
}
