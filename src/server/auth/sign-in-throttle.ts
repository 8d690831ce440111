import { eq } from "drizzle-orm";
import type { Database, DbOrTx } from "~/db/types";
import { memoryAuditEvents, tenantMembers } from "~/db/schema";
import { env } from "~/env";
import { log } from "~/server/log";
import { defaultCounter, windowStartOf, type CounterStore } from "~/server/rate-limit/limiter";
import { findUserByEmail, normalizeEmail } from "./accounts";

/**
 * Password guessing is throttled (issue 30). Failed password sign-ins are counted in 15-minute windows
 * where the agent rate limit counts (Postgres `rate_limit_buckets`, or Redis), so every instance sees
 * them, three ways:
 *
 * - per account and client address (5): one guesser at one account stops at once;
 * - per client address (30): one guesser across many accounts;
 * - per account from anywhere (50): a guesser spread over many addresses.
 *
 * Past a limit, sign-in with a password is answered 429 with Retry-After until the window ends, before
 * the password is even checked (the right one too). The owner is never locked out by someone guessing
 * from another address unless 50 guesses a window come in for the account, and then for the rest of
 * that window only (≤ 15 minutes). The attempt that reaches a limit writes an audit row in each of the
 * account's organisations (and a log line). GitHub / OIDC sign-in is not affected.
 */
export const SIGN_IN_THROTTLE = { windowMs: 15 * 60_000, perPair: 5, perAddress: 30, perAccount: 50 } as const;

export const CLIENT_ADDRESS_HEADER = "x-memory-client-address";
const UNKNOWN_ADDRESS = "unknown";

type HeaderSource = Headers | Record<string, string | string[] | undefined>;
const header = (headers: HeaderSource, name: string): string | undefined => {
  const value = headers instanceof Headers ? headers.get(name) : headers[name];
  return (Array.isArray(value) ? value.join(",") : value) ?? undefined;
};

/** The client's address: X-Forwarded-For's last entry behind a trusted proxy, else what the server's socket saw. */
export function clientAddress(headers: HeaderSource): string {
  if (env.TRUST_PROXY) {
    const forwarded = header(headers, "x-forwarded-for")?.split(",").map((a) => a.trim()).filter(Boolean).at(-1);
    if (forwarded) return forwarded.slice(0, 100);
  }
  return (header(headers, CLIENT_ADDRESS_HEADER) ?? UNKNOWN_ADDRESS).slice(0, 100);
}

const buckets = (email: string, address: string) => {
  const account = normalizeEmail(email).slice(0, 320);
  const perAccount = { what: "account" as const, bucket: `signin:acct:${account}`, limit: SIGN_IN_THROTTLE.perAccount };
  // No address known (next dev / next start, which do not set it): every client would share one, and
  // one guesser would lock everyone out; the per-account count still holds.
  if (address === UNKNOWN_ADDRESS) return [perAccount];
  return [
    { what: "account and address" as const, bucket: `signin:pair:${account}|${address}`, limit: SIGN_IN_THROTTLE.perPair },
    { what: "address" as const, bucket: `signin:addr:${address}`, limit: SIGN_IN_THROTTLE.perAddress },
    perAccount,
  ];
};

export type SignInRefusal = { retryAfterSeconds: number; what: "account and address" | "address" | "account"; message: string };

/** Whether a password sign-in for `email` from `address` is refused right now (nothing counted). */
export async function signInRefusal(db: DbOrTx, params: { email: string; address: string; store?: CounterStore; now?: number }): Promise<SignInRefusal | null> {
  const store = params.store ?? defaultCounter(db);
  const now = params.now ?? Date.now();
  const windowStart = windowStartOf(now, SIGN_IN_THROTTLE.windowMs);
  for (const { what, bucket, limit } of buckets(params.email, params.address)) {
    if ((await store.peek(bucket, windowStart)) < limit) continue;
    const retryAfterSeconds = Math.max(1, Math.ceil((windowStart + SIGN_IN_THROTTLE.windowMs - now) / 1000));
    return {
      what,
      retryAfterSeconds,
      message: `Too many failed sign-ins for this ${what === "address" ? "network address" : "account"}. Try again in ${Math.ceil(retryAfterSeconds / 60)} minute(s), or sign in with GitHub / your identity provider.`,
    };
  }
  return null;
}

/** Counts a failed password sign-in; the failure that reaches a limit is audited. */
export async function recordSignInFailure(db: Database, params: { email: string; address: string; store?: CounterStore; now?: number }): Promise<void> {
  const store = params.store ?? defaultCounter(db);
  const now = params.now ?? Date.now();
  const windowStart = windowStartOf(now, SIGN_IN_THROTTLE.windowMs);
  const reached: string[] = [];
  for (const { what, bucket, limit } of buckets(params.email, params.address)) {
    if ((await store.hit(bucket, windowStart, SIGN_IN_THROTTLE.windowMs)) === limit) reached.push(what);
  }
  if (reached.length === 0) return;
  const until = new Date(windowStart + SIGN_IN_THROTTLE.windowMs).toISOString();
  log("warn", "sign-in locked: too many failed passwords", { email: normalizeEmail(params.email), address: params.address, limits: reached, until });
  await db.transaction(async (tx) => {
    const user = await findUserByEmail(tx, params.email);
    if (!user) return;
    const memberships = await tx.select({ tenantId: tenantMembers.tenantId }).from(tenantMembers).where(eq(tenantMembers.userId, user.id));
    if (memberships.length === 0) return;
    await tx.insert(memoryAuditEvents).values(
      memberships.map(({ tenantId }) => ({
        tenantId,
        eventType: "member" as const,
        actorType: "system" as const,
        reason: "sign-in locked: too many failed passwords",
        after: { userId: user.id, email: user.email },
        metadata: { limits: reached, address: params.address, until },
      })),
    );
  });
}

/**
 * The sign-in route's check before next-auth runs: a password sign-in (POST …/callback/credentials)
 * that is throttled gets 429 with Retry-After, in the JSON shape next-auth's client reads (`url` with
 * `error=TooManyAttempts`); anything else null.
 */
export async function throttledSignInResponse(req: Request, db: DbOrTx): Promise<Response | null> {
  if (req.method !== "POST" || !new URL(req.url).pathname.endsWith("/callback/credentials")) return null;
  const form = await req.clone().formData().catch(() => null);
  const email = form?.get("email");
  if (typeof email !== "string" || !email) return null;
  const refusal = await signInRefusal(db, { email, address: clientAddress(req.headers) });
  if (!refusal) return null;
  const url = new URL("/sign-in?error=TooManyAttempts", req.url).toString();
  return Response.json({ url, error: "TooManyAttempts", message: refusal.message }, { status: 429, headers: { "retry-after": String(refusal.retryAfterSeconds) } });
}
