/**
 * Moments a second apart, starting half an hour ago: calls given them in turn (`{ now: clock() }`)
 * happen in that order for the database, with no waiting on the wall clock, and all before "now".
 */
export function steppingClock(stepMs = 1000, startAgoMs = 30 * 60_000): () => Date {
  let at = Date.now() - startAgoMs;
  return () => new Date((at += stepMs));
}

/**
 * Rate limits count per wall-clock minute: waits (at most `marginMs`) until that much of the current
 * minute is left, so calls made next share one window instead of straddling two.
 */
export async function clearOfMinuteEnd(marginMs = 5000): Promise<void> {
  const msLeft = 60_000 - (Date.now() % 60_000);
  if (msLeft < marginMs) await new Promise((resolve) => setTimeout(resolve, msLeft + 50));
}
