import { asc } from "drizzle-orm";
import { tenants } from "~/db/schema";
import { EVERYTHING } from "~/server/auth/permissions";
import { getHealth } from "~/server/health";
import { pruneExpiredRecords, retentionPolicyFromEnv } from "~/server/jobs/retention";
import { reindexSearchText } from "~/server/memory";
import { getTenantOverview } from "~/server/stats/overview";
import { firstTenantId, out, type CliCommand } from "./command";
import { treeStats } from "./tree-commands";

/* Health and upkeep: totals, rebuilding search text, pruning what is past its retention. */

/** `stats`: database health, then totals per organisation. */
export const stats: CliCommand = async ({ db, handle }) => {
  const health = await getHealth(handle);
  out(
    `database: ${health.database.mode}, schema ${health.database.schemaVersion}, postgres ${health.database.postgres}, vector ${health.database.extensions.vector ?? "missing"}, pg_trgm ${health.database.extensions.pg_trgm ?? "missing"}`,
  );
  for (const t of await db.select().from(tenants).orderBy(asc(tenants.createdAt))) {
    const o = await getTenantOverview(db, { tenantId: t.id, readScopes: EVERYTHING });
    out(
      `${t.name} (${t.id}): ${o.activeMemories} active memories, ${o.messages} messages in ${o.sessions} sessions, ${o.activeKeys} keys, ${o.members} members`,
    );
    await treeStats(db, t.id);
  }
  return 0;
};

/** `reindex-text`: search text rebuilt after an upgrade that changes how text is indexed. */
export const reindexText: CliCommand = async ({ db, options }) => {
  // Every organisation unless --tenant names one: the upgrade concerns them all.
  const ids = options.tenant
    ? [await firstTenantId(db, options.tenant)]
    : (await db.select({ id: tenants.id }).from(tenants)).map((t) => t.id);
  for (const tenantId of ids) {
    const changed = await reindexSearchText(db, { tenantId });
    out(
      `${tenantId}: search text rebuilt in ${Object.entries(changed)
        .map(([table, n]) => `${table} ${n}`)
        .join(", ")} row(s).`,
    );
  }
  return 0;
};

/** `prune`: rows past their retention deleted now. */
export const prune: CliCommand = async ({ db }) => {
  const policy = retentionPolicyFromEnv();
  const pruned = await pruneExpiredRecords(db, policy);
  out(
    `Pruned ${pruned.queryLog} query log rows (kept ${policy.queryLogDays || "all"} days), ${pruned.idempotencyKeys} idempotency replies (${policy.idempotencyDays || "all"} days), ${pruned.jobs} finished jobs (${policy.finishedJobDays || "all"} days).`,
  );
  return 0;
};
