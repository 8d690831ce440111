import { and, eq, gt, isNull, or, sql } from "drizzle-orm";
import { PgTransaction } from "drizzle-orm/pg-core";
import type { DbOrTx } from "~/db/types";
import { apiKeys, type ApiKey } from "~/db/schema";
import { countHitSql, keyBucketSql } from "~/server/rate-limit/limiter";
import { admitApiKey, presentedKeyHash } from "./api-keys";
import { keyGrantRowsSql, keyScopeLimitsFrom, type EffectiveScopes } from "./permissions";

export type AgentCredentials = { apiKey: ApiKey; limits: EffectiveScopes };

/** Count this call against the key's per-minute limit in the key lookup itself (Postgres counter). */
export type CallCounting = { windowStart: number; defaultLimit: number };

/**
 * The rate-limit hit of a live key (not revoked, not expired, with a limit), as a CTE of the key
 * lookup. Its commit does not wait for the WAL flush (`synchronous_commit` off for this statement
 * only): a crash may forget the last few counts, never memory. Inside a caller's transaction the
 * setting would outlive the statement, so there the commit waits as usual.
 */
function countedCallCte(db: DbOrTx, hash: string, counting: CallCounting) {
  const liveKeyWithLimit = and(
    eq(apiKeys.keyHash, hash),
    isNull(apiKeys.revokedAt),
    or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, sql`now()`)),
    sql`coalesce(${apiKeys.rateLimitPerMinute}, ${counting.defaultLimit}) > 0`,
  );
  const asyncCommit =
    db instanceof PgTransaction ? sql`` : sql`, (select set_config('synchronous_commit', 'off', true)) as async_commit`;
  return db
    .$with("counted_call", { count: sql<number>`count`.as("count") })
    .as(countHitSql(keyBucketSql, counting.windowStart, sql`from ${apiKeys}${asyncCommit} where ${liveKeyWithLimit}`));
}

/**
 * An agent call's key and the scopes it reaches (key scopes ∩ owner grants), read in one statement:
 * every tool call needs both, and a round trip costs more here than either lookup. With `counting`,
 * the same statement also counts the call against the key's rate limit (`callCount`; null when
 * nothing was counted: no live key, or no limit), saving a round trip and a WAL flush per call.
 */
export async function authenticateAgentKey(
  db: DbOrTx,
  secret: string,
  counting?: CallCounting,
): Promise<AgentCredentials & { callCount: number | null }> {
  const hash = presentedKeyHash(secret);
  const columns = {
    key: apiKeys,
    grants: sql<string>`${keyGrantRowsSql({ tenantId: apiKeys.tenantId, ownerUserId: apiKeys.ownerUserId, id: apiKeys.id })}`,
  };
  let row: { key: ApiKey; grants: string; callCount?: number | string | null } | undefined;
  if (counting) {
    const counted = countedCallCte(db, hash, counting);
    [row] = await db
      .with(counted)
      .select({ ...columns, callCount: sql<number | string | null>`(select ${counted.count} from ${counted})` })
      .from(apiKeys)
      .where(eq(apiKeys.keyHash, hash))
      .limit(1);
  } else {
    [row] = await db.select(columns).from(apiKeys).where(eq(apiKeys.keyHash, hash)).limit(1);
  }
  const apiKey = await admitApiKey(db, row?.key);
  const callCount = row?.callCount === undefined || row.callCount === null ? null : Number(row.callCount);
  return { apiKey, limits: keyScopeLimitsFrom(apiKey, row!.grants), callCount };
}
