import type { Database } from "~/db/types";
import { recordAudit } from "~/server/memory";
import { listMemberships } from "./accounts";
import { closeAllSessionRecords } from "./session-records";

/**
 * Ends every session of one person (each stops on its next request) and audits it in each of their
 * organisations, all in one transaction. Returns how many sessions ended.
 */
export async function signOutEverywhere(db: Database, userId: string): Promise<{ sessionsEnded: number }> {
  return db.transaction(async (tx) => {
    const sessionsEnded = await closeAllSessionRecords(tx, userId);
    for (const { tenantId } of await listMemberships(tx, userId)) {
      await recordAudit(
        tx,
        { tenantId, actor: { type: "user", id: userId } },
        {
          eventType: "member",
          reason: "signed out everywhere",
          before: { userId },
          after: { userId },
          metadata: { sessionsEnded, self: true },
        },
      );
    }
    return { sessionsEnded };
  });
}
