/**
 * A call the service (or the way to it) refused. `code` is the transport code (`BAD_REQUEST`,
 * `FORBIDDEN`, `TOO_MANY_REQUESTS`, …, or `TIMEOUT` / `NETWORK_ERROR` / `INVALID_RESPONSE` when no
 * answer of the service came back), `reason` the service's machine-readable cause
 * (`missing_permission`, `invalid_input`, `rate_limited`, …), `details` what it named, `status` the
 * HTTP status (0 when there was none).
 */
export class MemoryApiError extends Error {
  readonly code: string;
  readonly reason: string;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;
  /** What the server said to wait before retrying (429), in seconds. */
  readonly retryAfterSeconds: number | undefined;
  /** The tRPC procedure called, e.g. `tools.memory_write`. */
  readonly procedure: string;
  /** How many requests were sent for this call, retries included. */
  readonly attempts: number;

  constructor(
    message: string,
    init: {
      code: string;
      reason: string;
      status: number;
      procedure: string;
      attempts: number;
      details?: Record<string, unknown>;
      retryAfterSeconds?: number;
      cause?: unknown;
    },
  ) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = "MemoryApiError";
    this.code = init.code;
    this.reason = init.reason;
    this.status = init.status;
    this.details = init.details;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.procedure = init.procedure;
    this.attempts = init.attempts;
  }

  /** A plain object to hand a model as a tool result: what went wrong and what to send instead. */
  toToolResult(): { error: string; code: string; reason: string; details?: Record<string, unknown> } {
    return {
      error: this.message,
      code: this.code,
      reason: this.reason,
      ...(this.details ? { details: this.details } : {}),
    };
  }
}

export const isMemoryApiError = (error: unknown): error is MemoryApiError => error instanceof MemoryApiError;
