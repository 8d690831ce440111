import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "~/db/types";
import { apiKeys } from "~/db/schema";
import { effectiveUserScopes, keyScopeLimits } from "~/server/auth/permissions";
import type { ScopePattern } from "~/server/memory";

type Capturer = { capturedByType: "user" | "api_key" | "system"; capturedById: string | null };

/** `null`: no limit (the system captured it). */
export type CapturerWriteScopes = readonly ScopePattern[] | null;

/**
 * Where the extractor may write what it derives from a message: only where whoever captured the
 * message may write now — an API key's scopes within its owner's grants (as `message_append` checks
 * for the session), a person's grants. Without this, a capture-only key could put cards into a profile
 * or workspace an admin had taken its write access to. A revoked or expired key, or a person no longer
 * a member, authorises nothing. Read once per capturer for a run.
 */
export function capturerWriteScopes(db: DbOrTx, tenantId: string) {
  const known = new Map<string, Promise<CapturerWriteScopes>>();
  const load = async ({ capturedByType: type, capturedById: id }: Capturer): Promise<CapturerWriteScopes> => {
    if (type === "system") return null;
    if (!id) return [];
    if (type === "user") return (await effectiveUserScopes(db, { tenantId, userId: id })).write;
    const [key] = await db
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.tenantId, tenantId), eq(apiKeys.id, id)));
    if (!key || key.revokedAt || (key.expiresAt && key.expiresAt.getTime() <= Date.now())) return [];
    return (await keyScopeLimits(db, key)).write;
  };
  return (capturer: Capturer): Promise<CapturerWriteScopes> => {
    const id = `${capturer.capturedByType}:${capturer.capturedById ?? ""}`;
    let scopes = known.get(id);
    if (!scopes) known.set(id, (scopes = load(capturer)));
    return scopes;
  };
}
