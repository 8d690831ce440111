import { and, eq, gte, sql } from "drizzle-orm";
import type { DbOrTx } from "~/db/types";
import { memoryMessages, memoryNodes } from "~/db/schema";
import { EXTRACTOR_ACTOR_ID } from "./extract-coverage";

const HOUR_MS = 3_600_000;

/**
 * The cap on what the extractor writes from one session: at most `limit` cards from the session's
 * messages of any hour (by when they were said), so a flood of chit-chat does not flood memory.
 * Loaded once per extraction run (the cards the extractor already wrote from the hour before the
 * run's first message), then kept up to date as the run writes.
 */
export async function sessionCardCap(
  db: DbOrTx,
  params: { tenantId: string; sessionId: string; from: Date | undefined; limit: number },
) {
  const written: number[] = [];
  if (params.from) {
    const rows = await db
      .select({ at: memoryMessages.createdAt })
      .from(memoryNodes)
      .innerJoin(
        memoryMessages,
        and(
          eq(memoryMessages.tenantId, memoryNodes.tenantId),
          sql`${memoryMessages.id} = ${memoryNodes.sourceMessageIds}[1]`,
        ),
      )
      .where(
        and(
          eq(memoryNodes.tenantId, params.tenantId),
          eq(memoryNodes.createdByType, "system"),
          eq(memoryNodes.createdById, EXTRACTOR_ACTOR_ID),
          eq(memoryMessages.sessionId, params.sessionId),
          gte(memoryMessages.createdAt, new Date(params.from.getTime() - HOUR_MS)),
        ),
      );
    written.push(...rows.map((row) => row.at.getTime()));
  }
  return {
    /** Whether another card from a message said at `at` stays within the cap. */
    allows(at: Date) {
      const since = at.getTime() - HOUR_MS;
      return written.filter((t) => t > since && t <= at.getTime()).length < params.limit;
    },
    wrote(at: Date) {
      written.push(at.getTime());
    },
  };
}
