import {
  apiKeys,
  idempotencyKeys,
  memoryAuditEvents,
  memoryChunks,
  memoryChunkTopics,
  memoryEmbeddings,
  memoryJobs,
  memoryKinds,
  memoryMessages,
  memoryNodes,
  memoryNodeUsage,
  memoryQueryLog,
  memorySummaries,
  memoryTopics,
  memoryTreeSummaries,
  scopeGrants,
  tenantInvitations,
  tenantMembers,
  workspaces,
} from "~/db/schema";

/**
 * Every tenant table, sorted by what it holds; test/unit/tenant-tables.test.ts walks the schema and
 * fails when a table with `tenant_id` is in none of these (or in two), so a new table cannot escape
 * the erasures by being forgotten.
 *
 * Memory: cards, evidence, the memory tree and everything derived from them. Erasing a whole tenant
 * (eraseTenantMemory) deletes these rows in this order, dependents first; erasing lineages
 * (eraseLineages) must say what it does with each (its LINEAGE_ERASURE is typed over these names).
 */
export const TENANT_MEMORY_TABLES = {
  memoryEmbeddings,
  memoryNodeUsage,
  memoryNodes,
  memoryChunkTopics,
  memoryTreeSummaries,
  memoryChunks,
  memoryTopics,
  memorySummaries,
  memoryMessages,
  memoryJobs,
  idempotencyKeys,
  memoryQueryLog,
} as const;
export type TenantMemoryTableName = keyof typeof TENANT_MEMORY_TABLES;

/** The audit trail: kept through every erasure (that a change happened), its content scrubbed. */
export const TENANT_AUDIT_TABLE = memoryAuditEvents;

/** Tenant tables that hold no memory: who may do what, and configuration. Erasing memory keeps them. */
export const TENANT_TABLES_WITHOUT_MEMORY = {
  tenantMembers,
  /** Invitations of people with an account elsewhere, until they accept. */
  tenantInvitations,
  workspaces,
  apiKeys,
  scopeGrants,
  /** Admin-defined kinds: the shape memory may take, not memory itself. */
  memoryKinds,
} as const;
