import { and, asc, count, eq, isNull, sql } from "drizzle-orm";
import type { Database, DbOrTx } from "~/db/types";
import { apiKeys, scopeGrants, tenantMembers, users, type TenantRole } from "~/db/schema";
import { AccountError, addUserToTenant, findUserByEmail } from "~/server/auth/accounts";
import { badRequest, notFound, ServiceError } from "~/server/errors";
import { recordAudit } from "~/server/memory/audit";
import { closeAllSessionRecords } from "~/server/auth/session-records";

export type MemberView = { userId: string; email: string; name: string | null; role: TenantRole; joinedAt: string; disabled: boolean; activeKeys: number };

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
  return rows.map(({ joinedAt, disabledAt, ...r }) => ({ ...r, joinedAt: joinedAt.toISOString(), disabled: disabledAt !== null }));
}

/** Serialises membership changes per organisation, so "is this the last admin?" has one answer. */
const lockMembers = (db: DbOrTx, tenantId: string) => db.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`tenant_members:${tenantId}`}, 0))`);

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
  new ServiceError("CONFLICT", "last_admin", "This is the organisation's only admin; make someone else admin first, so the organisation is never left without one.");

/**
 * Adds a person by email with a role (creating the account when the email is new; an initial
 * password lets them sign in with email and password). Someone already in the organisation is a
 * conflict: change their role instead. addUserToTenant writes the membership's audit event.
 */
export async function addMember(
  db: Database,
  params: AdminAction & { email: string; role: TenantRole; name?: string; password?: string },
): Promise<MemberView & { passwordOpensElsewhere: boolean }> {
  const existing = await findUserByEmail(db, params.email);
  if (existing && (await membership(db, params.tenantId, existing.id))) {
    throw new ServiceError("CONFLICT", "already_member", `${existing.email} is already a member; change their role instead.`);
  }
  try {
    await addUserToTenant(db, { email: params.email, name: params.name, password: params.password, role: params.role, tenantId: params.tenantId, actorUserId: params.actorUserId });
  } catch (error) {
    if (error instanceof AccountError) throw badRequest(error.reason, error.message);
    throw error;
  }
  const added = (await listMembers(db, params.tenantId)).find((m) => m.email === (existing?.email ?? params.email.trim().toLowerCase()));
  if (!added) throw new ServiceError("INTERNAL_SERVER_ERROR", "member_missing", "The member was added but cannot be read back; reload the page.");
  // Their password was another organisation admin's choice: it does not open this organisation.
  const passwordOpensElsewhere = Boolean(existing?.passwordSetByTenantId && existing.passwordSetByTenantId !== params.tenantId);
  return { ...added, passwordOpensElsewhere };
}

/** Changes a member's role; the last admin cannot step down. Audited with before/after. */
export async function setMemberRole(db: Database, params: AdminAction & { userId: string; role: TenantRole }): Promise<{ userId: string; role: TenantRole; changed: boolean }> {
  return db.transaction(async (tx) => {
    await lockMembers(tx, params.tenantId);
    const current = await membership(tx, params.tenantId, params.userId);
    if (!current) throw notFound("not_member", `User ${params.userId} is not a member of this organisation.`);
    if (current.role === params.role) return { userId: params.userId, role: params.role, changed: false };
    if (current.role === "admin" && (await adminCount(tx, params.tenantId)) <= 1) throw lastAdmin();
    await tx.update(tenantMembers).set({ role: params.role }).where(and(eq(tenantMembers.tenantId, params.tenantId), eq(tenantMembers.userId, params.userId)));
    await recordAudit(tx, { tenantId: params.tenantId, actor: { type: "user", id: params.actorUserId } }, {
      eventType: "member",
      reason: "role changed",
      before: { userId: params.userId, email: current.email, role: current.role },
      after: { userId: params.userId, email: current.email, role: params.role },
    });
    return { userId: params.userId, role: params.role, changed: true };
  });
}

/**
 * Removes a person from the organisation: membership, their scope grants here, and their API keys
 * here (revoked, kept for the audit trail). Their cards stay: they belong to the organisation.
 * The last admin cannot be removed.
 */
export async function removeMember(db: Database, params: AdminAction & { userId: string }): Promise<{ userId: string; grantsRemoved: number; keysRevoked: number }> {
  return db.transaction(async (tx) => {
    await lockMembers(tx, params.tenantId);
    const current = await membership(tx, params.tenantId, params.userId);
    if (!current) throw notFound("not_member", `User ${params.userId} is not a member of this organisation.`);
    if (current.role === "admin" && (await adminCount(tx, params.tenantId)) <= 1) throw lastAdmin();
    const grants = await tx
      .delete(scopeGrants)
      .where(and(eq(scopeGrants.tenantId, params.tenantId), eq(scopeGrants.principalType, "user"), eq(scopeGrants.principalId, params.userId)))
      .returning({ id: scopeGrants.id });
    const keys = await tx
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(and(eq(apiKeys.tenantId, params.tenantId), eq(apiKeys.ownerUserId, params.userId), isNull(apiKeys.revokedAt)))
      .returning({ id: apiKeys.id });
    await tx.delete(tenantMembers).where(and(eq(tenantMembers.tenantId, params.tenantId), eq(tenantMembers.userId, params.userId)));
    // Their open dashboard sessions end on their next request (they sign in again for other organisations).
    const sessionsEnded = await closeAllSessionRecords(tx, params.userId);
    await recordAudit(tx, { tenantId: params.tenantId, actor: { type: "user", id: params.actorUserId } }, {
      eventType: "member",
      reason: "member removed",
      before: { userId: params.userId, email: current.email, role: current.role },
      after: null,
      metadata: { grantsRemoved: grants.length, keysRevoked: keys.map((k) => k.id), sessionsEnded },
    });
    return { userId: params.userId, grantsRemoved: grants.length, keysRevoked: keys.length };
  });
}

/**
 * An admin's "sign out everywhere" for a member of their organisation (a lost laptop, a shared
 * browser): every dashboard session of that person ends on its next request. Audited in the same
 * transaction. Their API keys are not touched (revoke those under API keys).
 */
export async function signOutMemberEverywhere(db: Database, params: AdminAction & { userId: string }): Promise<{ userId: string; sessionsEnded: number }> {
  return db.transaction(async (tx) => {
    const current = await membership(tx, params.tenantId, params.userId);
    if (!current) throw notFound("not_member", `User ${params.userId} is not a member of this organisation.`);
    const sessionsEnded = await closeAllSessionRecords(tx, params.userId);
    await recordAudit(tx, { tenantId: params.tenantId, actor: { type: "user", id: params.actorUserId } }, {
      eventType: "member",
      reason: "signed out everywhere",
      before: { userId: params.userId, email: current.email },
      after: { userId: params.userId, email: current.email },
      metadata: { sessionsEnded },
    });
    return { userId: params.userId, sessionsEnded };
  });
}
