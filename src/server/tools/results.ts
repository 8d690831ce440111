import {
  type MemoryContextResult,
  type MemoryForgetResult,
  type MemoryCard,
  type MemorySearchResult,
  type MemoryWriteResult,
} from "~/server/memory";

/** Plain-JSON form of a result type: what an HTTP client actually receives (dates as ISO strings). */
export type Jsonify<T> = T extends Date
  ? string
  : T extends readonly (infer U)[]
    ? Jsonify<U>[]
    : T extends object
      ? { [K in keyof T]: Jsonify<T[K]> }
      : T;
export const jsonify = <T>(value: T): Jsonify<T> => JSON.parse(JSON.stringify(value)) as Jsonify<T>;
/**
 * A result that already is plain JSON (no Date: cards carry ISO strings), passed on as is: the JSON
 * round trip of `jsonify` cost ~3 % of a search's server CPU under load. The type checks the claim.
 */
export const alreadyJson = <T>(value: T & Jsonify<T>): Jsonify<T> => value;

/**
 * memory_context's result as JSON: its cards already carry ISO strings, so only the messages' and
 * the summary's dates are converted (the whole result through JSON was ~5 % of a context call's CPU).
 */
export const contextAsJson = (result: MemoryContextResult): Jsonify<MemoryContextResult> => ({
  ...result,
  recentMessages: result.recentMessages.map((m) => ({
    id: m.id,
    role: m.role,
    content: m.content,
    createdAt: m.createdAt.toISOString(),
  })),
  latestSummary: result.latestSummary && jsonify(result.latestSummary),
});

export type MemoryGetResult = {
  found: boolean;
  node?: MemoryCard;
  /** Several cards matched a lookup without id: pick one by id. */
  candidates?: MemoryCard[];
  /** The id named an old revision: the card current now, the one to change. */
  currentId?: string;
  currentRevision?: number;
  message: string;
};

export type MessageAppendResult = {
  sessionId: string;
  /** Cite these in memory_write node.sourceMessageIds (with turn.sessionId = sessionId). */
  messageIds: string[];
  messages: { id: string; role: string; duplicate: boolean; createdAt: string }[];
  message: string;
};

/**
 * A write's answer with read replicas configured: `consistency` is its commit position, to send back
 * as X-Memory-Consistency with a later read that must see it (docs/operations.md, Scaling).
 */
export type WithConsistency<T> = T & { consistency?: string };

export type ToolResults = {
  memory_search: Jsonify<MemorySearchResult>;
  memory_get: MemoryGetResult;
  memory_write: WithConsistency<MemoryWriteResult>;
  memory_forget: WithConsistency<MemoryForgetResult>;
  memory_context: Jsonify<MemoryContextResult>;
  message_append: WithConsistency<MessageAppendResult>;
};
export type ToolName = keyof ToolResults;
export const TOOL_NAMES = [
  "memory_search",
  "memory_get",
  "memory_write",
  "memory_forget",
  "memory_context",
  "message_append",
] as const satisfies readonly ToolName[];
