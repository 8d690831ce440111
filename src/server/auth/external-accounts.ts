import { and, eq } from "drizzle-orm";
import type { Database } from "~/db/types";
import { accounts, users } from "~/db/schema";
import { countUsers, normalizeEmail, registerAccountForExternalUser } from "./accounts";

/**
 * Signs a GitHub / OIDC identity in: an identity seen before maps to its user; a new identity links to
 * the user with the same email, only when the provider verified it; a new person only gets in as the
 * first account of an empty install or with open sign-up, with a verified email too. Returns the user
 * id, or null to refuse. Linking by an unverified email would let anyone who registers an admin's
 * address at a self-service identity provider sign in as that admin.
 */
export async function resolveExternalUser(
  db: Database,
  identity: {
    provider: string;
    providerAccountId: string;
    type: string;
    email: string | null;
    emailVerified: boolean;
    name: string | null;
    image: string | null;
  },
  openSignup: boolean,
): Promise<string | null> {
  const [linked] = await db
    .select({ userId: accounts.userId })
    .from(accounts)
    .where(and(eq(accounts.provider, identity.provider), eq(accounts.providerAccountId, identity.providerAccountId)));
  if (linked) return linked.userId;
  if (!identity.email || !identity.emailVerified) return null;
  const email = normalizeEmail(identity.email);
  const [existing] = await db.select({ id: users.id }).from(users).where(eq(users.email, email));
  let userId = existing?.id;
  if (!userId) {
    if ((await countUsers(db)) > 0 && !openSignup) return null;
    userId = (
      await registerAccountForExternalUser(db, { email, name: identity.name, image: identity.image, openSignup })
    ).user.id;
  }
  await db
    .insert(accounts)
    .values({ userId, type: identity.type, provider: identity.provider, providerAccountId: identity.providerAccountId })
    .onConflictDoNothing();
  return userId;
}

type GitHubEmail = { email: string; primary: boolean; verified: boolean };

/**
 * The email GitHub has verified for the account, primary first, or null. (next-auth's own lookup takes
 * the primary or first address whether verified or not.)
 */
export function verifiedGitHubEmail(emails: readonly GitHubEmail[]): string | null {
  const verified = emails.filter((e) => e.verified);
  return (verified.find((e) => e.primary) ?? verified[0])?.email ?? null;
}
