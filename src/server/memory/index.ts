/**
 * The memory core's front door: what the rest of the app (routers, tools, dashboard, tree, jobs, CLI)
 * may use. Code outside src/server/memory imports from here, never from a file inside (an ESLint rule
 * says so; tests and benchmarks may reach in). Rooms: write/, forget/, kinds/, evidence/,
 * embeddings/, retrieval/, store/ (the SQL); docs/architecture.md is the map.
 */
export type { CallTime, MemoryCallContext } from "./call-context";
export { processEmbedJobs } from "./embeddings/jobs";
export { enqueueMissingEmbeddings } from "./embeddings/vectors";
export { cardsCitingMessages } from "./evidence/citing-cards";
export { MAX_MESSAGES_PER_APPEND, MAX_MESSAGE_CHARS, appendMessages } from "./evidence/messages";
export {
  MESSAGE_ROLES,
  getAllMessagesByIds,
  getMessagesByIds,
  listRecentMessages,
  listSessions,
  resolveTrustedMessageIds,
} from "./store/messages";
export { appendSummary, getSummaryChain } from "./evidence/summaries";
export { getLatestSummary } from "./store/summaries";
export { eraseTenantMemory } from "./forget/erase";
export { eraseScopeMemory } from "./forget/erase-scope";
export type { ScopeErasureReceipt } from "./forget/erase-scope";
export { canEraseSession, eraseSession, sessionOwnersColumn } from "./forget/erase-session";
export type { SessionErasureReceipt } from "./forget/erase-session";
export { memoryForget } from "./forget/forget";
export { restoreCard } from "./forget/restore";
export { memoryForgetInputSchema } from "./forget/schema";
export type { ErasureReceipt, MemoryForgetInput, MemoryForgetResult } from "./forget/schema";
export { TENANT_MEMORY_TABLES } from "./forget/tenant-tables";
export {
  deleteCustomKind,
  listCustomKinds,
  loadKindRegistry,
  loadTenantWithKinds,
  saveCustomKind,
} from "./kinds/custom";
export type { KindRegistry } from "./kinds/custom";
export { describeKind, storedKindNames } from "./kinds/registry";
export type { KindDefinition } from "./kinds/definition";
export { MIN_CONFIDENCE } from "./retrieval/conflicts";
export { memoryContextInputSchema } from "./retrieval/context-schema";
export type { MemoryContextDiagnostics, MemoryContextInput, MemoryContextResult } from "./retrieval/context-schema";
export { currentRevisionOf, getMemoryCard, getCardHistory } from "./retrieval/history";
export { buildMemoryContext } from "./retrieval/memory-context";
export { coolRecallHotness, recallUsageOf, recordRecalls } from "./retrieval/recall-usage";
export { memorySearch } from "./retrieval/search";
export { bilingualDictionary as loadSearchDictionary } from "./retrieval/bilingual-dictionary";
export { SEARCH_LIMITS, memorySearchInputSchema } from "./retrieval/search-schema";
export type {
  MemorySearchInput,
  MemorySearchResult,
  OmitReason,
  ScoreComponents,
  SearchHit,
} from "./retrieval/search-schema";
export {
  formatScope,
  intersectScopes,
  parseKeyScopePattern,
  parseScope,
  parseScopePattern,
  scopeAllowed,
} from "./scope";
export type { MemoryScope, ScopePattern } from "./scope";
export { recordAudit } from "./store/audit";
export { categoryPrefixCondition } from "./store/card-filter";
export { canonicalJson, findActiveInSlot } from "./store/card-revisions";
export type { MemoryCard } from "./store/card-view";
export { findActiveCards } from "./store/exact-query";
export { reindexSearchText } from "./store/reindex-search-text";
export { scopePatternsCondition } from "./store/scope-sql";
export { normalizeItemKey } from "./kinds/canonical-key";
export { OperationFailure } from "./write/draft";
export { previewCreate } from "./write/preview";
export { EXPLICIT_INTENT_FLAG, WRITE_LIMITS, boundedJson, memoryWriteInputSchema } from "./write/schema";
export type { MemoryWriteInput, MemoryWriteResult, WriteOperation, writeOperationSchema } from "./write/schema";
export { memoryWrite } from "./write/write";
export { draftCreate } from "./write/prepare";
export type { WriteEnvironment } from "./write/prepare";
export { ERASED_KINDS_FIELD } from "./forget/erase";
export { HOTNESS } from "./retrieval/hotness";
export { subscribeToMemory } from "./events";
export type { CapturedMessage, MemorySubscribers } from "./events";
