import { MemoryApiError } from "./errors.js";
import type {
  MemoryContextInput,
  MemoryContextResult,
  MemoryForgetInput,
  MemoryGetInput,
  MemoryGetResult,
  MemorySearchInput,
  MemorySearchResult,
  MemoryWriteInput,
  MessageAppendInput,
  MessageInput,
  ToolArgs,
  ToolList,
  ToolName,
  ToolResults,
  TurnInput,
} from "./types.js";

export type MemoryClientOptions = {
  /** Where the service runs, e.g. `http://localhost:3000` (the client adds `/api/trpc`). */
  baseUrl: string;
  /** An agent key, `mem_live_…`. */
  apiKey: string;
  /** The conversation: sent as `turn.sessionId` with every call unless a call names another. */
  sessionId?: string;
  /** Default workspace and user of every turn. */
  workspaceId?: string;
  userId?: string;
  /** Per request (each retry gets its own), default 30 000. */
  timeoutMs?: number;
  /** Retries after a 429, a 503 or a connection failure, default 2. */
  retries?: number;
  /** A 429 asking to wait longer than this is not retried but thrown, default 30 000. */
  maxRetryDelayMs?: number;
  /** Another fetch (a proxy agent, a test double); default the global one. */
  fetch?: typeof fetch;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
  /**
   * Read your own writes on a server with read replicas, default true: the `consistency` token of the
   * latest write, forget or append this client (and its withSession copies) made is sent as
   * X-Memory-Consistency with every later call, so a read never misses it.
   */
  readYourWrites?: boolean;
};

export type CallOptions = {
  /** Merged over the client's turn (sessionId, workspaceId, userId). */
  turn?: TurnInput;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Writes and forgets: the key that makes a retry apply once. Default: a fresh one per call, reused by its retries. */
  idempotencyKey?: string;
  /** A write's `consistency` token (e.g. from another process) this call must see; default the client's latest. */
  consistency?: string;
};

export type RequestOptions = Pick<CallOptions, "signal" | "timeoutMs">;

export type MemoryClient = {
  readonly sessionId: string | undefined;
  /** The `consistency` token of this client's latest write, forget or append (servers with read replicas only). */
  readonly consistency: string | undefined;
  /** memory_search: `kinds` for known categories, `queryText` for open questions, `all: true` to list. */
  search(input: MemorySearchInput, options?: CallOptions): Promise<MemorySearchResult>;
  /** memory_get: one card by id (a string is taken as the id), or an exact lookup. */
  get(input: MemoryGetInput | string, options?: CallOptions): Promise<MemoryGetResult>;
  /** memory_write: a batch, all or nothing; `done: false` means nothing was written. */
  write(input: MemoryWriteInput, options?: CallOptions): Promise<ToolResults["memory_write"]>;
  /** memory_forget: needs `turn.forgetIntent` (the user asked); without it the answer is `done: false`, reason `forget_intent_required`. */
  forget(input: MemoryForgetInput, options?: CallOptions): Promise<ToolResults["memory_forget"]>;
  /** memory_context: the budgeted memory block for this turn (`prompt`). */
  context(input?: MemoryContextInput, options?: CallOptions): Promise<MemoryContextResult>;
  /** message_append: this turn's messages as evidence; the ids `sourceMessageIds` may cite. */
  appendMessages(
    input: MessageAppendInput | MessageInput[],
    options?: CallOptions,
  ): Promise<ToolResults["message_append"]>;
  /** tools.list: the tools this key may call, with JSON Schemas and OpenAI / Anthropic forms. */
  listTools(options?: RequestOptions): Promise<ToolList>;
  /** tools.call: any tool by name, as a model asked for it. */
  call<N extends ToolName>(name: N, args: ToolArgs[N], options?: CallOptions): Promise<ToolResults[N]>;
  call(name: string, args: Record<string, unknown>, options?: CallOptions): Promise<unknown>;
  /** The same client for another conversation (sharing its read-your-writes token). */
  withSession(sessionId: string): MemoryClient;
};

const DEFAULTS = { timeoutMs: 30_000, retries: 2, maxRetryDelayMs: 30_000 };
const RETRY_STATUSES = new Set([429, 503]);
const WRITES = new Set<string>(["memory_write", "memory_forget"]);

type TrpcAnswer = {
  result?: { data?: unknown };
  error?: {
    message?: string;
    data?: { code?: string; httpStatus?: number; reason?: string; details?: Record<string, unknown> };
  };
};

type Answer = { status: number; ok: boolean; headers: Headers; text: string };
/** What one request takes: the per-request options, and a read's consistency token. */
type SendOptions = RequestOptions & Pick<CallOptions, "consistency">;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** `Retry-After` as seconds or an HTTP date, else the body's retryAfterSeconds. */
function retryAfterOf(headers: Headers, details: Record<string, unknown> | undefined): number | undefined {
  const header = headers.get("retry-after");
  if (header !== null && header.trim() !== "") {
    const seconds = Number(header);
    if (Number.isFinite(seconds) && seconds >= 0) return seconds;
    const date = Date.parse(header);
    if (!Number.isNaN(date)) return Math.max(0, (date - Date.now()) / 1000);
  }
  const fromBody = details?.retryAfterSeconds;
  return typeof fromBody === "number" && fromBody >= 0 ? fromBody : undefined;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Exponential back-off with jitter: ~250 ms, ~500 ms, ~1 s, … capped at 8 s. */
const backoffMs = (attempt: number) => Math.min(8_000, 250 * 2 ** (attempt - 1)) * (0.75 + Math.random() * 0.5);

function newIdempotencyKey(): string {
  const random = globalThis.crypto?.randomUUID?.();
  return (
    random ??
    `idem-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`
  );
}

function cleanTurn(turn: TurnInput): TurnInput | undefined {
  const entries = Object.entries(turn).filter(([, value]) => value !== undefined);
  return entries.length ? (Object.fromEntries(entries) as TurnInput) : undefined;
}

/** A write position `X/Y` (hex) as a number, to keep the later of two tokens; null when it is not one. */
function positionOf(token: string): bigint | null {
  const match = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(token.trim());
  return match ? (BigInt(`0x${match[1]}`) << 32n) + BigInt(`0x${match[2]}`) : null;
}

type SharedState = { consistency?: string };

export function createMemoryClient(options: MemoryClientOptions): MemoryClient {
  return buildClient(options, {});
}

function buildClient(options: MemoryClientOptions, shared: SharedState): MemoryClient {
  if (typeof options.baseUrl !== "string" || options.baseUrl.trim() === "")
    throw new TypeError("createMemoryClient needs baseUrl, e.g. http://localhost:3000");
  if (typeof options.apiKey !== "string" || options.apiKey.trim() === "")
    throw new TypeError("createMemoryClient needs apiKey (an agent key, mem_live_…)");
  const endpoint = `${options.baseUrl.replace(/\/+$/, "").replace(/\/api\/trpc$/, "")}/api/trpc`;
  const doFetch = options.fetch ?? globalThis.fetch;
  if (typeof doFetch !== "function")
    throw new TypeError("No fetch: pass options.fetch (Node 18+ and browsers have one built in)");
  const retries = Math.max(0, Math.floor(options.retries ?? DEFAULTS.retries));
  const maxRetryDelayMs = options.maxRetryDelayMs ?? DEFAULTS.maxRetryDelayMs;
  const baseTurn: TurnInput = {
    sessionId: options.sessionId,
    workspaceId: options.workspaceId,
    userId: options.userId,
  };
  const readYourWrites = options.readYourWrites ?? true;

  function keepConsistency(data: unknown) {
    if (!readYourWrites || !isRecord(data) || typeof data.consistency !== "string") return;
    const next = data.consistency;
    const known = shared.consistency === undefined ? null : positionOf(shared.consistency);
    const incoming = positionOf(next);
    if (known === null || incoming === null || incoming > known) shared.consistency = next;
  }

  async function attempt(
    procedure: string,
    init: { method: "GET" | "POST"; body?: string },
    request: SendOptions,
    attempts: number,
  ): Promise<Answer | MemoryApiError> {
    const controller = new AbortController();
    const userSignal = request.signal;
    let timedOut = false;
    const onAbort = () => controller.abort(userSignal?.reason);
    userSignal?.addEventListener("abort", onAbort, { once: true });
    const timeoutMs = request.timeoutMs ?? options.timeoutMs ?? DEFAULTS.timeoutMs;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    try {
      const response = await doFetch(`${endpoint}/${procedure}`, {
        method: init.method,
        headers: {
          ...options.headers,
          authorization: `Bearer ${options.apiKey}`,
          accept: "application/json",
          ...(init.body === undefined ? {} : { "content-type": "application/json" }),
          ...(request.consistency ? { "x-memory-consistency": request.consistency } : {}),
        },
        body: init.body,
        signal: controller.signal,
      });
      // The body is read under the same timeout.
      return { status: response.status, ok: response.ok, headers: response.headers, text: await response.text() };
    } catch (cause) {
      if (userSignal?.aborted) throw userSignal.reason;
      if (timedOut) {
        return new MemoryApiError(
          `${procedure}: no answer within ${timeoutMs} ms. A write may or may not have been applied; retry with the same idempotencyKey.`,
          {
            code: "TIMEOUT",
            reason: "timeout",
            status: 0,
            procedure,
            attempts,
            cause,
          },
        );
      }
      return new MemoryApiError(
        `${procedure}: could not reach ${endpoint} (${cause instanceof Error ? cause.message : String(cause)}).`,
        {
          code: "NETWORK_ERROR",
          reason: "network_error",
          status: 0,
          procedure,
          attempts,
          cause,
        },
      );
    } finally {
      clearTimeout(timer);
      userSignal?.removeEventListener("abort", onAbort);
    }
  }

  async function send(
    procedure: string,
    init: { method: "GET" | "POST"; body?: unknown },
    callOptions: RequestOptions & { consistency?: string } = {},
  ): Promise<unknown> {
    const body = init.body === undefined ? undefined : JSON.stringify(init.body);
    const consistency = callOptions.consistency ?? (readYourWrites ? shared.consistency : undefined);
    const request: SendOptions = { ...callOptions, consistency };
    for (let attempts = 1; ; attempts++) {
      if (request.signal?.aborted) throw request.signal.reason;
      const outcome = await attempt(procedure, { method: init.method, body }, request, attempts);
      let error: MemoryApiError;
      if (outcome instanceof MemoryApiError) {
        error = outcome;
        // A timeout is not retried here: the caller decides whether to wait longer.
        if (error.code === "NETWORK_ERROR" && attempts <= retries) {
          await sleep(backoffMs(attempts), request.signal);
          continue;
        }
        throw error;
      }
      const text = outcome.text;
      let json: TrpcAnswer | undefined;
      try {
        const parsed: unknown = JSON.parse(text);
        json = isRecord(parsed) ? (parsed as TrpcAnswer) : undefined;
      } catch {
        json = undefined;
      }
      if (outcome.ok && json?.result && "data" in json.result) {
        keepConsistency(json.result.data);
        return json.result.data;
      }
      const data = json?.error?.data;
      const details = isRecord(data?.details) ? data.details : undefined;
      const retryAfterSeconds = retryAfterOf(outcome.headers, details);
      error = new MemoryApiError(
        json?.error?.message ??
          `${procedure}: HTTP ${outcome.status} without a service answer${text ? `: ${text.slice(0, 200)}` : ""}`,
        {
          code: data?.code ?? (json ? `HTTP_${outcome.status}` : "INVALID_RESPONSE"),
          reason: data?.reason ?? (json ? "unknown" : "invalid_response"),
          status: outcome.status,
          details,
          retryAfterSeconds,
          procedure,
          attempts,
        },
      );
      if (!RETRY_STATUSES.has(outcome.status) || attempts > retries) throw error;
      const delay = retryAfterSeconds !== undefined ? retryAfterSeconds * 1000 : backoffMs(attempts);
      if (delay > maxRetryDelayMs) throw error;
      await sleep(delay, request.signal);
    }
  }

  const turnOf = (callOptions: CallOptions | undefined) => cleanTurn({ ...baseTurn, ...callOptions?.turn });

  function tool<N extends ToolName>(
    name: N,
    args: ToolArgs[N],
    callOptions: CallOptions = {},
  ): Promise<ToolResults[N]> {
    const body: Record<string, unknown> = { ...(args as Record<string, unknown>) };
    if (WRITES.has(name))
      body.idempotencyKey = callOptions.idempotencyKey ?? body.idempotencyKey ?? newIdempotencyKey();
    const turn = turnOf(callOptions);
    if (turn) body.turn = turn;
    return send(`tools.${name}`, { method: "POST", body }, callOptions) as Promise<ToolResults[N]>;
  }

  function call(name: string, args: Record<string, unknown>, callOptions: CallOptions = {}): Promise<unknown> {
    const envelope: Record<string, unknown> = { name, arguments: args };
    if (WRITES.has(name))
      envelope.idempotencyKey =
        callOptions.idempotencyKey ??
        (typeof args.idempotencyKey === "string" ? args.idempotencyKey : newIdempotencyKey());
    else if (callOptions.idempotencyKey !== undefined) envelope.idempotencyKey = callOptions.idempotencyKey;
    const turn = turnOf(callOptions);
    if (turn) envelope.turn = turn;
    return send("tools.call", { method: "POST", body: envelope }, callOptions);
  }

  const client: MemoryClient = {
    sessionId: options.sessionId,
    get consistency() {
      return shared.consistency;
    },
    search: (input, callOptions) => tool("memory_search", input, callOptions),
    get: (input, callOptions) => tool("memory_get", typeof input === "string" ? { id: input } : input, callOptions),
    write: (input, callOptions) => tool("memory_write", input, callOptions),
    forget: (input, callOptions) => tool("memory_forget", input, callOptions),
    context: (input = {}, callOptions) => tool("memory_context", input, callOptions),
    appendMessages: (input, callOptions) =>
      tool("message_append", Array.isArray(input) ? { messages: input } : input, callOptions),
    listTools: (request) => send("tools.list", { method: "GET" }, request) as Promise<ToolList>,
    call: call as MemoryClient["call"],
    withSession: (sessionId) => buildClient({ ...options, sessionId }, shared),
  };
  return client;
}
