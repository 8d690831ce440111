/**
 * Statements whose answer a batch does not need (its audit rows): sent at once, pipelined with what
 * follows on the transaction's connection, and awaited before commit, so a failure still aborts it.
 */
export function pipelinedStatements() {
  const pending: Promise<unknown>[] = [];
  return {
    send(statement: Promise<unknown>) {
      statement.catch(() => {}); // awaited in settle()
      pending.push(statement);
    },
    settle: () => Promise.all(pending),
  };
}
export type PipelinedStatements = ReturnType<typeof pipelinedStatements>;
