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
