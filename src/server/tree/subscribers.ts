import { subscribeToMemory } from "~/server/memory";
import { rebuildTopicSummary } from "./topics";
import { ingestCapturedMessages } from "./ingest";

/**
 * The memory tree listens to the core: captured messages become chunks in their transaction (the hot
 * path, docs/memory-tree.md), and an erasure that took chunks from a topic rebuilds or removes it.
 * Every entry point calls this once before it touches memory (the server's start-up, the tRPC root,
 * the worker, the CLI, the tests' database helper, the benchmarks); calling it again changes nothing.
 */
export function registerTreeSubscribers(): void {
  subscribeToMemory({
    messagesCaptured: async (tx, params) => {
      await ingestCapturedMessages(tx, params);
    },
    topicLostChunks: (tx, params) => rebuildTopicSummary(tx, params),
  });
}
