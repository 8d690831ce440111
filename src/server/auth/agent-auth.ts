import { eq, sql } from "drizzle-orm";
import type { DbOrTx } from "~/db/types";
import { apiKeys, type ApiKey } from "~/db/schema";
import { admitApiKey, presentedKeyHash } from "./api-keys";
import { keyGrantRowsSql, keyScopeLimitsFrom, type EffectiveScopes } from "./permissions";

export type AgentCredentials = { apiKey: ApiKey; limits: EffectiveScopes };

/**
 * An agent call's key and the scopes it reaches (key scopes ∩ owner grants), read in one statement:
 * every tool call needs both, and a round trip costs more here than either lookup.
 */
export async function authenticateAgentKey(db: DbOrTx, secret: string): Promise<AgentCredentials> {
  const [row] = await db
    .select({ key: apiKeys, grants: sql<string>`${keyGrantRowsSql({ tenantId: apiKeys.tenantId, ownerUserId: apiKeys.ownerUserId, id: apiKeys.id })}` })
    .from(apiKeys)
    .where(eq(apiKeys.keyHash, presentedKeyHash(secret)))
    .limit(1);
  const apiKey = await admitApiKey(db, row?.key);
  return { apiKey, limits: keyScopeLimitsFrom(apiKey, row!.grants) };
}
