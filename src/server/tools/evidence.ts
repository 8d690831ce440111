import { and, desc, eq } from "drizzle-orm";
import type { DbOrTx } from "~/db/types";
import { memoryMessages } from "~/db/schema";
import { resolveTrustedMessageIds } from "~/server/memory";

/** How far back a write may cite evidence: the session's latest messages only (this turn's: docs/memory-model.md). */
export const EVIDENCE_WINDOW_MESSAGES = 50;

/**
 * The cited ids a write may use as `sourceMessageIds`: messages of this tenant's session (captured
 * by message_append) among the session's latest EVIDENCE_WINDOW_MESSAGES. Anything else is left out,
 * and the write then rejects it as untrusted.
 */
export async function trustedEvidenceIds(
  db: DbOrTx,
  params: { tenantId: string; sessionId: string; ids: readonly string[] },
): Promise<string[]> {
  const inSession = await resolveTrustedMessageIds(db, params);
  if (inSession.length === 0) return [];
  const recent = await db
    .select({ id: memoryMessages.id })
    .from(memoryMessages)
    .where(and(eq(memoryMessages.tenantId, params.tenantId), eq(memoryMessages.sessionId, params.sessionId)))
    .orderBy(desc(memoryMessages.seq))
    .limit(EVIDENCE_WINDOW_MESSAGES);
  const window = new Set(recent.map((row) => row.id));
  return inSession.filter((id) => window.has(id));
}
