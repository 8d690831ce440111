/**
 * The memory tree's front door (docs/memory-tree.md: chunks, topics, sealed summaries, extraction and session
 * summaries as background jobs). Code outside src/server/tree imports from here. The tree depends on
 * the memory core, never the reverse: it subscribes to the core's events (registerTreeSubscribers).
 */
export { readableSessions } from "./access";
export { EXTRACTOR_ACTOR_ID } from "./extract-coverage";
export { treeJobHandlers } from "./jobs";
export { getGlobalStats, getHotTopics, getTopicSummary, searchBySession, searchChunks } from "./retrieval";
export { scheduleTreeDailyJobs } from "./schedule";
export { registerTreeSubscribers } from "./subscribers";
