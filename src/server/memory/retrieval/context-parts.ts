import { and, desc, eq, gt, isNull, or, sql, type SQL } from "drizzle-orm";
import { memoryMessages, memoryNodes, STANDING_CARDS_PREDICATE } from "~/db/schema";
import type { DbOrTx } from "~/db/types";
import { selectNodeRecords } from "../node-records";
import { toMemoryNode, type MemoryNode } from "../node-view";
import type { ScopePattern } from "../scope";
import { scopePatternsCondition } from "../scope-sql";
import { evidenceScopeCondition } from "./evidence";

/** The parts of a turn's recall that do not depend on what the user just said. */

export type RecentMessage = { id: string; role: "system" | "user" | "assistant" | "tool"; content: string; createdAt: Date };

/** The session's latest messages the caller may read (session or owner scope), newest first. */
export async function loadRecentMessages(db: DbOrTx, params: { tenantId: string; scopes: readonly ScopePattern[]; sessionId: string; limit: number }): Promise<RecentMessage[]> {
  if (params.limit <= 0) return [];
  return db
    .select({ id: memoryMessages.id, role: memoryMessages.role, content: memoryMessages.content, createdAt: memoryMessages.createdAt })
    .from(memoryMessages)
    .where(and(eq(memoryMessages.tenantId, params.tenantId), eq(memoryMessages.sessionId, params.sessionId), evidenceScopeCondition(memoryMessages, params.scopes)))
    .orderBy(desc(memoryMessages.seq))
    .limit(params.limit);
}

/** Standing cards read per turn; conflict resolution and the budget decide what is shown. */
const MAX_STANDING = 200;

/**
 * Current cards that matter whatever the user said: the always-recalled kinds (interaction
 * contract, language, accessibility, communication, hard constraints), active tasks, constraints
 * and preferences. Most important first.
 */
export async function loadStandingNodes(db: DbOrTx, params: StandingParams): Promise<MemoryNode[]> {
  const rows = await selectNodeRecords(db, standingNodesQuery(params));
  return rows.map(toMemoryNode);
}

type StandingParams = { tenantId: string; scopes: readonly ScopePattern[]; now: Date };

/** The standing query after its select list: `where … order by … limit` (tenant first). */
export function standingNodesQuery(params: StandingParams): SQL {
  const where = and(
    eq(memoryNodes.tenantId, params.tenantId),
    scopePatternsCondition(params.scopes),
    or(isNull(memoryNodes.expiresAt), gt(memoryNodes.expiresAt, params.now)),
    // memory_nodes_standing_idx's own predicate (the always-recalled kinds and the standing types), as
    // literal text so that the planner can read that index in a cached plan too.
    sql.raw(STANDING_CARDS_PREDICATE),
  );
  return sql`where ${where} order by ${memoryNodes.importance} desc, ${memoryNodes.confidence} desc, ${memoryNodes.updatedAt} desc limit ${MAX_STANDING}`;
}
