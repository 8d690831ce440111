import { and, asc, count, eq, isNull, sql } from "drizzle-orm";
import type { Database, DbOrTx } from "~/db/types";
import { apiKeys, scopeGrants, tenantInvitations, tenantMembers, tenants, users, type TenantRole } from "~/db/schema";
import { AccountError, addMembership, addUserToTenant, findUserByEmail } from "~/server/auth/accounts";
import { badRequest, notFound, ServiceError } from "~/server/errors";
import { recordAudit } from "~/server/memory";
import { closeAllSessionRecords } from "~/server/auth/session-records";

export type MemberView = {
  userId: string;
  email: string;
  name: string | null;
  role: TenantRole;
  joinedAt: string;
  disabled: boolean;
  activeKeys: number;
};

type AdminAction = { tenantId: string; actorUserId: string };

/** The organisation's people, admins first, with how many live API keys each owns. */
export async function listMembers(db: DbOrTx, tenantId: string): Promise<MemberView[]> {
  const keys = db
    .select({ ownerUserId: apiKeys.ownerUserId, n: count().as("n") })
    .from(apiKeys)
    .where(and(eq(apiKeys.tenantId, tenantId), isNull(apiKeys.revokedAt)))
    .groupBy(apiKeys.ownerUserId)
    .as("keys");
  const rows = await db
    .select({
      userId: users.id,
      email: users.email,
      name: users.name,
      role: tenantMembers.role,
      joinedAt: tenantMembers.createdAt,
      disabledAt: users.disabledAt,
      activeKeys: sql<number>`coalesce(${keys.n}, 0)`.mapWith(Number),
    })
    .from(tenantMembers)
    .innerJoin(users, eq(users.id, tenantMembers.userId))
    .leftJoin(keys, eq(keys.ownerUserId, tenantMembers.userId))
    .where(eq(tenantMembers.tenantId, tenantId))
    .orderBy(asc(tenantMembers.role), asc(users.email));
  return rows.map(({ joinedAt, disabledAt, ...r }) => ({
    ...r,
    joinedAt: joinedAt.toISOString(),
    disabled: disabledAt !== null,
  }));
}

/** Serialises membership changes per organisation, so "is this the last admin?" has one answer. */
const lockMembers = (db: DbOrTx, tenantId: string) =>
  db.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`tenant_members:${tenantId}`}, 0))`);

async function membership(db: DbOrTx, tenantId: string, userId: string) {
  const [row] = await db
    .select({ role: tenantMembers.role, email: users.email })
    .from(tenantMembers)
    .innerJoin(users, eq(users.id, tenantMembers.userId))
    .where(and(eq(tenantMembers.tenantId, tenantId), eq(tenantMembers.userId, userId)))
    .for("update", { of: tenantMembers });
  return row;
}

async function adminCount(db: DbOrTx, tenantId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(tenantMembers)
    .where(and(eq(tenantMembers.tenantId, tenantId), eq(tenantMembers.role, "admin")));
  return row?.n ?? 0;
}

const lastAdmin = () =>
  new ServiceError(
    "CONFLICT",
    "last_admin",
    "This is the organisation's only admin; make someone else admin first, so the organisation is never left without one.",
  );

/** What adding someone answers: the new member, or for a person with an account already, only that they were invited. */
export type AddMemberResult = MemberView & {
  /**
   * The email already had an account: it was invited, not added, and nothing about that account is
   * answered (userId is "", name null, joinedAt "") until the person accepts.
   */
  invited: boolean;
};

/**
 * Adds a person by email with a role. A new email gets an account (an initial password lets them sign
 * in with email and password; it opens this organisation only). An email that already has an account
 * is invited instead: the person becomes a member only when they accept, signed in as themselves, and
 * the answer says nothing about their account (its id, the name another organisation knows it by).
 * Someone already in the organisation is a conflict: change their role instead. Audited.
 */
export async function addMember(
  db: Database,
  params: AdminAction & { email: string; role: TenantRole; name?: string; password?: string },
): Promise<AddMemberResult> {
  const existing = await findUserByEmail(db, params.email);
  if (existing && (await membership(db, params.tenantId, existing.id))) {
    throw new ServiceError(
      "CONFLICT",
      "already_member",
      `${existing.email} is already a member; change their role instead.`,
    );
  }
  if (existing) {
    await db.transaction(async (tx) => {
      await tx
        .insert(tenantInvitations)
        .values({
          tenantId: params.tenantId,
          userId: existing.id,
          role: params.role,
          invitedByUserId: params.actorUserId,
        })
        .onConflictDoUpdate({
          target: [tenantInvitations.tenantId, tenantInvitations.userId],
          set: { role: params.role, invitedByUserId: params.actorUserId, createdAt: new Date() },
        });
      await recordAudit(
        tx,
        { tenantId: params.tenantId, actor: { type: "user", id: params.actorUserId } },
        {
          eventType: "member",
          reason: "member invited",
          before: null,
          after: { email: existing.email, role: params.role, invited: true },
        },
      );
    });
    return {
      userId: "",
      email: existing.email,
      name: null,
      role: params.role,
      joinedAt: "",
      disabled: false,
      activeKeys: 0,
      invited: true,
    };
  }
  try {
    await addUserToTenant(db, {
      email: params.email,
      name: params.name,
      password: params.password,
      role: params.role,
      tenantId: params.tenantId,
      actorUserId: params.actorUserId,
    });
  } catch (error) {
    if (error instanceof AccountError) throw badRequest(error.reason, error.message);
    throw error;
  }
  const added = (await listMembers(db, params.tenantId)).find((m) => m.email === params.email.trim().toLowerCase());
  if (!added)
    throw new ServiceError(
      "INTERNAL_SERVER_ERROR",
      "member_missing",
      "The member was added but cannot be read back; reload the page.",
    );
  return { ...added, invited: false };
}

/** The organisation's invitations not yet accepted (email, role, when). */
export async function listInvitations(
  db: DbOrTx,
  tenantId: string,
): Promise<{ email: string; role: TenantRole; invitedAt: string }[]> {
  const rows = await db
    .select({ email: users.email, role: tenantInvitations.role, invitedAt: tenantInvitations.createdAt })
    .from(tenantInvitations)
    .innerJoin(users, eq(users.id, tenantInvitations.userId))
    .where(eq(tenantInvitations.tenantId, tenantId))
    .orderBy(asc(users.email));
  return rows.map((r) => ({ ...r, invitedAt: r.invitedAt.toISOString() }));
}

const noInvitation = () =>
  notFound(
    "no_invitation",
    "There is no invitation to this organisation for this email (it was accepted, declined or cancelled).",
  );

/** Withdraws an invitation of this organisation. Audited. */
export async function cancelInvitation(
  db: Database,
  params: AdminAction & { email: string },
): Promise<{ email: string }> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select({ userId: tenantInvitations.userId, email: users.email })
      .from(tenantInvitations)
      .innerJoin(users, eq(users.id, tenantInvitations.userId))
      .where(and(eq(tenantInvitations.tenantId, params.tenantId), eq(users.email, params.email.trim().toLowerCase())));
    if (!row) throw noInvitation();
    await tx
      .delete(tenantInvitations)
      .where(and(eq(tenantInvitations.tenantId, params.tenantId), eq(tenantInvitations.userId, row.userId)));
    await recordAudit(
      tx,
      { tenantId: params.tenantId, actor: { type: "user", id: params.actorUserId } },
      { eventType: "member", reason: "invitation cancelled", before: { email: row.email, invited: true }, after: null },
    );
    return { email: row.email };
  });
}

/** A person's pending invitations: which organisations, as what. */
export async function myInvitations(db: DbOrTx, userId: string) {
  const rows = await db
    .select({
      tenantId: tenantInvitations.tenantId,
      tenantName: tenants.name,
      role: tenantInvitations.role,
      invitedAt: tenantInvitations.createdAt,
    })
    .from(tenantInvitations)
    .innerJoin(tenants, eq(tenants.id, tenantInvitations.tenantId))
    .where(eq(tenantInvitations.userId, userId))
    .orderBy(asc(tenantInvitations.createdAt));
  return rows.map((r) => ({ ...r, invitedAt: r.invitedAt.toISOString() }));
}

/**
 * The invited person answers, signed in as themselves: accepting makes them a member with the role
 * invited as (membership, default grants and audit row in one transaction); declining removes the
 * invitation, audited as well.
 */
export async function answerInvitation(
  db: Database,
  params: { userId: string; tenantId: string; accept: boolean },
): Promise<{ tenantId: string; role: TenantRole | null }> {
  return db.transaction(async (tx) => {
    await lockMembers(tx, params.tenantId);
    const [invitation] = await tx
      .select({ role: tenantInvitations.role })
      .from(tenantInvitations)
      .where(and(eq(tenantInvitations.tenantId, params.tenantId), eq(tenantInvitations.userId, params.userId)));
    if (!invitation) throw noInvitation();
    await tx
      .delete(tenantInvitations)
      .where(and(eq(tenantInvitations.tenantId, params.tenantId), eq(tenantInvitations.userId, params.userId)));
    if (!params.accept) {
      await recordAudit(
        tx,
        { tenantId: params.tenantId, actor: { type: "user", id: params.userId } },
        {
          eventType: "member",
          reason: "invitation declined",
          before: { userId: params.userId, invited: true },
          after: null,
        },
      );
      return { tenantId: params.tenantId, role: null };
    }
    if (!(await membership(tx, params.tenantId, params.userId))) {
      await addMembership(tx, {
        tenantId: params.tenantId,
        userId: params.userId,
        role: invitation.role,
        actorUserId: params.userId,
        reason: "invitation accepted",
      });
    }
    return { tenantId: params.tenantId, role: invitation.role };
  });
}

/** Changes a member's role; the last admin cannot step down. Audited with before/after. */
export async function setMemberRole(
  db: Database,
  params: AdminAction & { userId: string; role: TenantRole },
): Promise<{ userId: string; role: TenantRole; changed: boolean }> {
  return db.transaction(async (tx) => {
    await lockMembers(tx, params.tenantId);
    const current = await membership(tx, params.tenantId, params.userId);
    if (!current) throw notFound("not_member", `User ${params.userId} is not a member of this organisation.`);
    if (current.role === params.role) return { userId: params.userId, role: params.role, changed: false };
    if (current.role === "admin" && (await adminCount(tx, params.tenantId)) <= 1) throw lastAdmin();
    await tx
      .update(tenantMembers)
      .set({ role: params.role })
      .where(and(eq(tenantMembers.tenantId, params.tenantId), eq(tenantMembers.userId, params.userId)));
    await recordAudit(
      tx,
      { tenantId: params.tenantId, actor: { type: "user", id: params.actorUserId } },
      {
        eventType: "member",
        reason: "role changed",
        before: { userId: params.userId, email: current.email, role: current.role },
        after: { userId: params.userId, email: current.email, role: params.role },
      },
    );
    return { userId: params.userId, role: params.role, changed: true };
  });
}

/**
 * Removes a person from the organisation: membership, their scope grants here, and their API keys
 * here (revoked, kept for the audit trail). Their cards stay: they belong to the organisation.
 * The last admin cannot be removed.
 */
export async function removeMember(
  db: Database,
  params: AdminAction & { userId: string },
): Promise<{ userId: string; grantsRemoved: number; keysRevoked: number }> {
  return db.transaction(async (tx) => {
    await lockMembers(tx, params.tenantId);
    const current = await membership(tx, params.tenantId, params.userId);
    if (!current) throw notFound("not_member", `User ${params.userId} is not a member of this organisation.`);
    if (current.role === "admin" && (await adminCount(tx, params.tenantId)) <= 1) throw lastAdmin();
    const grants = await tx
      .delete(scopeGrants)
      .where(
        and(
          eq(scopeGrants.tenantId, params.tenantId),
          eq(scopeGrants.principalType, "user"),
          eq(scopeGrants.principalId, params.userId),
        ),
      )
      .returning({ id: scopeGrants.id });
    const keys = await tx
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(
        and(eq(apiKeys.tenantId, params.tenantId), eq(apiKeys.ownerUserId, params.userId), isNull(apiKeys.revokedAt)),
      )
      .returning({ id: apiKeys.id });
    await tx
      .delete(tenantMembers)
      .where(and(eq(tenantMembers.tenantId, params.tenantId), eq(tenantMembers.userId, params.userId)));
    // Their open dashboard sessions end on their next request (they sign in again for other organisations).
    const sessionsEnded = await closeAllSessionRecords(tx, params.userId);
    await recordAudit(
      tx,
      { tenantId: params.tenantId, actor: { type: "user", id: params.actorUserId } },
      {
        eventType: "member",
        reason: "member removed",
        before: { userId: params.userId, email: current.email, role: current.role },
        after: null,
        metadata: { grantsRemoved: grants.length, keysRevoked: keys.map((k) => k.id), sessionsEnded },
      },
    );
    return { userId: params.userId, grantsRemoved: grants.length, keysRevoked: keys.length };
  });
}

/**
 * An admin's "sign out everywhere" for a member of their organisation (a lost laptop, a shared
 * browser): every dashboard session of that person ends on its next request. Audited in the same
 * transaction. Their API keys are not touched (revoke those under API keys).
 */
export async function signOutMemberEverywhere(
  db: Database,
  params: AdminAction & { userId: string },
): Promise<{ userId: string; sessionsEnded: number }> {
  return db.transaction(async (tx) => {
    const current = await membership(tx, params.tenantId, params.userId);
    if (!current) throw notFound("not_member", `User ${params.userId} is not a member of this organisation.`);
    const sessionsEnded = await closeAllSessionRecords(tx, params.userId);
    await recordAudit(
      tx,
      { tenantId: params.tenantId, actor: { type: "user", id: params.actorUserId } },
      {
        eventType: "member",
        reason: "signed out everywhere",
        before: { userId: params.userId, email: current.email },
        after: { userId: params.userId, email: current.email },
        metadata: { sessionsEnded },
      },
    );
    return { userId: params.userId, sessionsEnded };
  });
}
