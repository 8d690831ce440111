import { and, desc, eq, gt, isNull, or, sql, type SQL } from "drizzle-orm";
import { queryRows } from "~/db/raw";
import { memoryKinds, memoryMessages, memoryNodes, STANDING_CARDS_PREDICATE } from "~/db/schema";
import type { DbOrTx } from "~/db/types";
import { RECORD_COLUMNS, RECORD_OF_ROW, recordFromJson } from "../node-records";
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
/** Cards of an organisation's own always-recalled kinds read per turn, besides the standing ones. */
const MAX_CUSTOM_ALWAYS = 50;

export type StandingNodes = {
  nodes: MemoryNode[];
  /** Ids of cards whose kind an admin defined with `alwaysRecall` (their kinds are not built in). */
  customAlwaysIds: ReadonlySet<string>;
};

type StandingParams = { tenantId: string; scopes: readonly ScopePattern[]; now: Date };

/**
 * Current cards that matter whatever the user said: the always-recalled kinds (interaction contract,
 * language, accessibility, communication, hard constraints), the user's profile, active tasks,
 * constraints, preferences, decisions and workspace facts — most important first — and, in the same
 * statement, cards of the organisation's custom kinds marked `alwaysRecall` whatever their type (none
 * when it has no such kind: the second branch then reads no card).
 */
export async function loadStandingNodes(db: DbOrTx, params: StandingParams): Promise<StandingNodes> {
  const customAlways = sql`${memoryNodes.kind} in (select k.kind from ${memoryKinds} k where k.tenant_id = ${params.tenantId} and k.definition ->> 'alwaysRecall' = 'true')`;
  const rows = await queryRows<{ record: string | unknown[]; custom_always: boolean }>(
    db,
    sql`select ${RECORD_OF_ROW}, memory_nodes.custom_always from (
      (select ${RECORD_COLUMNS}, false as custom_always from ${memoryNodes} ${standingNodesQuery(params)})
      union all
      (select ${RECORD_COLUMNS}, true as custom_always from ${memoryNodes} where ${currentIn(params)} and ${memoryNodes.status} = 'active' and ${customAlways}
        order by ${memoryNodes.importance} desc, ${memoryNodes.updatedAt} desc limit ${MAX_CUSTOM_ALWAYS})
    ) as memory_nodes`,
  );
  const nodes = new Map<string, MemoryNode>();
  const customAlwaysIds = new Set<string>();
  for (const row of rows) {
    const node = toMemoryNode(recordFromJson(row.record));
    nodes.set(node.id, node);
    if (row.custom_always) customAlwaysIds.add(node.id);
  }
  return { nodes: [...nodes.values()], customAlwaysIds };
}

/** Unexpired cards of the tenant in the given scopes (tenant first). */
const currentIn = (params: StandingParams) =>
  and(eq(memoryNodes.tenantId, params.tenantId), scopePatternsCondition(params.scopes), or(isNull(memoryNodes.expiresAt), gt(memoryNodes.expiresAt, params.now)));

/** The standing query after its select list: `where … order by … limit` (tenant first). */
export function standingNodesQuery(params: StandingParams): SQL {
  // memory_nodes_standing_idx's own predicate (the standing kinds, types and workspace facts), as
  // literal text so that the planner can read that index in a cached plan too.
  const where = and(currentIn(params), sql.raw(STANDING_CARDS_PREDICATE));
  return sql`where ${where} order by ${memoryNodes.importance} desc, ${memoryNodes.confidence} desc, ${memoryNodes.updatedAt} desc limit ${MAX_STANDING}`;
}
