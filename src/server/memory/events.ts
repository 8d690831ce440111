import type { DbOrTx } from "~/db/types";

/** A message the host captured, as the areas that listen to the core see it. */
export type CapturedMessage = {
  id: string;
  role: string;
  content: string;
  createdAt: Date;
  seq?: number;
  source?: string;
};

/**
 * What the core announces, inside the transaction that made it happen, so that other areas (the memory
 * tree) keep their own data in step without the core importing them. Each event has one subscriber,
 * registered at start-up (`registerTreeSubscribers` in ~/server/tree, called by every entry point:
 * the server, the worker, the CLI, the tests and the benchmarks).
 */
export type MemorySubscribers = {
  /** New messages were stored; runs in their transaction, so evidence and what is derived from it appear together. */
  messagesCaptured: (
    tx: DbOrTx,
    params: { tenantId: string; sessionId: string; userScopeId: string | null; messages: CapturedMessage[] },
  ) => Promise<void>;
  /** An erasure took chunks away from a topic: its summary is rebuilt from what is left, or the topic goes. */
  topicLostChunks: (tx: DbOrTx, params: { tenantId: string; topicId: string }) => Promise<"rebuilt" | "removed">;
};

// On globalThis: Next.js may load this module once per bundle in one process, and a subscriber
// registered by start-up must be seen by every copy.
const REGISTRY = Symbol.for("agent-memory.memorySubscribers");
const shared = globalThis as { [REGISTRY]?: MemorySubscribers };

export function subscribeToMemory(subscribers: MemorySubscribers): void {
  shared[REGISTRY] = subscribers;
}

/**
 * The subscriber of an event. Missing means an entry point forgot to register the tree: failing here
 * is better than storing messages without their chunks or erasing cards and leaving a topic summary
 * that quotes them.
 */
export function memorySubscriber<E extends keyof MemorySubscribers>(event: E): MemorySubscribers[E] {
  const subscribers = shared[REGISTRY];
  if (!subscribers)
    throw new Error(
      `no subscriber for the memory event "${event}": call registerTreeSubscribers() from ~/server/tree at start-up`,
    );
  return subscribers[event];
}
