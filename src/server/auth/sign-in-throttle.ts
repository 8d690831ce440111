import { isIP } from "node:net";
import { and, eq, like, lt } from "drizzle-orm";
import type { Database, DbOrTx } from "~/db/types";
import { memoryAuditEvents, rateLimitBuckets, tenantMembers } from "~/db/schema";
import { env } from "~/env";
import { log } from "~/server/log";
import { defaultCounter, windowStartOf, type CounterStore } from "~/server/rate-limit/limiter";
import { findUserByEmail, normalizeEmail } from "./accounts";

/**
 * Password guessing is throttled (issue 30). Password sign-in attempts are counted in 15-minute windows
 * where the agent rate limit counts (Postgres `rate_limit_buckets`, or Redis), so every instance sees
 * them, three ways:
 *
 * - per account and client address (5): one guesser at one account;
 * - per client address (30): one guesser across many accounts;
 * - per account from anywhere (50): a guesser spread over many addresses.
 *
 * An attempt is counted before its password is checked (one atomic increment per counter), and decided
 * on the counts that increment returns, so attempts sent at once cannot all read a count of 0. An
 * attempt that succeeds is taken back off every counter: the counts are of attempts that did not
 * succeed, and the owner signing in often is never throttled by their own sign-ins.
 *
 * - Past the per-(account, address) limit, the attempt is refused before the password is checked, the
 *   right one too (429 with Retry-After until the window ends).
 * - Past the per-address or per-account limit, only an (account, address) pair with earlier counted
 *   attempts in the window is refused (before the check). A pair with none — the owner at their own
 *   address — has its password checked, and the right one gets in. So no one can lock the owner out
 *   from elsewhere (rotating addresses, or many clients behind one proxy address with TRUST_PROXY
 *   off); a guesser over a wider limit gets one guess per address per window.
 * - IPv6 addresses are counted per /64 (one host usually holds a whole /64).
 * - With no address known (next dev / next start), attempts count per account only, and that count
 *   refuses before the check.
 *
 * The failed attempt that reaches a limit writes an audit row in each of the account's organisations
 * (and a log line). GitHub / OIDC sign-in is not affected.
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
    const forwarded = header(headers, "x-forwarded-for")
      ?.split(",")
      .map((a) => a.trim())
      .filter(Boolean)
      .at(-1);
    if (forwarded) return forwarded.slice(0, 100);
  }
  return (header(headers, CLIENT_ADDRESS_HEADER) ?? UNKNOWN_ADDRESS).slice(0, 100);
}

/** What an address is counted as: an IPv6 address as its /64 (`2001:db8:1:2::/64`), an IPv4-mapped one as the IPv4 address. */
export function throttledAddress(address: string): string {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (isIP(bare) !== 6) return address;
  const mapped = bare.match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i);
  if (mapped) return mapped[1]!;
  const [head = "", tail] = bare.split("::");
  const groups = (part: string | undefined) =>
    (part ? part.split(":") : []).flatMap((g) => (g.includes(".") ? ["0", "0"] : [g]));
  const h = groups(head);
  const t = groups(tail);
  const all = tail === undefined ? h : [...h, ...Array<string>(Math.max(0, 8 - h.length - t.length)).fill("0"), ...t];
  return `${all
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(":")}::/64`;
}

type Bucket = { what: "account and address" | "address" | "account"; bucket: string; limit: number };

/** The counters of an attempt: the first one refuses before the password check; the rest only a pair with earlier attempts. */
const buckets = (email: string, rawAddress: string): [Bucket, ...Bucket[]] => {
  const account = normalizeEmail(email).slice(0, 320);
  const perAccount = { what: "account" as const, bucket: `signin:acct:${account}`, limit: SIGN_IN_THROTTLE.perAccount };
  // No address known (next dev / next start, which do not set it): every client would share one, and
  // one guesser would lock everyone out; the per-account count still holds.
  if (rawAddress === UNKNOWN_ADDRESS) return [perAccount];
  const address = throttledAddress(rawAddress);
  return [
    {
      what: "account and address" as const,
      bucket: `signin:pair:${account}|${address}`,
      limit: SIGN_IN_THROTTLE.perPair,
    },
    { what: "address" as const, bucket: `signin:addr:${address}`, limit: SIGN_IN_THROTTLE.perAddress },
    perAccount,
  ];
};

export type SignInRefusal = {
  retryAfterSeconds: number;
  what: "account and address" | "address" | "account";
  message: string;
};

function refusal(what: SignInRefusal["what"], windowStart: number, now: number): SignInRefusal {
  const retryAfterSeconds = Math.max(1, Math.ceil((windowStart + SIGN_IN_THROTTLE.windowMs - now) / 1000));
  return {
    what,
    retryAfterSeconds,
    message: `Too many failed sign-ins for this ${what === "address" ? "network address" : "account"}. Try again in ${Math.ceil(retryAfterSeconds / 60)} minute(s), or sign in with GitHub / your identity provider.`,
  };
}

/**
 * The rule on counts: `counts[i]` is bucket i's count, `before` what the pair had before this attempt
 * (0 for a pair with no earlier attempts this window). `over(count, limit)` says when a count is past it.
 */
function decide(
  list: Bucket[],
  counts: number[],
  before: number,
  over: (count: number, limit: number) => boolean,
): Bucket | null {
  const [gate, ...wider] = list;
  if (over(counts[0]!, gate!.limit)) return gate!;
  if (before === 0) return null;
  return wider.find((b, i) => over(counts[i + 1]!, b.limit)) ?? null;
}

/** Whether a password sign-in for `email` from `address` would be refused right now (nothing counted): the sign-in route's early 429. */
export async function signInRefusal(
  db: DbOrTx,
  params: { email: string; address: string; store?: CounterStore; now?: number },
): Promise<SignInRefusal | null> {
  const store = params.store ?? defaultCounter(db);
  const now = params.now ?? Date.now();
  const windowStart = windowStartOf(now, SIGN_IN_THROTTLE.windowMs);
  const list = buckets(params.email, params.address);
  const counts: number[] = [];
  for (const { bucket } of list) counts.push(await store.peek(bucket, windowStart));
  const refused = decide(list, counts, counts[0]!, (count, limit) => count >= limit);
  return refused ? refusal(refused.what, windowStart, now) : null;
}

export type SignInAttempt = {
  /** Set when the attempt is refused: its password must not be checked. */
  refusal: SignInRefusal | null;
  /** After the password check: a success is taken back off the counters; a failure that reached a limit is audited. */
  settle(success: boolean): Promise<void>;
};

/**
 * Counts a password sign-in attempt before its password is checked (atomic increments) and decides on
 * the counts returned. Call `settle` with the outcome when the attempt is not refused.
 */
export async function beginSignInAttempt(
  db: Database,
  params: { email: string; address: string; store?: CounterStore; now?: number },
): Promise<SignInAttempt> {
  const store = params.store ?? defaultCounter(db);
  const now = params.now ?? Date.now();
  const windowStart = windowStartOf(now, SIGN_IN_THROTTLE.windowMs);
  const list = buckets(params.email, params.address);
  const counts: number[] = [];
  for (const { bucket } of list) counts.push(await store.hit(bucket, windowStart, SIGN_IN_THROTTLE.windowMs));
  const refused = decide(list, counts, counts[0]! - 1, (count, limit) => count > limit);
  if (refused) return { refusal: refusal(refused.what, windowStart, now), settle: async () => {} };
  const reached = list.filter((b, i) => counts[i] === b.limit).map((b) => b.what);
  return {
    refusal: null,
    async settle(success) {
      if (success) {
        for (const { bucket } of list) await store.hit(bucket, windowStart, SIGN_IN_THROTTLE.windowMs, -1);
      } else if (reached.length > 0) {
        await auditLockout(db, params, reached, new Date(windowStart + SIGN_IN_THROTTLE.windowMs).toISOString());
      }
    },
  };
}

async function auditLockout(
  db: Database,
  params: { email: string; address: string },
  reached: string[],
  until: string,
): Promise<void> {
  log("warn", "sign-in locked: too many failed passwords", {
    email: normalizeEmail(params.email),
    address: params.address,
    limits: reached,
    until,
  });
  await db.transaction(async (tx) => {
    const user = await findUserByEmail(tx, params.email);
    if (!user) return;
    const memberships = await tx
      .select({ tenantId: tenantMembers.tenantId })
      .from(tenantMembers)
      .where(eq(tenantMembers.userId, user.id));
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
 * Deletes sign-in counters (Postgres) whose window ended more than a window ago: older than twice the
 * window's length. Each account and address guessed at leaves a row, and nothing else removes them
 * (Redis keys expire by themselves). Run by the periodic maintenance (jobs/maintenance.ts).
 */
export async function pruneSignInCounters(db: DbOrTx, now = Date.now()): Promise<number> {
  const gone = await db
    .delete(rateLimitBuckets)
    .where(
      and(
        like(rateLimitBuckets.bucket, "signin:%"),
        lt(rateLimitBuckets.windowStart, now - 2 * SIGN_IN_THROTTLE.windowMs),
      ),
    )
    .returning({ bucket: rateLimitBuckets.bucket });
  return gone.length;
}

/**
 * The sign-in route's check before next-auth runs: a password sign-in (POST …/callback/credentials)
 * that is throttled gets 429 with Retry-After, in the JSON shape next-auth's client reads (`url` with
 * `error=TooManyAttempts`); anything else null.
 */
export async function throttledSignInResponse(req: Request, db: DbOrTx): Promise<Response | null> {
  if (req.method !== "POST" || !new URL(req.url).pathname.endsWith("/callback/credentials")) return null;
  const form = await req
    .clone()
    .formData()
    .catch(() => null);
  const email = form?.get("email");
  if (typeof email !== "string" || !email) return null;
  const refusal = await signInRefusal(db, { email, address: clientAddress(req.headers) });
  if (!refusal) return null;
  const url = new URL("/sign-in?error=TooManyAttempts", req.url).toString();
  return Response.json(
    { url, error: "TooManyAttempts", message: refusal.message },
    { status: 429, headers: { "retry-after": String(refusal.retryAfterSeconds) } },
  );
}
