import { sql } from "drizzle-orm";
import { foreignKey, index, integer, jsonb, pgTable, primaryKey, real, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, GIN_NO_PENDING_LIST, tenantIdColumn, timestampTz, tsvector, updatedAt } from "./columns";
import { tenants } from "./tenants";

const tenantFk = () => tenantIdColumn().references(() => tenants.id, { onDelete: "cascade" });

export type ScoreReason = { rule: string; delta: number; detail?: string };

/** L0 of the memory tree (docs/memory-tree.md): canonicalized, chunked, fast-scored message text, kept in full. */
export const memoryChunks = pgTable(
  "memory_chunks",
  {
    tenantId: tenantFk(),
    /** Deterministic: hash of source + session + position + content, so re-ingest is a no-op. */
    id: text("id").notNull(),
    sessionId: text("session_id").notNull(),
    userScopeId: text("user_scope_id"),
    messageId: text("message_id"),
    source: text("source").notNull().default("chat"),
    role: text("role").notNull(),
    seq: integer("seq").notNull().default(0),
    content: text("content").notNull(),
    contentHash: text("content_hash").notNull(),
    tokenCount: integer("token_count").notNull().default(0),
    fastScore: real("fast_score").notNull().default(0),
    deepScore: real("deep_score"),
    scoreReasons: jsonb("score_reasons").$type<ScoreReason[]>().notNull().default([]),
    /** pending → admitted | rejected after scoring; sealed once folded into an L1 summary. */
    admission: text("admission", { enum: ["pending", "admitted", "rejected", "sealed"] })
      .notNull()
      .default("pending"),
    entities: text("entities")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    sealedIntoId: text("sealed_into_id"),
    hotness: real("hotness").notNull().default(0),
    searchText: text("search_text").notNull().default(""),
    searchVector: tsvector("search_vector").generatedAlwaysAs(sql`to_tsvector('simple', coalesce(search_text, ''))`),
    occurredAt: timestampTz("occurred_at").notNull().defaultNow(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    index("memory_chunks_session_idx").on(t.tenantId, t.sessionId, t.seq),
    index("memory_chunks_admission_idx").on(t.tenantId, t.admission, t.createdAt),
    index("memory_chunks_message_idx").on(t.tenantId, t.messageId),
    index("memory_chunks_search_idx").using("gin", t.searchVector).with(GIN_NO_PENDING_LIST),
    index("memory_chunks_trgm_idx").using("gin", t.searchText.op("gin_trgm_ops")).with(GIN_NO_PENDING_LIST),
  ],
);

/** Entities / topics that chunks are routed to, with hotness (+0.05 per mention, ×0.95 per day). */
export const memoryTopics = pgTable(
  "memory_topics",
  {
    tenantId: tenantFk(),
    id: text("id").notNull(),
    name: text("name").notNull(),
    normalizedName: text("normalized_name").notNull(),
    topicType: text("topic_type", { enum: ["entity", "topic", "person", "place", "project", "tool"] })
      .notNull()
      .default("topic"),
    hotness: real("hotness").notNull().default(0),
    mentionCount: integer("mention_count").notNull().default(0),
    status: text("status", { enum: ["active", "warm", "archived"] })
      .notNull()
      .default("active"),
    summary: text("summary"),
    lastMentionedAt: timestampTz("last_mentioned_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    uniqueIndex("memory_topics_name_uq").on(t.tenantId, t.normalizedName),
    index("memory_topics_hotness_idx").on(t.tenantId, t.status, t.hotness),
  ],
);

export const memoryChunkTopics = pgTable(
  "memory_chunk_topics",
  {
    tenantId: tenantFk(),
    chunkId: text("chunk_id").notNull(),
    topicId: text("topic_id").notNull(),
    weight: real("weight").notNull().default(1),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.chunkId, t.topicId] }),
    index("memory_chunk_topics_topic_idx").on(t.tenantId, t.topicId),
    foreignKey({ columns: [t.tenantId, t.chunkId], foreignColumns: [memoryChunks.tenantId, memoryChunks.id] }).onDelete(
      "cascade",
    ),
    foreignKey({ columns: [t.tenantId, t.topicId], foreignColumns: [memoryTopics.tenantId, memoryTopics.id] }).onDelete(
      "cascade",
    ),
  ],
);

/** L1 (sealed chunk groups per topic/session) and L2 (daily global digest) summaries. */
export const memoryTreeSummaries = pgTable(
  "memory_tree_summaries",
  {
    tenantId: tenantFk(),
    id: text("id").notNull(),
    level: integer("level").notNull(),
    topicId: text("topic_id"),
    sessionId: text("session_id"),
    chunkIds: text("chunk_ids")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    childSummaryIds: text("child_summary_ids")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    content: text("content").notNull(),
    tokenCount: integer("token_count").notNull().default(0),
    generator: text("generator").notNull().default("rules"),
    periodStart: timestampTz("period_start"),
    periodEnd: timestampTz("period_end"),
    searchText: text("search_text").notNull().default(""),
    searchVector: tsvector("search_vector").generatedAlwaysAs(sql`to_tsvector('simple', coalesce(search_text, ''))`),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    index("memory_tree_summaries_topic_idx").on(t.tenantId, t.topicId, t.level),
    index("memory_tree_summaries_session_idx").on(t.tenantId, t.sessionId, t.level),
    index("memory_tree_summaries_search_idx").using("gin", t.searchVector).with(GIN_NO_PENDING_LIST),
  ],
);
