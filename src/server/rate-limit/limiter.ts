import { sql, type SQL } from "drizzle-orm";
import { queryRows } from "~/db/raw";
import type { DbOrTx } from "~/db/types";
import { env } from "~/env";
import { apiKeys, rateLimitBuckets, type ApiKey } from "~/db/schema";
import { ServiceError } from "~/server/errors";
import { log } from "~/server/log";
import { RedisClient } from "./redis";

/**
 * Fixed-window counters shared by every app instance: in Postgres (`rate_limit_buckets`, one atomic
 * upsert per call) or in Redis when REDIS_URL is set (INCR + PEXPIRE in one script). A broken Redis
 * falls back to Postgres rather than letting every call through or refusing every call.
 */

export const RATE_LIMIT_WINDOW_MS = 60_000;

export type CounterStore = {
  readonly name: "postgres" | "redis";
  /**
   * Counts `amount` hits (default 1) in the window starting at `windowStart` (ms) and returns the window's
   * count so far. A negative amount takes hits back (sign-in throttling undoes a successful attempt).
   */
  hit(bucket: string, windowStart: number, windowMs: number, amount?: number): Promise<number>;
  /** The window's count so far, counting nothing (0 for a window with no hits). */
  peek(bucket: string, windowStart: number): Promise<number>;
};

/**
 * The one statement that counts a hit in Postgres: a hit from a newer window restarts the count;
 * one from an older window (a slow clock on another instance) counts against the current one
 * instead of resetting it. `source` is a FROM clause the bucket expression reads (empty for a
 * literal bucket); agent calls fold it into their key lookup (auth/agent-auth.ts).
 */
export function countHitSql(bucket: SQL, windowStart: number, source: SQL = sql``, amount = 1): SQL {
  const hits = sql.raw(String(hitAmount(amount)));
  // A take-back (negative amount) never leaves a new window below 0.
  return sql`insert into ${rateLimitBuckets} (bucket, window_start, count)
    select ${bucket}, ${windowStart}::bigint, greatest(${hits}, 0) ${source}
    on conflict (bucket) do update
      set count = case when ${rateLimitBuckets.windowStart} >= excluded.window_start then ${rateLimitBuckets.count} + ${hits} else greatest(${hits}, 0) end,
          window_start = greatest(${rateLimitBuckets.windowStart}, excluded.window_start)
    returning count`;
}

/** Hits to count: a whole number, at least 1, or negative to take hits back. */
const hitAmount = (amount: number) => {
  const n = Math.trunc(amount);
  return n < 0 ? n : Math.max(1, n);
};

export function postgresCounter(db: DbOrTx): CounterStore {
  return {
    name: "postgres",
    async hit(bucket, windowStart, _windowMs, amount = 1) {
      const [row] = await queryRows<{ count: number | string }>(
        db,
        countHitSql(sql`${bucket}`, windowStart, sql``, amount),
      );
      return Number(row!.count);
    },
    async peek(bucket, windowStart) {
      const [row] = await queryRows<{ count: number | string }>(
        db,
        sql`select count from ${rateLimitBuckets} where bucket = ${bucket} and window_start = ${windowStart}::bigint`,
      );
      return Number(row?.count ?? 0);
    },
  };
}

const INCR_SCRIPT =
  "local c = redis.call('INCRBY', KEYS[1], ARGV[2]) if c == tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end return c";

export function redisCounter(client: RedisClient): CounterStore {
  return {
    name: "redis",
    async hit(bucket, windowStart, windowMs, amount = 1) {
      const reply = await client.command([
        "EVAL",
        INCR_SCRIPT,
        1,
        `memory:rl:${bucket}:${windowStart}`,
        windowMs * 2,
        hitAmount(amount),
      ]);
      if (typeof reply !== "number") throw new Error(`unexpected Redis reply ${JSON.stringify(reply)}`);
      return reply;
    },
    async peek(bucket, windowStart) {
      const reply = await client.command(["GET", `memory:rl:${bucket}:${windowStart}`]);
      return reply === null ? 0 : Number(reply);
    },
  };
}

/** Redis when configured, with Postgres as the fallback for each failed hit. */
export function fallbackCounter(primary: CounterStore, fallback: CounterStore): CounterStore {
  let warned = 0;
  return {
    name: primary.name,
    async hit(bucket, windowStart, windowMs, amount) {
      try {
        return await primary.hit(bucket, windowStart, windowMs, amount);
      } catch (error) {
        if (Date.now() - warned > 60_000) {
          warned = Date.now();
          log(
            "warn",
            `rate limit: ${primary.name} unavailable, counting in ${fallback.name}: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
        return fallback.hit(bucket, windowStart, windowMs, amount);
      }
    },
    async peek(bucket, windowStart) {
      try {
        return await primary.peek(bucket, windowStart);
      } catch {
        return fallback.peek(bucket, windowStart);
      }
    },
  };
}

let sharedRedis: RedisClient | null = null;

/** The counter store for this process: Redis (REDIS_URL) falling back to Postgres, else Postgres. */
export function defaultCounter(db: DbOrTx): CounterStore {
  if (!env.REDIS_URL) return postgresCounter(db);
  sharedRedis ??= new RedisClient(env.REDIS_URL);
  return fallbackCounter(redisCounter(sharedRedis), postgresCounter(db));
}

export type RateLimitDecision = {
  allowed: boolean;
  limit: number;
  count: number;
  remaining: number;
  resetAt: Date;
  retryAfterSeconds: number;
};

export const windowStartOf = (now: number, windowMs = RATE_LIMIT_WINDOW_MS) => Math.floor(now / windowMs) * windowMs;

/** What a window's count (this hit included) means for a caller with `limit` calls per window. */
export function rateLimitDecision(
  count: number,
  params: { limit: number; windowStart: number; now: number; windowMs?: number },
): RateLimitDecision {
  const resetAt = new Date(params.windowStart + (params.windowMs ?? RATE_LIMIT_WINDOW_MS));
  return {
    allowed: count <= params.limit,
    limit: params.limit,
    count,
    remaining: Math.max(0, params.limit - count),
    resetAt,
    retryAfterSeconds: Math.max(1, Math.ceil((resetAt.getTime() - params.now) / 1000)),
  };
}

export async function consumeRateLimit(
  store: CounterStore,
  params: {
    bucket: string;
    limit: number;
    windowMs?: number;
    now?: number;
    /** Calls this request makes (a batch); default 1. */ amount?: number;
  },
): Promise<RateLimitDecision> {
  const windowMs = params.windowMs ?? RATE_LIMIT_WINDOW_MS;
  const now = params.now ?? Date.now();
  const windowStart = windowStartOf(now, windowMs);
  const count = await store.hit(params.bucket, windowStart, windowMs, params.amount);
  return rateLimitDecision(count, { limit: params.limit, windowStart, now, windowMs });
}

/** Calls per minute for a key: its own setting, else RATE_LIMIT_PER_MINUTE; 0 means unlimited. */
export const keyRateLimit = (apiKey: Pick<ApiKey, "rateLimitPerMinute">, defaultLimit = env.RATE_LIMIT_PER_MINUTE) =>
  apiKey.rateLimitPerMinute ?? defaultLimit;

/**
 * Counts one agent call against its key and refuses it (TOO_MANY_REQUESTS, with when to retry)
 * once the key is over its per-minute limit. Refused calls change nothing else.
 */
export async function enforceKeyRateLimit(
  db: DbOrTx,
  apiKey: Pick<ApiKey, "tenantId" | "id" | "prefix" | "rateLimitPerMinute">,
  options: { store?: CounterStore; now?: number } = {},
): Promise<RateLimitDecision | null> {
  const limit = keyRateLimit(apiKey);
  if (limit <= 0) return null;
  return refuseOverLimit(
    apiKey,
    await consumeRateLimit(options.store ?? defaultCounter(db), { bucket: keyBucket(apiKey), limit, now: options.now }),
  );
}

/** A key's counter; `keyBucketSql` is the same name computed from an api_keys row in SQL. */
export const keyBucket = (apiKey: Pick<ApiKey, "tenantId" | "id">) => `key:${apiKey.tenantId}:${apiKey.id}`;
export const keyBucketSql = sql`'key:' || ${apiKeys.tenantId} || ':' || ${apiKeys.id}`;

/** Passes an allowed decision through; refuses one over the limit with when to retry. */
export function refuseOverLimit(apiKey: Pick<ApiKey, "prefix">, decision: RateLimitDecision): RateLimitDecision {
  if (!decision.allowed) {
    throw new ServiceError(
      "TOO_MANY_REQUESTS",
      "rate_limited",
      `API key ${apiKey.prefix}… made more than ${decision.limit} calls this minute. Wait ${decision.retryAfterSeconds} s (until ${decision.resetAt.toISOString()}) and retry; ask an admin for a higher limit if this is normal load.`,
      { retryAfterSeconds: decision.retryAfterSeconds, limit: decision.limit, resetAt: decision.resetAt.toISOString() },
    );
  }
  return decision;
}

/** Whether hits are counted in Postgres (no REDIS_URL): then an agent call counts in its key lookup. */
export const countsInPostgres = () => !env.REDIS_URL;

/**
 * Dashboard calls per signed-in person per minute (DASHBOARD_RATE_LIMIT_PER_MINUTE; 0 = off), counted
 * where agent keys are counted (Postgres or Redis), so every instance sees the same count. A batch
 * counts one per call. Over the limit: TOO_MANY_REQUESTS with when to retry.
 */
export async function enforceUserRateLimit(
  db: DbOrTx,
  userId: string,
  options: { calls?: number; limit?: number; store?: CounterStore; now?: number } = {},
): Promise<RateLimitDecision | null> {
  const limit = options.limit ?? env.DASHBOARD_RATE_LIMIT_PER_MINUTE;
  if (limit <= 0) return null;
  const decision = await consumeRateLimit(options.store ?? defaultCounter(db), {
    bucket: `user:${userId}`,
    limit,
    now: options.now,
    amount: options.calls,
  });
  if (!decision.allowed) {
    throw new ServiceError(
      "TOO_MANY_REQUESTS",
      "rate_limited",
      `You made more than ${decision.limit} dashboard calls this minute. Wait ${decision.retryAfterSeconds} s and retry; an operator can raise DASHBOARD_RATE_LIMIT_PER_MINUTE if this is normal use.`,
      { retryAfterSeconds: decision.retryAfterSeconds, limit: decision.limit, resetAt: decision.resetAt.toISOString() },
    );
  }
  return decision;
}
