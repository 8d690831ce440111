import { and, desc, eq, gt, isNull, or, sql, type SQL } from "drizzle-orm";
import { queryRows } from "~/db/raw";
import {
  memoryKinds,
  memoryMessages,
  memoryNodes,
  STANDING_CARDS_PREDICATE,
  WORKSPACE_FACTS_PREDICATE,
} from "~/db/schema";
import type { DbOrTx } from "~/db/types";
import { RECORD_COLUMNS, RECORD_OF_ROW, recordFromJson } from "../store/card-records";
import { toMemoryCard, type MemoryCard } from "../store/card-view";
import type { ScopePattern } from "../scope";
import { scopePatternsCondition } from "../store/scope-sql";
import { evidenceScopeCondition } from "./evidence";

/** The parts of a turn's recall that do not depend on what the user just said. */

export type RecentMessage = {
  id: string;
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  createdAt: Date;
};

/** The session's latest messages the caller may read (session or owner scope), newest first. */
export async function loadRecentMessages(
  db: DbOrTx,
  params: { tenantId: string; scopes: readonly ScopePattern[]; sessionId: string; limit: number },
): Promise<RecentMessage[]> {
  if (params.limit <= 0) return [];
  return db
    .select({
      id: memoryMessages.id,
      role: memoryMessages.role,
      content: memoryMessages.content,
      createdAt: memoryMessages.createdAt,
    })
    .from(memoryMessages)
    .where(
      and(
        eq(memoryMessages.tenantId, params.tenantId),
        eq(memoryMessages.sessionId, params.sessionId),
        evidenceScopeCondition(memoryMessages, params.scopes),
      ),
    )
    .orderBy(desc(memoryMessages.seq))
    .limit(params.limit);
}

/** Standing cards read per turn; conflict resolution and the budget decide what is shown. */
const MAX_STANDING = 200;
/** Facts read per readable workspace per turn, the most important first. */
const MAX_WORKSPACE_FACTS = 30;
/** Cards of an organisation's own always-recalled kinds read per turn, besides the standing ones. */
const MAX_CUSTOM_ALWAYS = 50;

export type StandingCards = {
  cards: MemoryCard[];
  /** Ids of cards whose kind an admin defined with `alwaysRecall` (their kinds are not built in). */
  customAlwaysIds: ReadonlySet<string>;
};

type StandingParams = { tenantId: string; scopes: readonly ScopePattern[]; now: Date };

/**
 * Current cards that matter whatever the user said: the always-recalled kinds (built in, and the
 * organisation's own marked `alwaysRecall`, whatever their type), the user's profile, active tasks,
 * constraints, preferences, decisions and workspace facts (standingCardsStatement).
 */
export async function loadStandingCards(db: DbOrTx, params: StandingParams): Promise<StandingCards> {
  const rows = await queryRows<{ record: string | unknown[]; custom_always: boolean }>(
    db,
    standingCardsStatement(params),
  );
  const cards = new Map<string, MemoryCard>();
  const customAlwaysIds = new Set<string>();
  for (const row of rows) {
    const card = toMemoryCard(recordFromJson(row.record));
    cards.set(card.id, card);
    if (row.custom_always) customAlwaysIds.add(card.id);
  }
  return { cards: [...cards.values()], customAlwaysIds };
}

/**
 * The whole standing read, one statement in three branches: the standing cards
 * (memory_nodes_standing_idx); the readable workspaces' facts, the most important few of each
 * (memory_nodes_workspace_facts_idx: a team keeps hundreds, and reading them all to sort them cost
 * memory_context 3–4 ms at 100k cards); and the cards of the organisation's custom always-recalled
 * kinds. That last branch is driven from memory_kinds (lateral): with no kind marked alwaysRecall — the
 * usual case — it reads no card at all, where a filter on memory_nodes read every card in scope.
 */
export function standingCardsStatement(params: StandingParams): SQL {
  const workspaces = params.scopes.filter((scope) => scope.type === "workspace");
  const workspaceFacts = workspaces.map(
    (scope) => sql`union all
      (select ${RECORD_COLUMNS}, false as custom_always from ${memoryNodes}
        where ${memoryNodes.tenantId} = ${params.tenantId} and ${scope.id === "*" ? sql`true` : sql`${memoryNodes.scopeId} = ${scope.id}`} and ${expiryOk(params.now)} and ${sql.raw(WORKSPACE_FACTS_PREDICATE)}
        order by ${memoryNodes.importance} desc nulls last, ${memoryNodes.updatedAt} desc nulls last limit ${MAX_WORKSPACE_FACTS})`,
  );
  return sql`select ${RECORD_OF_ROW}, memory_nodes.custom_always from (
      (select ${RECORD_COLUMNS}, false as custom_always from ${memoryNodes} ${standingCardsQuery(params)})
      ${sql.join(workspaceFacts, sql` `)}
      union all
      (select memory_nodes.*, true as custom_always from ${memoryKinds} k cross join lateral (
          select ${RECORD_COLUMNS} from ${memoryNodes}
          where ${memoryNodes.tenantId} = k.tenant_id and ${memoryNodes.kind} = k.kind and ${memoryNodes.status} = 'active' and ${currentIn(params)}
          order by ${memoryNodes.importance} desc, ${memoryNodes.updatedAt} desc limit ${MAX_CUSTOM_ALWAYS}) as memory_nodes
        where k.tenant_id = ${params.tenantId} and k.definition ->> 'alwaysRecall' = 'true'
        limit ${MAX_CUSTOM_ALWAYS})
    ) as memory_nodes`;
}

const expiryOk = (now: Date) => or(isNull(memoryNodes.expiresAt), gt(memoryNodes.expiresAt, now));

/** Unexpired cards of the tenant in the given scopes (tenant first). */
const currentIn = (params: StandingParams) =>
  and(eq(memoryNodes.tenantId, params.tenantId), scopePatternsCondition(params.scopes), expiryOk(params.now));

/** The standing query after its select list: `where … order by … limit` (tenant first). */
export function standingCardsQuery(params: StandingParams): SQL {
  // memory_nodes_standing_idx's own predicate (the standing kinds and types), as
  // literal text so that the planner can read that index in a cached plan too.
  const where = and(currentIn(params), sql.raw(STANDING_CARDS_PREDICATE));
  return sql`where ${where} order by ${memoryNodes.importance} desc, ${memoryNodes.confidence} desc, ${memoryNodes.updatedAt} desc limit ${MAX_STANDING}`;
}
