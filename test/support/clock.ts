/**
 * Moments a second apart, starting half an hour ago: calls given them in turn (`{ now: clock() }`)
 * happen in that order for the database, with no waiting on the wall clock, and all before "now".
 */
export function steppingClock(stepMs = 1000, startAgoMs = 30 * 60_000): () => Date {
  let at = Date.now() - startAgoMs;
  return () => new Date((at += stepMs));
}
