import { randomBytes } from "node:crypto";
import { and, eq, gt, lt, sql } from "drizzle-orm";
import type { Database, DbOrTx } from "~/db/types";
import { sessions, users } from "~/db/schema";
import { env } from "~/env";

/**
 * Server-side records of dashboard sessions. The session cookie is still next-auth's JWT (credentials
 * sign-in needs it in next-auth v4), but it names a row here (`sid`), and a session is good only while
 * its row is: sign-out deletes the row; a password reset, removal from an organisation and an admin's
 * "sign out everywhere" delete all of a person's rows, in the same transaction as the change. Each
 * request checks the row (one primary-key read) and slides its expiry forward, so an idle session ends
 * after SESSION_MAX_AGE_HOURS and an active one lasts.
 */

export const sessionMaxAgeSeconds = () => env.SESSION_MAX_AGE_HOURS * 3600;
/** Renew a session's expiry at most this often (seconds), not on every request. */
export const SESSION_RENEW_AFTER_SECONDS = 5 * 60;

/** What a password check read of the person: a session opens only if these are unchanged when it is recorded. */
export type SessionBasis = { passwordHash: string | null; updatedAt: Date };

/**
 * Opens a session for `userId` and returns its id (what the JWT carries); null when the person is gone
 * or disabled, or, given `basis` (the user row the password was checked against), when the row changed
 * since: a password reset or "sign out everywhere" committed between the password check and this
 * must not leave a new session alive. The person's row is locked (FOR UPDATE) while the session is
 * recorded, and both of those take the same lock (closeAllSessionRecords), so either this sees their
 * change or they see this session. Old expired rows of the person go.
 */
export async function openSessionRecord(
  db: Database,
  userId: string,
  basis?: SessionBasis | null,
  now = new Date(),
): Promise<string | null> {
  return db.transaction(async (tx) => {
    const [user] = await tx
      .select({ passwordHash: users.passwordHash, updatedAt: users.updatedAt, disabledAt: users.disabledAt })
      .from(users)
      .where(eq(users.id, userId))
      .for("update");
    if (!user || user.disabledAt) return null;
    if (basis && (user.passwordHash !== basis.passwordHash || user.updatedAt.getTime() !== basis.updatedAt.getTime()))
      return null;
    const sid = randomBytes(24).toString("base64url");
    await tx.delete(sessions).where(and(eq(sessions.userId, userId), lt(sessions.expires, now)));
    await tx
      .insert(sessions)
      .values({ sessionToken: sid, userId, expires: new Date(now.getTime() + sessionMaxAgeSeconds() * 1000) });
    return sid;
  });
}

/**
 * Whether session `sid` of `userId` is still good (row there, not expired, person not disabled); if
 * so and its expiry was last moved more than SESSION_RENEW_AFTER_SECONDS ago, moves it forward.
 */
export async function sessionRecordLive(db: DbOrTx, sid: unknown, userId: unknown, now = new Date()): Promise<boolean> {
  if (typeof sid !== "string" || typeof userId !== "string" || !sid || !userId) return false;
  const [row] = await db
    .select({ expires: sessions.expires })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(
      and(
        eq(sessions.sessionToken, sid),
        eq(sessions.userId, userId),
        gt(sessions.expires, now),
        sql`${users.disabledAt} is null`,
      ),
    );
  if (!row) return false;
  const maxAgeMs = sessionMaxAgeSeconds() * 1000;
  if (row.expires.getTime() - now.getTime() < maxAgeMs - SESSION_RENEW_AFTER_SECONDS * 1000) {
    await db
      .update(sessions)
      .set({ expires: new Date(now.getTime() + maxAgeMs) })
      .where(eq(sessions.sessionToken, sid));
  }
  return true;
}

/** Ends one session (sign-out). */
export async function closeSessionRecord(db: DbOrTx, sid: unknown): Promise<void> {
  if (typeof sid === "string" && sid) await db.delete(sessions).where(eq(sessions.sessionToken, sid));
}

/** Ends every session of a person (password reset, removal, "sign out everywhere"); returns how many. Run it in the change's transaction. */
export async function closeAllSessionRecords(db: DbOrTx, userId: string): Promise<number> {
  // Marks the person's row changed (and locks it till the caller's transaction ends): a sign-in whose
  // password check read the row before this opens no session (openSessionRecord).
  await db
    .update(users)
    .set({ updatedAt: sql`greatest(now(), ${users.updatedAt} + interval '1 millisecond')` })
    .where(eq(users.id, userId));
  const closed = await db.delete(sessions).where(eq(sessions.userId, userId)).returning({ sid: sessions.sessionToken });
  return closed.length;
}
