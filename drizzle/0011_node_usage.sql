-- Free room on every page (fillfactor) so a recall's counter update stays on its page, without a new index entry (HOT).
CREATE TABLE "memory_node_usage" (
	"tenant_id" text NOT NULL,
	"node_id" text NOT NULL,
	"recall_count" integer DEFAULT 0 NOT NULL,
	"last_recalled_at" timestamp with time zone NOT NULL,
	"hotness" real DEFAULT 0 NOT NULL,
	CONSTRAINT "memory_node_usage_tenant_id_node_id_pk" PRIMARY KEY("tenant_id","node_id")
) WITH (fillfactor = 70);
--> statement-breakpoint
ALTER TABLE "memory_node_usage" ADD CONSTRAINT "memory_node_usage_tenant_id_node_id_memory_nodes_tenant_id_id_fk" FOREIGN KEY ("tenant_id","node_id") REFERENCES "public"."memory_nodes"("tenant_id","id") ON DELETE cascade ON UPDATE no action;