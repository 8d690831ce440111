import type { DbOrTx } from "~/db/types";
import { env } from "~/env";
import {
  countsInPostgres,
  enforceKeyRateLimit,
  keyRateLimit,
  rateLimitDecision,
  refuseOverLimit,
  windowStartOf,
  type CounterStore,
} from "~/server/rate-limit/limiter";
import { authenticateAgentKey, type AgentCredentials } from "./agent-auth";

/**
 * A tool call's admission: the key checked (unknown, revoked, expired keys refused) and the call
 * counted against the key's per-minute limit (refused past it, with when to retry). With the
 * Postgres counter both happen in one statement; with Redis (or a `store` given by a test) the
 * count is a second step, as before.
 */
export async function admitMeteredAgentCall(
  db: DbOrTx,
  secret: string,
  /** `defaultLimit`: calls per minute for keys without their own (default RATE_LIMIT_PER_MINUTE). */
  options: { store?: CounterStore; now?: number; defaultLimit?: number } = {},
): Promise<AgentCredentials> {
  const now = options.now ?? Date.now();
  if (options.store || !countsInPostgres()) {
    const credentials = await authenticateAgentKey(db, secret);
    await enforceKeyRateLimit(db, credentials.apiKey, { store: options.store, now });
    return { apiKey: credentials.apiKey, limits: credentials.limits };
  }
  const windowStart = windowStartOf(now);
  const defaultLimit = options.defaultLimit ?? env.RATE_LIMIT_PER_MINUTE;
  const { apiKey, limits, callCount } = await authenticateAgentKey(db, secret, { windowStart, defaultLimit });
  const limit = keyRateLimit(apiKey, defaultLimit);
  if (limit > 0 && callCount !== null)
    refuseOverLimit(apiKey, rateLimitDecision(callCount, { limit, windowStart, now }));
  return { apiKey, limits };
}
