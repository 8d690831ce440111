import { and, asc, count, eq, sql } from "drizzle-orm";
import type { Database, DbOrTx } from "~/db/types";
import { memoryAuditEvents, scopeGrants, tenantMembers, tenants, users, type TenantRole, type User } from "~/db/schema";
import { defaultMemberGrants } from "./permissions";
import { DEFAULT_ORGANISATION_NAME } from "./default-organisation";
import { newId } from "~/server/ids";
import { hashPassword, MIN_PASSWORD_LENGTH, verifyPassword } from "./password";
import { closeAllSessionRecords } from "./session-records";

export class AccountError extends Error {
  constructor(
    readonly reason:
      "signup_closed" | "email_taken" | "weak_password" | "invalid_email" | "unknown_tenant" | "last_admin",
    message: string,
  ) {
    super(message);
    this.name = "AccountError";
  }
}

/** Serialises account creation so "is this the first user?" has exactly one answer. */
const sqlLock = sql`select pg_advisory_xact_lock(727011002)`;

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

function assertValidCredentials(email: string, password: string | undefined) {
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email))
    throw new AccountError("invalid_email", `"${email}" is not an email address.`);
  if (password !== undefined && password.length < MIN_PASSWORD_LENGTH) {
    throw new AccountError("weak_password", `The password must have at least ${MIN_PASSWORD_LENGTH} characters.`);
  }
}

export async function countUsers(db: DbOrTx): Promise<number> {
  const [row] = await db.select({ n: count() }).from(users);
  return row?.n ?? 0;
}

export async function findUserByEmail(db: DbOrTx, email: string): Promise<User | undefined> {
  const [user] = await db
    .select()
    .from(users)
    .where(eq(users.email, normalizeEmail(email)))
    .limit(1);
  return user;
}

/**
 * A person's organisations. `onlyTenantId`: the session was opened with a password an admin of that
 * organisation chose (users.password_set_by_tenant_id), which opens that organisation only.
 */
export async function listMemberships(db: DbOrTx, userId: string, onlyTenantId?: string | null) {
  return db
    .select({
      tenantId: tenantMembers.tenantId,
      role: tenantMembers.role,
      tenantName: tenants.name,
      tenantSlug: tenants.slug,
    })
    .from(tenantMembers)
    .innerJoin(tenants, eq(tenants.id, tenantMembers.tenantId))
    .where(and(eq(tenantMembers.userId, userId), onlyTenantId ? eq(tenantMembers.tenantId, onlyTenantId) : undefined))
    .orderBy(asc(tenantMembers.createdAt));
}

/** A person's membership of one organisation (its role), if they are a member. */
export async function findMembership(
  db: DbOrTx,
  params: { tenantId: string; userId: string },
): Promise<{ tenantId: string; role: TenantRole } | undefined> {
  const [membership] = await db
    .select({ tenantId: tenantMembers.tenantId, role: tenantMembers.role })
    .from(tenantMembers)
    .where(and(eq(tenantMembers.tenantId, params.tenantId), eq(tenantMembers.userId, params.userId)));
  return membership;
}

async function createTenant(db: DbOrTx, name: string) {
  const id = newId("ten");
  const slug = `${
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "") || "org"
  }-${id.slice(-6)}`;
  const [tenant] = await db.insert(tenants).values({ id, name, slug }).returning();
  return tenant!;
}

export async function addMembership(
  db: DbOrTx,
  params: { tenantId: string; userId: string; role: TenantRole; actorUserId: string | null; reason: string },
) {
  await db.insert(tenantMembers).values({ tenantId: params.tenantId, userId: params.userId, role: params.role });
  // Defaults as rows, so an admin can narrow them later.
  await db
    .insert(scopeGrants)
    .values(
      defaultMemberGrants(params.userId).map((g) => ({
        tenantId: params.tenantId,
        id: newId("grt"),
        principalType: "user" as const,
        principalId: params.userId,
        grantedByUserId: params.actorUserId,
        ...g,
      })),
    )
    .onConflictDoNothing();
  await db.insert(memoryAuditEvents).values({
    tenantId: params.tenantId,
    eventType: "member",
    actorType: params.actorUserId ? "user" : "system",
    actorId: params.actorUserId,
    reason: params.reason,
    after: { userId: params.userId, role: params.role },
  });
}

export type CreatedAccount = {
  user: User;
  tenantId: string;
  role: TenantRole;
  firstAdmin: boolean;
  /** The account did not exist before. */ newUser?: boolean;
};

/**
 * Self-service sign-up. The first account of an empty install creates the organisation and becomes its
 * admin; later sign-ups need MEMORY_OPEN_SIGNUP (each then gets an own organisation) — otherwise an admin
 * adds people. One transaction, so two racing first sign-ups cannot both become admin of separate installs.
 */
export async function registerAccount(
  db: Database,
  input: { email: string; password: string; name?: string; openSignup: boolean },
): Promise<CreatedAccount> {
  const email = normalizeEmail(input.email);
  assertValidCredentials(email, input.password);
  const passwordHash = await hashPassword(input.password);
  return createAccount(db, {
    email,
    name: input.name ?? null,
    image: null,
    passwordHash,
    openSignup: input.openSignup,
  });
}

/** Sign-up through GitHub / OIDC: same rules, no password. */
export function registerAccountForExternalUser(
  db: Database,
  input: { email: string; name: string | null; image: string | null; openSignup: boolean },
) {
  return createAccount(db, { ...input, email: normalizeEmail(input.email), passwordHash: null });
}

async function createAccount(
  db: Database,
  input: { email: string; name: string | null; image: string | null; passwordHash: string | null; openSignup: boolean },
): Promise<CreatedAccount> {
  return db.transaction(async (tx) => {
    await tx.execute(sqlLock);
    const firstAdmin = (await countUsers(tx)) === 0;
    // Closed sign-up is refused before the email is looked up, so a known and an unknown address get
    // the same answer: sign-up must not tell strangers who has an account here.
    if (!firstAdmin && !input.openSignup) {
      throw new AccountError(
        "signup_closed",
        "Sign-up is closed on this server. Ask an admin to add you, then sign in.",
      );
    }
    if (await findUserByEmail(tx, input.email))
      throw new AccountError("email_taken", `An account for ${input.email} already exists. Sign in instead.`);
    const [user] = await tx
      .insert(users)
      .values({
        id: newId("usr"),
        email: input.email,
        name: input.name,
        image: input.image,
        passwordHash: input.passwordHash,
      })
      .returning();
    const ownerName = input.name ?? input.email.split("@")[0];
    const tenant = await createTenant(tx, firstAdmin ? DEFAULT_ORGANISATION_NAME : `${ownerName}'s organisation`);
    await addMembership(tx, {
      tenantId: tenant.id,
      userId: user!.id,
      role: "admin",
      actorUserId: null,
      reason: firstAdmin ? "first account of this install" : "open sign-up",
    });
    return { user: user!, tenantId: tenant.id, role: "admin" as const, firstAdmin };
  });
}

/**
 * Adds a person to an organisation (admin action or CLI). Creates the user if the email is new;
 * with no organisation yet (fresh install from the CLI), creates the default one. `password` is the
 * initial password of a new account. An existing account's password is never changed here unless
 * `resetExistingPassword` (the server operator's CLI): an account may belong to other organisations,
 * and one organisation's admin must not be able to choose its password and sign in as that person.
 */
export async function addUserToTenant(
  db: Database,
  input: {
    email: string;
    password?: string;
    name?: string;
    /** Omitted: a new member joins as a member, an existing one keeps their role. */
    role?: TenantRole;
    tenantId?: string;
    actorUserId: string | null;
    resetExistingPassword?: boolean;
  },
): Promise<CreatedAccount> {
  const email = normalizeEmail(input.email);
  assertValidCredentials(email, input.password);
  const passwordHash = input.password ? await hashPassword(input.password) : null;
  return db.transaction(async (tx) => {
    await tx.execute(sqlLock);
    let tenantId = input.tenantId;
    if (!tenantId) {
      const [first] = await tx.select({ id: tenants.id }).from(tenants).orderBy(asc(tenants.createdAt)).limit(1);
      tenantId = first?.id ?? (await createTenant(tx, DEFAULT_ORGANISATION_NAME)).id;
    } else {
      const [exists] = await tx.select({ id: tenants.id }).from(tenants).where(eq(tenants.id, tenantId)).limit(1);
      if (!exists) throw new AccountError("unknown_tenant", `No organisation with id ${tenantId}.`);
    }
    const firstAdmin = (await countUsers(tx)) === 0;
    let user = await findUserByEmail(tx, email);
    const newUser = !user;
    if (!user) {
      // An organisation's admin chose it (the CLI's operator acts for the whole server, with no actor).
      const passwordSetByTenantId = passwordHash && input.actorUserId ? tenantId : null;
      [user] = await tx
        .insert(users)
        .values({ id: newId("usr"), email, name: input.name ?? null, passwordHash, passwordSetByTenantId })
        .returning();
    } else if (passwordHash && input.resetExistingPassword) {
      [user] = await tx
        .update(users)
        .set({ passwordHash, passwordSetByTenantId: null, updatedAt: new Date() })
        .where(eq(users.id, user.id))
        .returning();
      // A new password ends every session the old one (or anyone holding a saved cookie) opened.
      await closeAllSessionRecords(tx, user!.id);
    }
    const [membership] = await tx
      .select({ role: tenantMembers.role })
      .from(tenantMembers)
      .where(and(eq(tenantMembers.tenantId, tenantId), eq(tenantMembers.userId, user!.id)));
    const role = input.role ?? membership?.role ?? "member";
    if (!membership) {
      await addMembership(tx, {
        tenantId,
        userId: user!.id,
        role,
        actorUserId: input.actorUserId,
        reason: "added by admin",
      });
    } else if (membership.role !== role) {
      if (membership.role === "admin") {
        const [admins] = await tx
          .select({ n: count() })
          .from(tenantMembers)
          .where(and(eq(tenantMembers.tenantId, tenantId), eq(tenantMembers.role, "admin")));
        if ((admins?.n ?? 0) <= 1)
          throw new AccountError(
            "last_admin",
            `${email} is the organisation's only admin; make someone else admin first, so the organisation is never left without one.`,
          );
      }
      await tx
        .update(tenantMembers)
        .set({ role })
        .where(and(eq(tenantMembers.tenantId, tenantId), eq(tenantMembers.userId, user!.id)));
    }
    return { user: user!, tenantId, role, firstAdmin, newUser };
  });
}

// A fixed hash to compare against when the email is unknown, so timing does not reveal which emails exist.
let dummyHash: Promise<string> | undefined;

export async function verifyCredentials(db: DbOrTx, email: string, password: string): Promise<User | null> {
  const user = await findUserByEmail(db, email);
  if (!user?.passwordHash || user.disabledAt) {
    dummyHash ??= hashPassword("not-a-real-password");
    await verifyPassword(password, await dummyHash);
    return null;
  }
  return (await verifyPassword(password, user.passwordHash)) ? user : null;
}
