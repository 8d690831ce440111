import { isConnectionLost } from "~/db/connection-errors";
import { describeError, log } from "~/server/log";
import { databaseRefusal } from "~/db/pg-errors";

/**
 * Errors the domain core raises, without depending on tRPC or HTTP: a stable machine-readable
 * `reason`, a sentence a person or a model can act on, and the transport code it maps to.
 */
export type ServiceErrorCode =
  | "BAD_REQUEST"
  | "UNAUTHORIZED"
  | "FORBIDDEN"
  | "NOT_FOUND"
  | "CONFLICT"
  | "TOO_MANY_REQUESTS"
  | "PAYLOAD_TOO_LARGE"
  | "PRECONDITION_FAILED"
  | "SERVICE_UNAVAILABLE"
  | "INTERNAL_SERVER_ERROR";

export class ServiceError extends Error {
  constructor(
    readonly code: ServiceErrorCode,
    readonly reason: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "ServiceError";
  }
}

export const forbidden = (reason: string, message: string, details?: Record<string, unknown>) =>
  new ServiceError("FORBIDDEN", reason, message, details);
export const badRequest = (reason: string, message: string, details?: Record<string, unknown>) =>
  new ServiceError("BAD_REQUEST", reason, message, details);
export const notFound = (reason: string, message: string) => new ServiceError("NOT_FOUND", reason, message);

/**
 * The database connection broke during the call (Postgres restarted, the network dropped). A write
 * whose COMMIT was under way may have been saved or not, so "nothing changed" would be a guess: the
 * answer says how to find out safely instead.
 */
const databaseUnavailable = () =>
  new ServiceError(
    "SERVICE_UNAVAILABLE",
    "database_unavailable",
    "The database connection was lost during this call, so whether a write in it was saved is unknown. Retry in a few seconds: a write or forget sent with the same idempotencyKey is applied at most once; without one, read the memory first (memory_get / memory_search) instead of writing again blindly.",
  );

/** A value the database refused (NUL, out of range, malformed): 400 with the reason, never the statement. */
const refusedByDatabase = (error: unknown): ServiceError | null => {
  const refusal = databaseRefusal(error);
  if (!refusal) return null;
  // The caller gets the reason; the operator the statement (parameters masked), in case a check upstream is missing.
  log("warn", `database refused a value (${refusal.reason}): ${describeError(error)}`);
  return badRequest(refusal.reason, refusal.message);
};

/**
 * The answer a caller gets for a failure the domain knows how to word: its own, a lost connection's,
 * or a value the database refused; null for anything else.
 */
export const knownServiceError = (error: unknown): ServiceError | null =>
  error instanceof ServiceError ? error : isConnectionLost(error) ? databaseUnavailable() : refusedByDatabase(error);
