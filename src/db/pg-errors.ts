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
export const contentionBackoff = (attempt: number) =>
  new Promise<void>((resolve) => setTimeout(resolve, Math.random() * 10 * 2 ** Math.min(attempt, 6)));

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

/**
 * What a person can do about a value the database refused (SQLSTATE class 22, data exceptions, and
 * a few more): a reason and a sentence, never the statement or its parameters. Null for anything
 * else (a bug or an outage, answered as a server error). The statement failed, so its transaction
 * was rolled back: nothing of the call was saved.
 */
export function databaseRefusal(error: unknown): { reason: string; message: string } | null {
  const code = pgErrorCode(error);
  if (!code) return null;
  const refused = (reason: string, what: string) => ({
    reason,
    message: `${what} Nothing was saved; change the value and send it again.`,
  });
  switch (code) {
    case "22021": // character_not_in_repertoire: NUL, or bytes that are not UTF-8
    case "22P05": // untranslatable_character: \u0000 inside JSON
      return refused(
        "invalid_text",
        "A text field contains a NUL character (\\u0000) or text that is not valid UTF-8, which cannot be stored.",
      );
    case "22001":
      return refused("value_too_long", "A value is longer than the field can hold.");
    case "22003":
      return refused("number_out_of_range", "A number is out of the range the field can hold.");
    case "22007":
    case "22008":
      return refused("invalid_date", "A date or time is not valid or out of range.");
    case "22P02":
      return refused("invalid_value", "A value does not have the type the field needs (a number, a date, an id).");
    case "54001": // statement_too_complex (stack depth)
      return refused("too_deeply_nested", "A value is nested too deeply.");
    default:
      return code.startsWith("22")
        ? refused("invalid_value", "A value was refused by the database as malformed or out of range.")
        : null;
  }
}
