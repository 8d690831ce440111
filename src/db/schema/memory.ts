import { getTableColumns, sql } from "drizzle-orm";
import {
  bigserial,
  boolean,
  check,
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  real,
  text,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { createdAt, GIN_NO_PENDING_LIST, tenantIdColumn, timestampTz, tsvector, updatedAt, vector } from "./columns";
import { tenants } from "./tenants";
import { memoryChunks } from "./tree";

export const SCOPE_TYPES = ["session", "workspace", "user", "context", "global"] as const;
export type ScopeType = (typeof SCOPE_TYPES)[number];
export const CARD_STATUSES = ["active", "superseded", "expired", "deleted"] as const;
export type CardStatus = (typeof CARD_STATUSES)[number];
export const CARD_TYPES = [
  "preference",
  "fact",
  "decision",
  "task",
  "recipe",
  "skill",
  "constraint",
  "correction",
] as const;
export type CardType = (typeof CARD_TYPES)[number];
export const ACTOR_TYPES = ["user", "api_key", "system"] as const;

/**
 * The cards memory_context reads every turn, whatever was said: the always-recalled built-in kinds,
 * the user's profile (name, home, occupation, the people in their life) and the standing types
 * (tasks, constraints, preferences, decisions). Literal here because a partial index needs them in
 * its predicate; test/unit/standing-index.test.ts keeps them equal to the kinds registry. A
 * workspace's facts stand too (docs/retrieval.md, memory_context: "当前 workspace active constraints /
 * decisions / facts"), read apart with a limit of their own: a team keeps hundreds.
 */
export const STANDING_INDEX_KINDS = [
  "interaction_contract",
  "language_preference",
  "hard_constraint",
  "accessibility_need",
  "communication_preference",
  "profile_name",
  "home_location",
  "occupation",
  "personal_relationship",
] as const;
export const STANDING_INDEX_TYPES = [
  "task",
  "constraint",
  "preference",
  "decision",
] as const satisfies readonly (typeof CARD_TYPES)[number][];
const sqlList = (values: readonly string[]) => values.map((v) => `'${v}'`).join(", ");
/**
 * memory_nodes_standing_idx's predicate as query text. Literal, not parameters: a cached (generic)
 * plan can only use a partial index when the query's own text implies its predicate, so with the
 * lists as parameters Postgres planned memory_context's standing query afresh on every call. The
 * index is declared with this same text.
 */
export const STANDING_CARDS_PREDICATE = `"memory_nodes"."status" = 'active' and ("memory_nodes"."kind" in (${sqlList(STANDING_INDEX_KINDS)}) or "memory_nodes"."type" in (${sqlList(STANDING_INDEX_TYPES)}))`;
/** memory_nodes_workspace_facts_idx's predicate, as query text for the same reason. */
export const WORKSPACE_FACTS_PREDICATE = `"memory_nodes"."status" = 'active' and "memory_nodes"."type" = 'fact' and "memory_nodes"."scope_type" = 'workspace'`;
export type ActorType = (typeof ACTOR_TYPES)[number];

/**
 * A card's search vector plus two lexemes for its tenant and scope: `#` and the md5 of `tenant|type:id`,
 * and `#` and the md5 of `tenant|type:*` (the whole scope type, for a reader granted `session:*`; see
 * scopeLexeme in src/server/memory/retrieval/scope-lexemes.ts). The `#` keeps prefix queries off them: a
 * query word is letters and digits, so "7" or "beef" could start a bare md5 but never `#…`. Indexed as
 * written here (GIN), and queries must match on exactly this expression for the index to serve them.
 */
const scopedSearchVector = (q: string) =>
  `(${q}search_vector || array_to_tsvector(array['#' || md5(${q}tenant_id || '|' || ${q}scope_type || ':' || ${q}scope_id), '#' || md5(${q}tenant_id || '|' || ${q}scope_type || ':*')]))`;
export const SCOPED_SEARCH_VECTOR = scopedSearchVector("");
/** The same expression with table-qualified columns, for statements that join other tables. */
export const SCOPED_SEARCH_VECTOR_IN_QUERY = scopedSearchVector('"memory_nodes".');

const tenantFk = () => tenantIdColumn().references(() => tenants.id, { onDelete: "cascade" });

/**
 * Weighted full-text vector over pre-segmented text (CJK split into words by Intl.Segmenter before
 * it is stored), so the `simple` configuration sees words in every language.
 */
const weightedVector = (a: string, b: string, c: string, d: string) =>
  sql.raw(
    `setweight(to_tsvector('simple', coalesce(${a}, '')), 'A') || setweight(to_tsvector('simple', coalesce(${b}, '')), 'B') || ` +
      `setweight(to_tsvector('simple', coalesce(${c}, '')), 'C') || setweight(to_tsvector('simple', coalesce(${d}, '')), 'D')`,
  );

/** Trusted evidence: the turns the host captured. Append-only; ids are deterministic. */
export const memoryMessages = pgTable(
  "memory_messages",
  {
    tenantId: tenantFk(),
    id: text("id").notNull(),
    /** Monotonic order within the database; created_at may tie. */
    seq: bigserial("seq", { mode: "number" }).notNull(),
    sessionId: text("session_id").notNull(),
    /** The person the session belongs to (`user:<id>` scope owner), when known. */
    userScopeId: text("user_scope_id"),
    workspaceId: text("workspace_id"),
    parentId: text("parent_id"),
    role: text("role", { enum: ["system", "user", "assistant", "tool"] }).notNull(),
    content: text("content").notNull(),
    contentHash: text("content_hash").notNull(),
    metadata: jsonb("metadata").$type<Record<string, unknown>>().notNull().default({}),
    /** Who captured it (api key id / user id). */
    capturedByType: text("captured_by_type", { enum: ["user", "api_key", "system"] }).notNull(),
    capturedById: text("captured_by_id"),
    searchText: text("search_text").notNull().default(""),
    searchVector: tsvector("search_vector").generatedAlwaysAs(sql`to_tsvector('simple', coalesce(search_text, ''))`),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    index("memory_messages_session_idx").on(t.tenantId, t.sessionId, t.seq),
    index("memory_messages_user_idx").on(t.tenantId, t.userScopeId, t.seq),
    index("memory_messages_search_idx").using("gin", t.searchVector).with(GIN_NO_PENDING_LIST),
    index("memory_messages_trgm_idx").using("gin", t.searchText.op("gin_trgm_ops")).with(GIN_NO_PENDING_LIST),
    check("memory_messages_role_ck", sql`${t.role} in ('system', 'user', 'assistant', 'tool')`),
  ],
);

/** Chained summaries per session (docs/memory-model.md): each reads only the previous one and the new messages. */
export const memorySummaries = pgTable(
  "memory_summaries",
  {
    tenantId: tenantFk(),
    id: text("id").notNull(),
    sessionId: text("session_id").notNull(),
    parentSummaryId: text("parent_summary_id"),
    fromMessageId: text("from_message_id").notNull(),
    toMessageId: text("to_message_id").notNull(),
    messageCount: integer("message_count").notNull().default(0),
    summary: text("summary").notNull(),
    currentGoal: text("current_goal"),
    constraints: jsonb("constraints").$type<string[]>().notNull().default([]),
    preferences: jsonb("preferences").$type<string[]>().notNull().default([]),
    decisions: jsonb("decisions").$type<string[]>().notNull().default([]),
    completedWork: jsonb("completed_work").$type<string[]>().notNull().default([]),
    pendingWork: jsonb("pending_work").$type<string[]>().notNull().default([]),
    knownIssues: jsonb("known_issues").$type<string[]>().notNull().default([]),
    /** `rules` or the LLM model name that wrote it. */
    generator: text("generator").notNull().default("rules"),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    index("memory_summaries_session_idx").on(t.tenantId, t.sessionId, t.createdAt),
    // A chain never forks: one child per parent.
    uniqueIndex("memory_summaries_parent_uq").on(t.tenantId, t.parentSummaryId),
  ],
);

/** The memory cards: the one operable long-term memory (docs/memory-model.md). */
export const memoryNodes = pgTable(
  "memory_nodes",
  {
    tenantId: tenantFk(),
    id: text("id").notNull(),
    scopeType: text("scope_type", { enum: SCOPE_TYPES }).notNull(),
    /** session id, user id, workspace id, `<namespace>/<id>` for context, '' for global. */
    scopeId: text("scope_id").notNull(),
    kind: text("kind").notNull(),
    /** Server-made canonical key (`kind.key` or `kind.key:item`). */
    key: text("key").notNull(),
    itemKey: text("item_key"),
    domain: text("domain").notNull(),
    categoryPath: text("category_path")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    /** `/`-joined category path for prefix queries. */
    categoryPathText: text("category_path_text").notNull().default(""),
    type: text("type", { enum: CARD_TYPES }).notNull(),
    valueJson: jsonb("value_json"),
    title: text("title").notNull(),
    content: text("content").notNull(),
    status: text("status", { enum: CARD_STATUSES }).notNull().default("active"),
    revision: integer("revision").notNull().default(1),
    /** Root of the revision chain (the first revision's id). */
    lineageId: text("lineage_id").notNull(),
    supersedesId: text("supersedes_id"),
    supersededById: text("superseded_by_id"),
    confidence: real("confidence").notNull(),
    importance: real("importance").notNull(),
    tags: text("tags")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    entities: text("entities")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    sourceMessageIds: text("source_message_ids")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    explicitUserIntent: boolean("explicit_user_intent").notNull().default(false),
    /** Content was redacted by the sensitive-data policy before storing. */
    redacted: boolean("redacted").notNull().default(false),
    /**
     * Some more specific scope of the organisation holds an active card of this card's slot (domain +
     * key): a search that finds this card looks for the one overriding it in the caller's turn
     * (slot-rivals.ts). Set by the trigger memory_nodes_mark_shadowed (0013); a soft forget leaves it (a
     * hint), an erasure of the override clears it (eraseLineages), so it is no trace of erased content.
     */
    shadowed: boolean("shadowed").notNull().default(false),
    createdByType: text("created_by_type", { enum: ACTOR_TYPES }).notNull(),
    createdById: text("created_by_id"),
    updatedByType: text("updated_by_type", { enum: ACTOR_TYPES }).notNull(),
    updatedById: text("updated_by_id"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    expiresAt: timestampTz("expires_at"),
    /** When this revision stopped being current (superseded/expired/deleted): used for `asOf` reads. */
    endedAt: timestampTz("ended_at"),
    // Segmented search fields (written by the app) feeding the weighted tsvector.
    searchTitle: text("search_title").notNull().default(""),
    searchKeys: text("search_keys").notNull().default(""),
    searchValues: text("search_values").notNull().default(""),
    searchBody: text("search_body").notNull().default(""),
    searchVector: tsvector("search_vector").generatedAlwaysAs(
      weightedVector("search_title", "search_keys", "search_values", "search_body"),
    ),
    metadata: jsonb("metadata").$type<Record<string, unknown>>().notNull().default({}),
    // Unused: recall counts live in memory_node_usage (0011). Kept so that instances of the release
    // before, which read them, still serve during a rolling upgrade; a later release drops them.
    legacyHotness: real("hotness").notNull().default(0),
    legacyAccessCount: integer("access_count").notNull().default(0),
    legacyLastAccessedAt: timestampTz("last_accessed_at"),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    index("memory_nodes_scope_status_key_idx").on(t.tenantId, t.scopeType, t.scopeId, t.status, t.key),
    index("memory_nodes_kind_idx").on(t.tenantId, t.status, t.kind),
    index("memory_nodes_category_idx").on(t.tenantId, t.categoryPathText.op("text_pattern_ops")),
    index("memory_nodes_lineage_idx").on(t.tenantId, t.lineageId, t.revision),
    index("memory_nodes_updated_idx").on(t.tenantId, t.updatedAt),
    index("memory_nodes_expires_idx")
      .on(t.tenantId, t.expiresAt)
      .where(sql`${t.status} = 'active' and ${t.expiresAt} is not null`),
    index("memory_nodes_value_idx").using("gin", t.valueJson.op("jsonb_path_ops")).with(GIN_NO_PENDING_LIST),
    index("memory_nodes_tags_idx").using("gin", t.tags).with(GIN_NO_PENDING_LIST),
    index("memory_nodes_entities_idx").using("gin", t.entities).with(GIN_NO_PENDING_LIST),
    index("memory_nodes_sources_idx").using("gin", t.sourceMessageIds).with(GIN_NO_PENDING_LIST),
    // Full text and scope in one index: each card's vector plus a lexeme naming its tenant and
    // scope (scopedSearchVector), so a search matches its terms within the caller's scopes in one
    // GIN scan instead of intersecting the term matches with every row of those scopes.
    index("memory_nodes_scoped_search_idx").using("gin", sql.raw(SCOPED_SEARCH_VECTOR)).with(GIN_NO_PENDING_LIST),
    index("memory_nodes_trgm_idx").using("gin", t.searchBody.op("gin_trgm_ops")).with(GIN_NO_PENDING_LIST),
    // The trigram signal matches title OR body: without this index the OR is a sequential scan.
    index("memory_nodes_title_trgm_idx").using("gin", t.searchTitle.op("gin_trgm_ops")).with(GIN_NO_PENDING_LIST),
    // Standing cards, read on every memory_context turn: only these rows, not every readable card
    // (9.1 → 2.1 ms at 100k cards). The lists are the code's (a unit test keeps them equal).
    index("memory_nodes_standing_idx").on(t.tenantId, t.scopeType, t.scopeId).where(sql.raw(STANDING_CARDS_PREDICATE)),
    // A workspace's facts, most important first: memory_context reads the top few of hundreds.
    index("memory_nodes_workspace_facts_idx")
      .on(t.tenantId, t.scopeId, t.importance.desc(), t.updatedAt.desc())
      .where(sql.raw(WORKSPACE_FACTS_PREDICATE)),
    // A slot's active cards across scopes: memory_nodes_mark_shadowed looks them up on every write.
    index("memory_nodes_active_key_idx")
      .on(t.tenantId, t.key)
      .where(sql`${t.status} = 'active'`),
    // One active card per slot: a racing second writer fails instead of creating a twin.
    uniqueIndex("memory_nodes_active_slot_uq")
      .on(t.tenantId, t.scopeType, t.scopeId, t.key)
      .where(sql`${t.status} = 'active'`),
    uniqueIndex("memory_nodes_lineage_revision_uq").on(t.tenantId, t.lineageId, t.revision),
    check("memory_nodes_confidence_ck", sql`${t.confidence} between 0 and 1`),
    check("memory_nodes_importance_ck", sql`${t.importance} between 0 and 1`),
    check("memory_nodes_revision_ck", sql`${t.revision} >= 1`),
  ],
);

/**
 * Embeddings for cards, chunks and messages, any model and dimension. One HNSW expression index per
 * configured model is created at start-up (see src/db/embedding-index.ts).
 */
export const memoryEmbeddings = pgTable(
  "memory_embeddings",
  {
    tenantId: tenantFk(),
    id: text("id").notNull(),
    nodeId: text("node_id"),
    chunkId: text("chunk_id"),
    messageId: text("message_id"),
    model: text("model").notNull(),
    dimensions: integer("dimensions").notNull(),
    embedding: vector("embedding").notNull(),
    contentHash: text("content_hash").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    uniqueIndex("memory_embeddings_node_model_uq")
      .on(t.tenantId, t.nodeId, t.model)
      .where(sql`${t.nodeId} is not null`),
    uniqueIndex("memory_embeddings_chunk_model_uq")
      .on(t.tenantId, t.chunkId, t.model)
      .where(sql`${t.chunkId} is not null`),
    uniqueIndex("memory_embeddings_message_model_uq")
      .on(t.tenantId, t.messageId, t.model)
      .where(sql`${t.messageId} is not null`),
    foreignKey({ columns: [t.tenantId, t.nodeId], foreignColumns: [memoryNodes.tenantId, memoryNodes.id] }).onDelete(
      "cascade",
    ),
    foreignKey({ columns: [t.tenantId, t.chunkId], foreignColumns: [memoryChunks.tenantId, memoryChunks.id] }).onDelete(
      "cascade",
    ),
    foreignKey({
      columns: [t.tenantId, t.messageId],
      foreignColumns: [memoryMessages.tenantId, memoryMessages.id],
    }).onDelete("cascade"),
    check("memory_embeddings_one_owner_ck", sql`num_nonnulls(${t.nodeId}, ${t.chunkId}, ${t.messageId}) = 1`),
  ],
);

/** Append-only history of every change (and rejected attempt), written in the change's transaction. */
export const memoryAuditEvents = pgTable(
  "memory_audit_events",
  {
    tenantId: tenantFk(),
    id: bigserial("id", { mode: "number" }).notNull(),
    /** Kept after a hard delete (no foreign key): the event stays, the content goes. */
    nodeId: text("node_id"),
    lineageId: text("lineage_id"),
    eventType: text("event_type", {
      enum: [
        "create",
        "update",
        "supersede",
        "expire",
        "delete",
        "hard_delete",
        "restore",
        "noop",
        "rejected",
        "grant",
        "key",
        "member",
        "policy",
        "kind",
        "import",
      ],
    }).notNull(),
    actorType: text("actor_type", { enum: ACTOR_TYPES }).notNull(),
    actorId: text("actor_id"),
    reason: text("reason"),
    toolCallId: text("tool_call_id"),
    scopeType: text("scope_type"),
    scopeId: text("scope_id"),
    before: jsonb("before"),
    after: jsonb("after"),
    metadata: jsonb("metadata").$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    index("memory_audit_node_idx").on(t.tenantId, t.nodeId, t.createdAt),
    index("memory_audit_lineage_idx").on(t.tenantId, t.lineageId, t.createdAt),
    index("memory_audit_created_idx").on(t.tenantId, t.createdAt),
    index("memory_audit_actor_idx").on(t.tenantId, t.actorType, t.actorId, t.createdAt),
  ],
);

/** Per-tenant custom kinds added by admins, next to the built-in registry. */
export const memoryKinds = pgTable(
  "memory_kinds",
  {
    tenantId: tenantFk(),
    kind: text("kind").notNull(),
    definition: jsonb("definition").$type<Record<string, unknown>>().notNull(),
    createdById: text("created_by_id"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.kind] })],
);

/** One row per search / context call, for stats (latency percentiles, searches per day). */
export const memoryQueryLog = pgTable(
  "memory_query_log",
  {
    tenantId: tenantFk(),
    id: bigserial("id", { mode: "number" }).notNull(),
    operation: text("operation").notNull(),
    actorType: text("actor_type", { enum: ACTOR_TYPES }).notNull(),
    actorId: text("actor_id"),
    latencyMs: real("latency_ms").notNull(),
    resultCount: integer("result_count").notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    index("memory_query_log_created_idx").on(t.tenantId, t.createdAt),
  ],
);

export type MemoryMessage = typeof memoryMessages.$inferSelect;
export type MemorySummary = typeof memorySummaries.$inferSelect;
export type MemoryCardRow = typeof memoryNodes.$inferSelect;

/**
 * A card as the retrieval paths read it: every column but the search ones (and the unused legacy counters), which only the database's
 * own matching reads (the weighted tsvector alone is larger than the card, and costs its output
 * function, the transfer and the parsing on every row read).
 */
const {
  searchTitle: _title,
  searchKeys: _keys,
  searchValues: _values,
  searchBody: _body,
  searchVector: _vector,
  legacyHotness: _hotness,
  legacyAccessCount: _count,
  legacyLastAccessedAt: _last,
  ...recordColumns
} = getTableColumns(memoryNodes);
export const memoryCardRecordColumns = recordColumns;
type UnreadColumns =
  | "searchTitle"
  | "searchKeys"
  | "searchValues"
  | "searchBody"
  | "searchVector"
  | "legacyHotness"
  | "legacyAccessCount"
  | "legacyLastAccessedAt";
export type MemoryCardRecord = Omit<MemoryCardRow, UnreadColumns> & {
  /** Recall hotness (memory_node_usage), present where a ranked search read it with the record. */
  hotness?: number;
};
export type MemoryAuditEvent = typeof memoryAuditEvents.$inferSelect;
