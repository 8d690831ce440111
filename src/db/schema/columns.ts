import { customType, text, timestamp } from "drizzle-orm/pg-core";

/** Postgres full-text vector; always a generated column fed by pre-segmented text. */
export const tsvector = customType<{ data: string }>({
  dataType: () => "tsvector",
});

/**
 * pgvector column without a fixed dimension, so one table holds every embedding model;
 * each model gets its own HNSW expression index with a cast to its dimension.
 */
export const vector = customType<{ data: number[]; driverData: string }>({
  dataType: () => "vector",
  toDriver: (value) => `[${value.join(",")}]`,
  fromDriver: (value) => (typeof value === "string" ? (JSON.parse(value) as number[]) : (value as number[])),
});

export const tenantIdColumn = () => text("tenant_id").notNull();

export const createdAt = () => timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow();
export const updatedAt = () => timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow();
export const timestampTz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });
