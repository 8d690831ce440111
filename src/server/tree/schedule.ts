import { tenants } from "~/db/schema";
import type { Database } from "~/db/types";
import { enqueueOnce } from "~/server/jobs/queue";

/** The tree's daily work per tenant: yesterday's digest (L2) and one day of hotness decay; each runs once per day. */
export async function scheduleTreeDailyJobs(db: Database, now = new Date()) {
  const today = now.toISOString().slice(0, 10);
  const yesterday = new Date(now.getTime() - 86_400_000).toISOString().slice(0, 10);
  let scheduled = 0;
  for (const { id } of await db.select({ id: tenants.id }).from(tenants)) {
    if (
      await enqueueOnce(db, {
        tenantId: id,
        type: "digest",
        dedupeKey: `digest:${yesterday}`,
        payload: { day: yesterday },
      })
    )
      scheduled++;
    if (await enqueueOnce(db, { tenantId: id, type: "hotness_decay", dedupeKey: `hotness_decay:${today}` }))
      scheduled++;
  }
  return scheduled;
}
