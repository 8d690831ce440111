import { createHash } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { startNow } from "~/db/start-now";
import type { DbOrTx, Transaction } from "~/db/types";
import { idempotencyKeys } from "~/db/schema";
import { ServiceError } from "~/server/errors";

type IdempotencyParams = { tenantId: string; principalId: string; key: string; hash: string };

export const requestHash = (body: unknown) => createHash("sha256").update(JSON.stringify(body)).digest("hex");

/**
 * The stored answer for a retried call, if any. The same key with a different body is a client bug
 * (two different writes would collapse into one), so it is refused instead of replayed.
 */
export async function findIdempotentResponse<T>(db: DbOrTx, params: IdempotencyParams): Promise<T | undefined> {
  const [row] = await db
    .select()
    .from(idempotencyKeys)
    .where(
      and(
        eq(idempotencyKeys.tenantId, params.tenantId),
        eq(idempotencyKeys.principalId, params.principalId),
        eq(idempotencyKeys.key, params.key),
      ),
    )
    .limit(1);
  if (!row) return undefined;
  if (row.requestHash !== params.hash) {
    throw new ServiceError(
      "CONFLICT",
      "idempotency_key_reused",
      `Idempotency key "${params.key}" was already used for a different request. Use a new key for a new request.`,
    );
  }
  return row.response as T;
}

/**
 * Stored in the same transaction as the writes it answers for; a concurrent twin hits the primary key
 * and retries into a replay. Started at once (not at the caller's await): it may travel with the
 * COMMIT (pipelined.ts).
 */
export function storeIdempotentResponse(
  db: DbOrTx,
  params: { tenantId: string; principalId: string; key: string; hash: string; response: unknown },
): Promise<unknown> {
  return startNow(
    db.insert(idempotencyKeys).values({
      tenantId: params.tenantId,
      principalId: params.principalId,
      key: params.key,
      requestHash: params.hash,
      response: params.response,
    }),
  );
}

/**
 * Holds the key until the transaction ends and returns the answer stored by then, if any: a twin
 * sent while the first call is still running waits here for it to commit and replays its answer,
 * instead of acting on what the first call left behind (a card it already deleted reads as a conflict).
 */
export async function claimIdempotencyKey<T>(tx: Transaction, params: IdempotencyParams): Promise<T | undefined> {
  await tx.execute(
    sql`select pg_advisory_xact_lock(hashtextextended(${`idempotency|${params.tenantId}|${params.principalId}|${params.key}`}, 0))`,
  );
  return findIdempotentResponse<T>(tx, params);
}
