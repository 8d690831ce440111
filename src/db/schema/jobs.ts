import { sql } from "drizzle-orm";
import { bigserial, index, integer, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, timestampTz, updatedAt } from "./columns";
import { tenants } from "./tenants";

export const JOB_TYPES = [
  "embed",
  "deep_score",
  "extract",
  "entities",
  "topics",
  "seal",
  "digest",
  "hotness_decay",
  "summarize",
] as const;
export type JobType = (typeof JOB_TYPES)[number];

/**
 * Postgres job queue: workers lease rows with FOR UPDATE SKIP LOCKED; an expired lease is taken over;
 * failures retry with backoff and move to `dead` after max_attempts.
 */
export const memoryJobs = pgTable(
  "memory_jobs",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    type: text("type", { enum: JOB_TYPES }).notNull(),
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull().default({}),
    /** While a job with this key is queued, enqueueing the same key is a no-op (a running one may get one follow-up). */
    dedupeKey: text("dedupe_key"),
    status: text("status", { enum: ["queued", "running", "succeeded", "failed", "dead"] })
      .notNull()
      .default("queued"),
    attempts: integer("attempts").notNull().default(0),
    maxAttempts: integer("max_attempts").notNull().default(5),
    runAt: timestampTz("run_at").notNull().defaultNow(),
    leasedUntil: timestampTz("leased_until"),
    leasedBy: text("leased_by"),
    lastError: text("last_error"),
    result: jsonb("result"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    finishedAt: timestampTz("finished_at"),
  },
  (t) => [
    index("memory_jobs_ready_idx").on(t.status, t.runAt),
    index("memory_jobs_tenant_idx").on(t.tenantId, t.status, t.createdAt),
    uniqueIndex("memory_jobs_dedupe_uq")
      .on(t.tenantId, t.dedupeKey)
      .where(sql`${t.dedupeKey} is not null and ${t.status} = 'queued'`),
  ],
);

export type MemoryJob = typeof memoryJobs.$inferSelect;
