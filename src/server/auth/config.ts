import type { NextAuthOptions, Session } from "next-auth";
import { getServerSession } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import GitHubProvider from "next-auth/providers/github";
import type { Provider } from "next-auth/providers/index";
import { getDb } from "~/db/client";
import type { Database } from "~/db/types";
import { env } from "~/env";
import { log } from "~/server/log";
import { verifyCredentials } from "./accounts";
import { resolveExternalUser, verifiedGitHubEmail } from "./external-accounts";
import { authSecret } from "./secret";
import { beginSignInAttempt, clientAddress } from "./sign-in-throttle";
import {
  closeSessionRecord,
  openSessionRecord,
  SESSION_RENEW_AFTER_SECONDS,
  sessionMaxAgeSeconds,
  sessionRecordLive,
} from "./session-records";

declare module "next-auth" {
  interface Session {
    /** `onlyTenantId`: signed in with a password that organisation's admin chose; it opens that organisation only. */
    user: { id: string; email: string; name?: string | null; image?: string | null; onlyTenantId?: string | null };
  }
}

function externalProviders(): Provider[] {
  const providers: Provider[] = [];
  if (env.GITHUB_ID && env.GITHUB_SECRET) {
    const github = GitHubProvider({ clientId: env.GITHUB_ID, clientSecret: env.GITHUB_SECRET });
    providers.push({
      ...github,
      // The profile's email becomes the verified one from /user/emails (scope user:email), or none.
      userinfo: {
        url: "https://api.github.com/user",
        async request({
          client,
          tokens,
        }: {
          client: { userinfo: (token: string) => Promise<Record<string, unknown>> };
          tokens: { access_token?: string };
        }) {
          const profile = await client.userinfo(tokens.access_token ?? "");
          const res = await fetch("https://api.github.com/user/emails", {
            headers: { Authorization: `token ${tokens.access_token}`, Accept: "application/vnd.github+json" },
          });
          const email = res.ok
            ? verifiedGitHubEmail((await res.json()) as Parameters<typeof verifiedGitHubEmail>[0])
            : null;
          return { ...profile, email, email_verified: email !== null };
        },
      },
    } as Provider);
  }
  if (env.OIDC_ISSUER && env.OIDC_CLIENT_ID && env.OIDC_CLIENT_SECRET) {
    providers.push({
      id: "oidc",
      name: env.OIDC_NAME,
      type: "oauth",
      wellKnown: `${env.OIDC_ISSUER.replace(/\/$/, "")}/.well-known/openid-configuration`,
      clientId: env.OIDC_CLIENT_ID,
      clientSecret: env.OIDC_CLIENT_SECRET,
      authorization: { params: { scope: "openid email profile" } },
      idToken: true,
      checks: ["pkce", "state"],
      profile: (profile: { sub: string; email?: string; name?: string; picture?: string }) => ({
        id: profile.sub,
        email: profile.email ?? null,
        name: profile.name ?? null,
        image: profile.picture ?? null,
      }),
    });
  }
  return providers;
}

/** Which sign-in buttons the sign-in page should show. */
export function enabledExternalProviders(): { id: string; name: string }[] {
  return externalProviders().map((p) => ({ id: p.id, name: p.name }));
}

/**
 * next-auth's options over `getDatabase` (tests pass their own). Sessions are JWTs naming a server-side
 * record (session-records.ts): checked and renewed on each request, ended by sign-out, a password reset,
 * removal from an organisation or "sign out everywhere". A token whose record is gone reads as no session.
 */
export function createAuthOptions(getDatabase: () => Promise<Database> = getDb): NextAuthOptions {
  return {
    secret: authSecret(),
    // Credentials sign-in requires JWT sessions in next-auth v4; the token carries the user id and its session record's id.
    session: { strategy: "jwt", maxAge: sessionMaxAgeSeconds(), updateAge: SESSION_RENEW_AFTER_SECONDS },
    pages: { signIn: "/sign-in", error: "/sign-in" },
    providers: [
      CredentialsProvider({
        id: "credentials",
        name: "Email and password",
        credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
        async authorize(credentials, req) {
          if (!credentials?.email || !credentials.password) return null;
          const db = await getDatabase();
          // The sign-in route answers a throttled attempt with 429 first (sign-in-throttle.ts); this holds
          // however the attempt arrives. The attempt is counted before the password is checked (where
          // every instance sees it), so attempts sent at once cannot all pass a count of 0.
          const attempt = await beginSignInAttempt(db, {
            email: credentials.email,
            address: clientAddress(req?.headers ?? {}),
          });
          if (attempt.refusal) throw new Error("TooManyAttempts");
          const user = await verifyCredentials(db, credentials.email, credentials.password);
          // The session opens only if the row the password was checked against is unchanged (a reset or
          // "sign out everywhere" committed meanwhile refuses it: the sign-in fails as a wrong password).
          const sid = user ? await openSessionRecord(db, user.id, user) : null;
          await attempt.settle(sid !== null);
          if (!user || !sid) return null;
          return {
            id: user.id,
            email: user.email,
            name: user.name,
            image: user.image,
            onlyTenantId: user.passwordSetByTenantId,
            sid,
          };
        },
      }),
      ...externalProviders(),
    ],
    callbacks: {
      async signIn({ user, account, profile }) {
        if (!account || account.provider === "credentials") return true;
        const db = await getDatabase();
        const userId = await resolveExternalUser(
          db,
          {
            provider: account.provider,
            providerAccountId: account.providerAccountId,
            type: account.type,
            email: user.email ?? null,
            // OIDC's claim (some issuers send it as the text "true"); GitHub's as set by its userinfo above.
            emailVerified: [true, "true"].includes(
              (profile as { email_verified?: unknown } | undefined)?.email_verified as boolean | string,
            ),
            name: user.name ?? null,
            image: user.image ?? null,
          },
          env.MEMORY_OPEN_SIGNUP,
        );
        if (!userId) return "/sign-in?error=AccessDenied";
        user.id = userId;
        const sid = await openSessionRecord(db, userId);
        if (!sid) return "/sign-in?error=AccessDenied";
        (user as { sid?: string }).sid = sid;
        return true;
      },
      async jwt({ token, user }) {
        if (user) {
          token.uid = user.id;
          token.sid = (user as { sid?: string }).sid ?? null;
          // Set at sign-in only: a GitHub / OIDC sign-in (the person's own proof) carries no restriction.
          token.onlyTenantId = (user as { onlyTenantId?: string | null }).onlyTenantId ?? null;
          return token;
        }
        // Every later request: the session's record must still be there (and is renewed).
        delete token.unavailable;
        if (token.revoked === true) return token;
        let live: boolean;
        try {
          live = await sessionRecordLive(await getDatabase(), token.sid, token.uid);
        } catch (error) {
          // next-auth deletes the session cookie when this callback throws, so a database hiccup would sign
          // the person out for good. This request reads as no session instead; the cookie and the stored
          // session stay, and the next request checks again.
          log(
            "warn",
            `session check failed, answered as signed out for this request: ${error instanceof Error ? error.message : String(error)}`,
          );
          token.unavailable = true;
          return token;
        }
        if (!live) token.revoked = true;
        return token;
      },
      session({ session, token }) {
        // An ended session reads as none: getServerSession answers null, /api/auth/session {}.
        if (token.revoked === true || token.unavailable === true) return {} as Session;
        const onlyTenantId = typeof token.onlyTenantId === "string" ? token.onlyTenantId : null;
        return {
          ...session,
          user: { ...session.user, id: token.uid as string, email: token.email ?? "", onlyTenantId },
        } as Session;
      },
    },
    events: {
      async signOut({ token }) {
        await closeSessionRecord(await getDatabase(), token?.sid);
      },
    },
  };
}

export const authOptions: NextAuthOptions = createAuthOptions();

export function getServerAuthSession(): Promise<Session | null> {
  return getServerSession(authOptions);
}
