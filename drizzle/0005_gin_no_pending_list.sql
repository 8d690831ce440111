-- GIN indexes without a pending list (see GIN_NO_PENDING_LIST in src/db/schema/columns.ts).
-- ALTER instead of drop-and-create: no rebuild; rows already waiting in a pending list move into
-- the index now instead of being scanned by every search until the next vacuum.
ALTER INDEX "memory_messages_search_idx" SET (fastupdate = false);
--> statement-breakpoint
SELECT gin_clean_pending_list('"memory_messages_search_idx"'::regclass);
--> statement-breakpoint
ALTER INDEX "memory_messages_trgm_idx" SET (fastupdate = false);
--> statement-breakpoint
SELECT gin_clean_pending_list('"memory_messages_trgm_idx"'::regclass);
--> statement-breakpoint
ALTER INDEX "memory_nodes_value_idx" SET (fastupdate = false);
--> statement-breakpoint
SELECT gin_clean_pending_list('"memory_nodes_value_idx"'::regclass);
--> statement-breakpoint
ALTER INDEX "memory_nodes_tags_idx" SET (fastupdate = false);
--> statement-breakpoint
SELECT gin_clean_pending_list('"memory_nodes_tags_idx"'::regclass);
--> statement-breakpoint
ALTER INDEX "memory_nodes_entities_idx" SET (fastupdate = false);
--> statement-breakpoint
SELECT gin_clean_pending_list('"memory_nodes_entities_idx"'::regclass);
--> statement-breakpoint
ALTER INDEX "memory_nodes_sources_idx" SET (fastupdate = false);
--> statement-breakpoint
SELECT gin_clean_pending_list('"memory_nodes_sources_idx"'::regclass);
--> statement-breakpoint
ALTER INDEX "memory_nodes_search_idx" SET (fastupdate = false);
--> statement-breakpoint
SELECT gin_clean_pending_list('"memory_nodes_search_idx"'::regclass);
--> statement-breakpoint
ALTER INDEX "memory_nodes_trgm_idx" SET (fastupdate = false);
--> statement-breakpoint
SELECT gin_clean_pending_list('"memory_nodes_trgm_idx"'::regclass);
--> statement-breakpoint
ALTER INDEX "memory_nodes_title_trgm_idx" SET (fastupdate = false);
--> statement-breakpoint
SELECT gin_clean_pending_list('"memory_nodes_title_trgm_idx"'::regclass);
--> statement-breakpoint
ALTER INDEX "memory_chunks_search_idx" SET (fastupdate = false);
--> statement-breakpoint
SELECT gin_clean_pending_list('"memory_chunks_search_idx"'::regclass);
--> statement-breakpoint
ALTER INDEX "memory_chunks_trgm_idx" SET (fastupdate = false);
--> statement-breakpoint
SELECT gin_clean_pending_list('"memory_chunks_trgm_idx"'::regclass);
--> statement-breakpoint
ALTER INDEX "memory_tree_summaries_search_idx" SET (fastupdate = false);
--> statement-breakpoint
SELECT gin_clean_pending_list('"memory_tree_summaries_search_idx"'::regclass);
