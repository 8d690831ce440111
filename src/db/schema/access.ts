import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { users } from "./auth";
import { createdAt, tenantIdColumn, timestampTz } from "./columns";
import { tenants } from "./tenants";

import type { ApiKeyPermission } from "./permissions";

export {
  API_KEY_PERMISSIONS,
  DEFAULT_API_KEY_PERMISSIONS,
  defaultApiKeyScopes,
  type ApiKeyPermission,
} from "./permissions";

/** Agent credentials. Only the sha-256 of the secret is stored; the secret is shown once. */
export const apiKeys = pgTable(
  "api_keys",
  {
    tenantId: tenantIdColumn().references(() => tenants.id, { onDelete: "cascade" }),
    id: text("id").notNull(),
    keyHash: text("key_hash").notNull(),
    /** First characters of the secret, for recognising a key in lists and logs. */
    prefix: text("prefix").notNull(),
    name: text("name").notNull(),
    ownerUserId: text("owner_user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdByUserId: text("created_by_user_id").references(() => users.id, { onDelete: "set null" }),
    /** Scopes this key may use (`user:<id>`, `workspace:<id>`, `session:*`, `context:<ns>/<id>`, `global`); always intersected with the owner's grants. */
    scopes: text("scopes")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    permissions: text("permissions")
      .array()
      .$type<ApiKeyPermission[]>()
      .notNull()
      .default(sql`'{}'::text[]`),
    /** Calls per minute for this key; null uses the tenant/server default. */
    rateLimitPerMinute: integer("rate_limit_per_minute"),
    expiresAt: timestampTz("expires_at"),
    revokedAt: timestampTz("revoked_at"),
    lastUsedAt: timestampTz("last_used_at"),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    uniqueIndex("api_keys_key_hash_uq").on(t.keyHash),
    index("api_keys_owner_idx").on(t.tenantId, t.ownerUserId),
  ],
);

/** Admin-managed: which principal may read / write which scope. */
export const scopeGrants = pgTable(
  "scope_grants",
  {
    tenantId: tenantIdColumn().references(() => tenants.id, { onDelete: "cascade" }),
    id: text("id").notNull(),
    principalType: text("principal_type", { enum: ["user", "api_key"] }).notNull(),
    principalId: text("principal_id").notNull(),
    /** `user:<id>` | `workspace:<id>` | `session:*` | `session:<id>` | `context:<ns>/<id>` | `global` */
    scope: text("scope").notNull(),
    canRead: boolean("can_read").notNull().default(true),
    canWrite: boolean("can_write").notNull().default(false),
    grantedByUserId: text("granted_by_user_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    uniqueIndex("scope_grants_principal_scope_uq").on(t.tenantId, t.principalType, t.principalId, t.scope),
    check("scope_grants_principal_type_ck", sql`${t.principalType} in ('user', 'api_key')`),
  ],
);

/** Idempotency: a retried tool call with the same key returns the stored first result. */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    tenantId: tenantIdColumn().references(() => tenants.id, { onDelete: "cascade" }),
    principalId: text("principal_id").notNull(),
    key: text("key").notNull(),
    /** Hash of the request body, so a reused key with a different body is refused instead of replayed. */
    requestHash: text("request_hash").notNull(),
    response: jsonb("response").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.principalId, t.key] }),
    index("idempotency_keys_created_idx").on(t.createdAt),
  ],
);

/** Fixed-window counters shared by every app instance (Postgres backend of the rate limiter). */
export const rateLimitBuckets = pgTable("rate_limit_buckets", {
  bucket: text("bucket").primaryKey(),
  windowStart: bigint("window_start", { mode: "number" }).notNull(),
  count: integer("count").notNull(),
});

export type ApiKey = typeof apiKeys.$inferSelect;
export type ScopeGrant = typeof scopeGrants.$inferSelect;
