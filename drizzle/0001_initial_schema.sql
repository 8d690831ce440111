CREATE TABLE "accounts" (
	"user_id" text NOT NULL,
	"type" text NOT NULL,
	"provider" text NOT NULL,
	"provider_account_id" text NOT NULL,
	"refresh_token" text,
	"access_token" text,
	"expires_at" integer,
	"token_type" text,
	"scope" text,
	"id_token" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "accounts_provider_provider_account_id_pk" PRIMARY KEY("provider","provider_account_id")
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"session_token" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"expires" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" text PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"name" text,
	"image" text,
	"password_hash" text,
	"email_verified" timestamp with time zone,
	"disabled_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "verification_tokens" (
	"identifier" text NOT NULL,
	"token" text NOT NULL,
	"expires" timestamp with time zone NOT NULL,
	CONSTRAINT "verification_tokens_identifier_token_pk" PRIMARY KEY("identifier","token")
);
--> statement-breakpoint
CREATE TABLE "tenant_members" (
	"tenant_id" text NOT NULL,
	"user_id" text NOT NULL,
	"role" text DEFAULT 'member' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tenant_members_tenant_id_user_id_pk" PRIMARY KEY("tenant_id","user_id"),
	CONSTRAINT "tenant_members_role_ck" CHECK ("tenant_members"."role" in ('admin', 'member'))
);
--> statement-breakpoint
CREATE TABLE "tenants" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"write_policy" text DEFAULT 'any' NOT NULL,
	"sensitive_policy" text DEFAULT 'reject' NOT NULL,
	"settings" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workspaces" (
	"tenant_id" text NOT NULL,
	"id" text NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "workspaces_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"tenant_id" text NOT NULL,
	"id" text NOT NULL,
	"key_hash" text NOT NULL,
	"prefix" text NOT NULL,
	"name" text NOT NULL,
	"owner_user_id" text NOT NULL,
	"created_by_user_id" text,
	"scopes" text[] DEFAULT '{}'::text[] NOT NULL,
	"permissions" text[] DEFAULT '{}'::text[] NOT NULL,
	"rate_limit_per_minute" integer,
	"expires_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"last_used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "api_keys_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"tenant_id" text NOT NULL,
	"principal_id" text NOT NULL,
	"key" text NOT NULL,
	"request_hash" text NOT NULL,
	"response" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "idempotency_keys_tenant_id_principal_id_key_pk" PRIMARY KEY("tenant_id","principal_id","key")
);
--> statement-breakpoint
CREATE TABLE "rate_limit_buckets" (
	"bucket" text PRIMARY KEY NOT NULL,
	"window_start" bigint NOT NULL,
	"count" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "scope_grants" (
	"tenant_id" text NOT NULL,
	"id" text NOT NULL,
	"principal_type" text NOT NULL,
	"principal_id" text NOT NULL,
	"scope" text NOT NULL,
	"can_read" boolean DEFAULT true NOT NULL,
	"can_write" boolean DEFAULT false NOT NULL,
	"granted_by_user_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "scope_grants_tenant_id_id_pk" PRIMARY KEY("tenant_id","id"),
	CONSTRAINT "scope_grants_principal_type_ck" CHECK ("scope_grants"."principal_type" in ('user', 'api_key'))
);
--> statement-breakpoint
CREATE TABLE "memory_audit_events" (
	"tenant_id" text NOT NULL,
	"id" bigserial NOT NULL,
	"node_id" text,
	"lineage_id" text,
	"event_type" text NOT NULL,
	"actor_type" text NOT NULL,
	"actor_id" text,
	"reason" text,
	"tool_call_id" text,
	"scope_type" text,
	"scope_id" text,
	"before" jsonb,
	"after" jsonb,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "memory_audit_events_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "memory_embeddings" (
	"tenant_id" text NOT NULL,
	"id" text NOT NULL,
	"node_id" text,
	"chunk_id" text,
	"message_id" text,
	"model" text NOT NULL,
	"dimensions" integer NOT NULL,
	"embedding" vector NOT NULL,
	"content_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "memory_embeddings_tenant_id_id_pk" PRIMARY KEY("tenant_id","id"),
	CONSTRAINT "memory_embeddings_one_owner_ck" CHECK (num_nonnulls("memory_embeddings"."node_id", "memory_embeddings"."chunk_id", "memory_embeddings"."message_id") = 1)
);
--> statement-breakpoint
CREATE TABLE "memory_kinds" (
	"tenant_id" text NOT NULL,
	"kind" text NOT NULL,
	"definition" jsonb NOT NULL,
	"created_by_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "memory_kinds_tenant_id_kind_pk" PRIMARY KEY("tenant_id","kind")
);
--> statement-breakpoint
CREATE TABLE "memory_messages" (
	"tenant_id" text NOT NULL,
	"id" text NOT NULL,
	"seq" bigserial NOT NULL,
	"session_id" text NOT NULL,
	"user_scope_id" text,
	"workspace_id" text,
	"parent_id" text,
	"role" text NOT NULL,
	"content" text NOT NULL,
	"content_hash" text NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"captured_by_type" text NOT NULL,
	"captured_by_id" text,
	"search_text" text DEFAULT '' NOT NULL,
	"search_vector" "tsvector" GENERATED ALWAYS AS (to_tsvector('simple', coalesce(search_text, ''))) STORED,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "memory_messages_tenant_id_id_pk" PRIMARY KEY("tenant_id","id"),
	CONSTRAINT "memory_messages_role_ck" CHECK ("memory_messages"."role" in ('system', 'user', 'assistant', 'tool'))
);
--> statement-breakpoint
CREATE TABLE "memory_nodes" (
	"tenant_id" text NOT NULL,
	"id" text NOT NULL,
	"scope_type" text NOT NULL,
	"scope_id" text NOT NULL,
	"kind" text NOT NULL,
	"key" text NOT NULL,
	"item_key" text,
	"domain" text NOT NULL,
	"category_path" text[] DEFAULT '{}'::text[] NOT NULL,
	"category_path_text" text DEFAULT '' NOT NULL,
	"type" text NOT NULL,
	"value_json" jsonb,
	"title" text NOT NULL,
	"content" text NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"revision" integer DEFAULT 1 NOT NULL,
	"lineage_id" text NOT NULL,
	"supersedes_id" text,
	"superseded_by_id" text,
	"confidence" real NOT NULL,
	"importance" real NOT NULL,
	"tags" text[] DEFAULT '{}'::text[] NOT NULL,
	"entities" text[] DEFAULT '{}'::text[] NOT NULL,
	"source_message_ids" text[] DEFAULT '{}'::text[] NOT NULL,
	"explicit_user_intent" boolean DEFAULT false NOT NULL,
	"redacted" boolean DEFAULT false NOT NULL,
	"created_by_type" text NOT NULL,
	"created_by_id" text,
	"updated_by_type" text NOT NULL,
	"updated_by_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone,
	"ended_at" timestamp with time zone,
	"search_title" text DEFAULT '' NOT NULL,
	"search_keys" text DEFAULT '' NOT NULL,
	"search_values" text DEFAULT '' NOT NULL,
	"search_body" text DEFAULT '' NOT NULL,
	"search_vector" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('simple', coalesce(search_title, '')), 'A') || setweight(to_tsvector('simple', coalesce(search_keys, '')), 'B') || setweight(to_tsvector('simple', coalesce(search_values, '')), 'C') || setweight(to_tsvector('simple', coalesce(search_body, '')), 'D')) STORED,
	"hotness" real DEFAULT 0 NOT NULL,
	"access_count" integer DEFAULT 0 NOT NULL,
	"last_accessed_at" timestamp with time zone,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	CONSTRAINT "memory_nodes_tenant_id_id_pk" PRIMARY KEY("tenant_id","id"),
	CONSTRAINT "memory_nodes_confidence_ck" CHECK ("memory_nodes"."confidence" between 0 and 1),
	CONSTRAINT "memory_nodes_importance_ck" CHECK ("memory_nodes"."importance" between 0 and 1),
	CONSTRAINT "memory_nodes_revision_ck" CHECK ("memory_nodes"."revision" >= 1)
);
--> statement-breakpoint
CREATE TABLE "memory_query_log" (
	"tenant_id" text NOT NULL,
	"id" bigserial NOT NULL,
	"operation" text NOT NULL,
	"actor_type" text NOT NULL,
	"actor_id" text,
	"latency_ms" real NOT NULL,
	"result_count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "memory_query_log_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "memory_summaries" (
	"tenant_id" text NOT NULL,
	"id" text NOT NULL,
	"session_id" text NOT NULL,
	"parent_summary_id" text,
	"from_message_id" text NOT NULL,
	"to_message_id" text NOT NULL,
	"message_count" integer DEFAULT 0 NOT NULL,
	"summary" text NOT NULL,
	"current_goal" text,
	"constraints" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"preferences" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"decisions" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"completed_work" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"pending_work" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"known_issues" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"generator" text DEFAULT 'rules' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "memory_summaries_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "memory_chunk_topics" (
	"tenant_id" text NOT NULL,
	"chunk_id" text NOT NULL,
	"topic_id" text NOT NULL,
	"weight" real DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "memory_chunk_topics_tenant_id_chunk_id_topic_id_pk" PRIMARY KEY("tenant_id","chunk_id","topic_id")
);
--> statement-breakpoint
CREATE TABLE "memory_chunks" (
	"tenant_id" text NOT NULL,
	"id" text NOT NULL,
	"session_id" text NOT NULL,
	"user_scope_id" text,
	"message_id" text,
	"source" text DEFAULT 'chat' NOT NULL,
	"role" text NOT NULL,
	"seq" integer DEFAULT 0 NOT NULL,
	"content" text NOT NULL,
	"content_hash" text NOT NULL,
	"token_count" integer DEFAULT 0 NOT NULL,
	"fast_score" real DEFAULT 0 NOT NULL,
	"deep_score" real,
	"score_reasons" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"admission" text DEFAULT 'pending' NOT NULL,
	"entities" text[] DEFAULT '{}'::text[] NOT NULL,
	"sealed_into_id" text,
	"hotness" real DEFAULT 0 NOT NULL,
	"search_text" text DEFAULT '' NOT NULL,
	"search_vector" "tsvector" GENERATED ALWAYS AS (to_tsvector('simple', coalesce(search_text, ''))) STORED,
	"occurred_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "memory_chunks_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "memory_topics" (
	"tenant_id" text NOT NULL,
	"id" text NOT NULL,
	"name" text NOT NULL,
	"normalized_name" text NOT NULL,
	"topic_type" text DEFAULT 'topic' NOT NULL,
	"hotness" real DEFAULT 0 NOT NULL,
	"mention_count" integer DEFAULT 0 NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"summary" text,
	"last_mentioned_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "memory_topics_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "memory_tree_summaries" (
	"tenant_id" text NOT NULL,
	"id" text NOT NULL,
	"level" integer NOT NULL,
	"topic_id" text,
	"session_id" text,
	"chunk_ids" text[] DEFAULT '{}'::text[] NOT NULL,
	"child_summary_ids" text[] DEFAULT '{}'::text[] NOT NULL,
	"content" text NOT NULL,
	"token_count" integer DEFAULT 0 NOT NULL,
	"generator" text DEFAULT 'rules' NOT NULL,
	"period_start" timestamp with time zone,
	"period_end" timestamp with time zone,
	"search_text" text DEFAULT '' NOT NULL,
	"search_vector" "tsvector" GENERATED ALWAYS AS (to_tsvector('simple', coalesce(search_text, ''))) STORED,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "memory_tree_summaries_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "memory_jobs" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"type" text NOT NULL,
	"payload" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"dedupe_key" text,
	"status" text DEFAULT 'queued' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"max_attempts" integer DEFAULT 5 NOT NULL,
	"run_at" timestamp with time zone DEFAULT now() NOT NULL,
	"leased_until" timestamp with time zone,
	"leased_by" text,
	"last_error" text,
	"result" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tenant_members" ADD CONSTRAINT "tenant_members_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tenant_members" ADD CONSTRAINT "tenant_members_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspaces" ADD CONSTRAINT "workspaces_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_owner_user_id_users_id_fk" FOREIGN KEY ("owner_user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_created_by_user_id_users_id_fk" FOREIGN KEY ("created_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scope_grants" ADD CONSTRAINT "scope_grants_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scope_grants" ADD CONSTRAINT "scope_grants_granted_by_user_id_users_id_fk" FOREIGN KEY ("granted_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memory_audit_events" ADD CONSTRAINT "memory_audit_events_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memory_embeddings" ADD CONSTRAINT "memory_embeddings_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memory_embeddings" ADD CONSTRAINT "memory_embeddings_tenant_id_node_id_memory_nodes_tenant_id_id_fk" FOREIGN KEY ("tenant_id","node_id") REFERENCES "public"."memory_nodes"("tenant_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memory_embeddings" ADD CONSTRAINT "memory_embeddings_tenant_id_chunk_id_memory_chunks_tenant_id_id_fk" FOREIGN KEY ("tenant_id","chunk_id") REFERENCES "public"."memory_chunks"("tenant_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memory_embeddings" ADD CONSTRAINT "memory_embeddings_tenant_id_message_id_memory_messages_tenant_id_id_fk" FOREIGN KEY ("tenant_id","message_id") REFERENCES "public"."memory_messages"("tenant_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memory_kinds" ADD CONSTRAINT "memory_kinds_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memory_messages" ADD CONSTRAINT "memory_messages_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memory_nodes" ADD CONSTRAINT "memory_nodes_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memory_query_log" ADD CONSTRAINT "memory_query_log_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memory_summaries" ADD CONSTRAINT "memory_summaries_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memory_chunk_topics" ADD CONSTRAINT "memory_chunk_topics_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memory_chunk_topics" ADD CONSTRAINT "memory_chunk_topics_tenant_id_chunk_id_memory_chunks_tenant_id_id_fk" FOREIGN KEY ("tenant_id","chunk_id") REFERENCES "public"."memory_chunks"("tenant_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memory_chunk_topics" ADD CONSTRAINT "memory_chunk_topics_tenant_id_topic_id_memory_topics_tenant_id_id_fk" FOREIGN KEY ("tenant_id","topic_id") REFERENCES "public"."memory_topics"("tenant_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memory_chunks" ADD CONSTRAINT "memory_chunks_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memory_topics" ADD CONSTRAINT "memory_topics_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memory_tree_summaries" ADD CONSTRAINT "memory_tree_summaries_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memory_jobs" ADD CONSTRAINT "memory_jobs_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_uq" ON "users" USING btree ("email");--> statement-breakpoint
CREATE INDEX "tenant_members_user_idx" ON "tenant_members" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "tenants_slug_uq" ON "tenants" USING btree ("slug");--> statement-breakpoint
CREATE UNIQUE INDEX "workspaces_slug_uq" ON "workspaces" USING btree ("tenant_id","slug");--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_key_hash_uq" ON "api_keys" USING btree ("key_hash");--> statement-breakpoint
CREATE INDEX "api_keys_owner_idx" ON "api_keys" USING btree ("tenant_id","owner_user_id");--> statement-breakpoint
CREATE INDEX "idempotency_keys_created_idx" ON "idempotency_keys" USING btree ("created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "scope_grants_principal_scope_uq" ON "scope_grants" USING btree ("tenant_id","principal_type","principal_id","scope");--> statement-breakpoint
CREATE INDEX "memory_audit_node_idx" ON "memory_audit_events" USING btree ("tenant_id","node_id","created_at");--> statement-breakpoint
CREATE INDEX "memory_audit_lineage_idx" ON "memory_audit_events" USING btree ("tenant_id","lineage_id","created_at");--> statement-breakpoint
CREATE INDEX "memory_audit_created_idx" ON "memory_audit_events" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "memory_audit_actor_idx" ON "memory_audit_events" USING btree ("tenant_id","actor_type","actor_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "memory_embeddings_node_model_uq" ON "memory_embeddings" USING btree ("tenant_id","node_id","model") WHERE "memory_embeddings"."node_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "memory_embeddings_chunk_model_uq" ON "memory_embeddings" USING btree ("tenant_id","chunk_id","model") WHERE "memory_embeddings"."chunk_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "memory_embeddings_message_model_uq" ON "memory_embeddings" USING btree ("tenant_id","message_id","model") WHERE "memory_embeddings"."message_id" is not null;--> statement-breakpoint
CREATE INDEX "memory_messages_session_idx" ON "memory_messages" USING btree ("tenant_id","session_id","seq");--> statement-breakpoint
CREATE INDEX "memory_messages_user_idx" ON "memory_messages" USING btree ("tenant_id","user_scope_id","seq");--> statement-breakpoint
CREATE INDEX "memory_messages_search_idx" ON "memory_messages" USING gin ("search_vector");--> statement-breakpoint
CREATE INDEX "memory_messages_trgm_idx" ON "memory_messages" USING gin ("search_text" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "memory_nodes_scope_status_key_idx" ON "memory_nodes" USING btree ("tenant_id","scope_type","scope_id","status","key");--> statement-breakpoint
CREATE INDEX "memory_nodes_kind_idx" ON "memory_nodes" USING btree ("tenant_id","status","kind");--> statement-breakpoint
CREATE INDEX "memory_nodes_category_idx" ON "memory_nodes" USING btree ("tenant_id","category_path_text" text_pattern_ops);--> statement-breakpoint
CREATE INDEX "memory_nodes_lineage_idx" ON "memory_nodes" USING btree ("tenant_id","lineage_id","revision");--> statement-breakpoint
CREATE INDEX "memory_nodes_updated_idx" ON "memory_nodes" USING btree ("tenant_id","updated_at");--> statement-breakpoint
CREATE INDEX "memory_nodes_expires_idx" ON "memory_nodes" USING btree ("tenant_id","expires_at") WHERE "memory_nodes"."status" = 'active' and "memory_nodes"."expires_at" is not null;--> statement-breakpoint
CREATE INDEX "memory_nodes_value_idx" ON "memory_nodes" USING gin ("value_json" jsonb_path_ops);--> statement-breakpoint
CREATE INDEX "memory_nodes_tags_idx" ON "memory_nodes" USING gin ("tags");--> statement-breakpoint
CREATE INDEX "memory_nodes_entities_idx" ON "memory_nodes" USING gin ("entities");--> statement-breakpoint
CREATE INDEX "memory_nodes_sources_idx" ON "memory_nodes" USING gin ("source_message_ids");--> statement-breakpoint
CREATE INDEX "memory_nodes_search_idx" ON "memory_nodes" USING gin ("search_vector");--> statement-breakpoint
CREATE INDEX "memory_nodes_trgm_idx" ON "memory_nodes" USING gin ("search_body" gin_trgm_ops);--> statement-breakpoint
CREATE UNIQUE INDEX "memory_nodes_active_slot_uq" ON "memory_nodes" USING btree ("tenant_id","scope_type","scope_id","key") WHERE "memory_nodes"."status" = 'active';--> statement-breakpoint
CREATE UNIQUE INDEX "memory_nodes_lineage_revision_uq" ON "memory_nodes" USING btree ("tenant_id","lineage_id","revision");--> statement-breakpoint
CREATE INDEX "memory_query_log_created_idx" ON "memory_query_log" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "memory_summaries_session_idx" ON "memory_summaries" USING btree ("tenant_id","session_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "memory_summaries_parent_uq" ON "memory_summaries" USING btree ("tenant_id","parent_summary_id");--> statement-breakpoint
CREATE INDEX "memory_chunk_topics_topic_idx" ON "memory_chunk_topics" USING btree ("tenant_id","topic_id");--> statement-breakpoint
CREATE INDEX "memory_chunks_session_idx" ON "memory_chunks" USING btree ("tenant_id","session_id","seq");--> statement-breakpoint
CREATE INDEX "memory_chunks_admission_idx" ON "memory_chunks" USING btree ("tenant_id","admission","created_at");--> statement-breakpoint
CREATE INDEX "memory_chunks_message_idx" ON "memory_chunks" USING btree ("tenant_id","message_id");--> statement-breakpoint
CREATE INDEX "memory_chunks_search_idx" ON "memory_chunks" USING gin ("search_vector");--> statement-breakpoint
CREATE INDEX "memory_chunks_trgm_idx" ON "memory_chunks" USING gin ("search_text" gin_trgm_ops);--> statement-breakpoint
CREATE UNIQUE INDEX "memory_topics_name_uq" ON "memory_topics" USING btree ("tenant_id","normalized_name");--> statement-breakpoint
CREATE INDEX "memory_topics_hotness_idx" ON "memory_topics" USING btree ("tenant_id","status","hotness");--> statement-breakpoint
CREATE INDEX "memory_tree_summaries_topic_idx" ON "memory_tree_summaries" USING btree ("tenant_id","topic_id","level");--> statement-breakpoint
CREATE INDEX "memory_tree_summaries_session_idx" ON "memory_tree_summaries" USING btree ("tenant_id","session_id","level");--> statement-breakpoint
CREATE INDEX "memory_tree_summaries_search_idx" ON "memory_tree_summaries" USING gin ("search_vector");--> statement-breakpoint
CREATE INDEX "memory_jobs_ready_idx" ON "memory_jobs" USING btree ("status","run_at");--> statement-breakpoint
CREATE INDEX "memory_jobs_tenant_idx" ON "memory_jobs" USING btree ("tenant_id","status","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "memory_jobs_dedupe_uq" ON "memory_jobs" USING btree ("tenant_id","dedupe_key") WHERE "memory_jobs"."dedupe_key" is not null and "memory_jobs"."status" in ('queued', 'running');