import { integer, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, timestampTz, updatedAt } from "./columns";

/** People. Global (one person may belong to several tenants); membership lives in tenant_members. */
export const users = pgTable(
  "users",
  {
    id: text("id").primaryKey(),
    email: text("email").notNull(),
    name: text("name"),
    image: text("image"),
    /** scrypt hash in PHC-like form; null for accounts that only use OIDC/GitHub. */
    passwordHash: text("password_hash"),
    /**
     * The organisation whose admin chose this password (null: the person or the server's operator did).
     * Such a password opens that organisation only: the admin of one organisation must not be able to
     * make an account for someone's email and sign in as them wherever else they become a member.
     */
    passwordSetByTenantId: text("password_set_by_tenant_id"),
    emailVerified: timestampTz("email_verified"),
    disabledAt: timestampTz("disabled_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("users_email_uq").on(t.email)],
);

/** External identities (GitHub, OIDC) linked to a user. */
export const accounts = pgTable(
  "accounts",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    provider: text("provider").notNull(),
    providerAccountId: text("provider_account_id").notNull(),
    refreshToken: text("refresh_token"),
    accessToken: text("access_token"),
    expiresAt: integer("expires_at"),
    tokenType: text("token_type"),
    scope: text("scope"),
    idToken: text("id_token"),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.provider, t.providerAccountId] })],
);

/**
 * Database sessions, for deployments that switch next-auth to the database strategy.
 * The default strategy is JWT (credentials sign-in requires it in next-auth v4).
 */
export const sessions = pgTable("sessions", {
  sessionToken: text("session_token").primaryKey(),
  userId: text("user_id")
    .notNull()
    .references(() => users.id, { onDelete: "cascade" }),
  expires: timestampTz("expires").notNull(),
});

export const verificationTokens = pgTable(
  "verification_tokens",
  {
    identifier: text("identifier").notNull(),
    token: text("token").notNull(),
    expires: timestampTz("expires").notNull(),
  },
  (t) => [primaryKey({ columns: [t.identifier, t.token] })],
);

export type User = typeof users.$inferSelect;
