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
