/** The SQLSTATE of a driver error, whether postgres.js, PGlite, or wrapped by Drizzle. */
export function pgErrorCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Errors that a retry of the whole transaction can resolve: a racing writer took the slot, or a deadlock/serialization abort. */
export const isRetryableWriteError = (error: unknown) => ["23505", "40001", "40P01"].includes(pgErrorCode(error) ?? "");

/** How many times a contended write transaction is retried before the error reaches the caller. */
export const MAX_WRITE_ATTEMPTS = 8;

/** Randomized, growing pause between retries so racing writers don't collide again in lockstep. */
export const contentionBackoff = (attempt: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.random() * 10 * 2 ** Math.min(attempt, 6)));

/** Runs `work` (one whole transaction), retrying deadlocks, serialization failures and lost slot races. */
export async function retryOnContention<T>(work: (attempt: number) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work(attempt);
    } catch (error) {
      if (!isRetryableWriteError(error) || attempt >= MAX_WRITE_ATTEMPTS) throw error;
      await contentionBackoff(attempt);
    }
  }
}
