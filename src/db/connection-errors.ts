/**
 * Errors meaning the connection is gone (or never came up): postgres.js codes, socket and resolver
 * errnos (a host that does not resolve or cannot be reached), server FATALs.
 */
const CONNECTION_LOST = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "EHOSTDOWN",
  "ENETUNREACH",
  "ENETDOWN",
  "57P01",
  "57P02",
  "57P03",
  "25P03",
  "25P04",
]);

export function isConnectionLost(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && typeof e === "object" && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && (CONNECTION_LOST.has(code) || code.startsWith("08"))) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * A failure of the database itself: a lost connection, or an error the server raised (a SQLSTATE,
 * five digits or capitals), anywhere in the cause chain. Callers that also throw their own errors
 * (src/server/errors.ts ServiceError) check for those first.
 */
export function isDatabaseError(error: unknown): boolean {
  if (isConnectionLost(error)) return true;
  for (let e: unknown = error, depth = 0; e && typeof e === "object" && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
