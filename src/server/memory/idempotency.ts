import { createHash } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { startNow } from "~/db/start-now";
import type { DbOrTx } from "~/db/types";
import { idempotencyKeys } from "~/db/schema";
import { ServiceError } from "~/server/errors";

export const requestHash = (body: unknown) => createHash("sha256").update(JSON.stringify(body)).digest("hex");

/**
 * The stored answer for a retried call, if any. The same key with a different body is a client bug
 * (two different writes would collapse into one), so it is refused instead of replayed.
 */
export async function findIdempotentResponse<T>(db: DbOrTx, params: { tenantId: string; principalId: string; key: string; hash: string }): Promise<T | undefined> {
  const [row] = await db
    .select()
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.tenantId, params.tenantId), eq(idempotencyKeys.principalId, params.principalId), eq(idempotencyKeys.key, params.key)))
    .limit(1);
  if (!row) return undefined;
  if (row.requestHash !== params.hash) {
    throw new ServiceError("CONFLICT", "idempotency_key_reused", `Idempotency key "${params.key}" was already used for a different request. Use a new key for a new request.`);
  }
  return row.response as T;
}

/**
 * Stored in the same transaction as the writes it answers for; a concurrent twin hits the primary key
 * and retries into a replay. Started at once (not at the caller's await): it may travel with the
 * COMMIT (pipelined.ts).
 */
export function storeIdempotentResponse(db: DbOrTx, params: { tenantId: string; principalId: string; key: string; hash: string; response: unknown }): Promise<unknown> {
  return startNow(db.insert(idempotencyKeys).values({ tenantId: params.tenantId, principalId: params.principalId, key: params.key, requestHash: params.hash, response: params.response }));
}
