import { sql } from "drizzle-orm";
import { check, index, jsonb, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { users } from "./auth";
import { createdAt, tenantIdColumn, updatedAt } from "./columns";

/** An organisation: the isolation boundary. Every tenant-owned row leads with tenant_id. */
export const tenants = pgTable(
  "tenants",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    slug: text("slug").notNull(),
    /**
     * `any`: agents may write inferred facts; `explicit-only`: writes need explicitUserIntent
     * (docs/memory-model.md).
     */
    writePolicy: text("write_policy", { enum: ["any", "explicit-only"] })
      .notNull()
      .default("any"),
    /** What to do with secrets / personal identifiers found in a write (docs/memory-model.md). */
    sensitivePolicy: text("sensitive_policy", { enum: ["reject", "redact"] })
      .notNull()
      .default("reject"),
    settings: jsonb("settings").$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("tenants_slug_uq").on(t.slug)],
);

export const tenantMembers = pgTable(
  "tenant_members",
  {
    tenantId: tenantIdColumn().references(() => tenants.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    role: text("role", { enum: ["admin", "member"] })
      .notNull()
      .default("member"),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.userId] }),
    index("tenant_members_user_idx").on(t.userId),
    check("tenant_members_role_ck", sql`${t.role} in ('admin', 'member')`),
  ],
);

/**
 * An organisation's invitation to a person who already has an account: an admin of the organisation
 * invites by email, the person accepts (or declines) when signed in, and only then becomes a member.
 * Without it an admin could make someone else's account a member of their organisation unasked.
 */
export const tenantInvitations = pgTable(
  "tenant_invitations",
  {
    tenantId: tenantIdColumn().references(() => tenants.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    role: text("role", { enum: ["admin", "member"] })
      .notNull()
      .default("member"),
    invitedByUserId: text("invited_by_user_id"),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.userId] }),
    index("tenant_invitations_user_idx").on(t.userId),
    check("tenant_invitations_role_ck", sql`${t.role} in ('admin', 'member')`),
  ],
);

/** Projects inside a tenant; `workspace:<id>` scopes point here. */
export const workspaces = pgTable(
  "workspaces",
  {
    tenantId: tenantIdColumn().references(() => tenants.id, { onDelete: "cascade" }),
    id: text("id").notNull(),
    name: text("name").notNull(),
    slug: text("slug").notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.id] }), uniqueIndex("workspaces_slug_uq").on(t.tenantId, t.slug)],
);

export type Tenant = typeof tenants.$inferSelect;
export type TenantMember = typeof tenantMembers.$inferSelect;
export type TenantInvitation = typeof tenantInvitations.$inferSelect;
export type TenantRole = TenantMember["role"];
