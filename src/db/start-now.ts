/**
 * Runs a Drizzle query now. A query builder runs when its `then` is called, which `await` does only a
 * microtask later; started here, it is queued on its connection before anything issued after this
 * call (what pipelined statements and a COMMIT sent behind them rely on). Statements sent together
 * in a transaction must all be started this way: an awaited builder issued before one started here
 * would fall behind it.
 */
export function startNow<T>(query: PromiseLike<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => query.then(resolve, reject));
}
