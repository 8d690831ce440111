import type { DbOrTx } from "~/db/types";
import { sessionAgentContext, type SessionAgent } from "~/server/auth/session-agent";
import { notFound } from "~/server/errors";
import {
  buildMemoryContext,
  formatScope,
  intersectScopes,
  type MemoryCallContext,
  type MemoryContextDiagnostics,
  type MemoryContextResult,
  type MemoryCard,
  scopeAllowed,
  type ScopePattern,
} from "~/server/memory";
import { countTokens } from "~/server/text/token-count";
import { labelActors } from "./actors";
import { sessionReadable } from "./sessions";

/** A recalled card as the preview lists it: where it sits in the prompt and whose scope it comes from. */
export type RecalledCard = {
  id: string;
  title: string;
  section: "alwaysRecalled" | "profile" | "constraints" | "activeTasks" | "preferences" | "facts" | "relevant";
  scope: string;
  /** The person a `user:` scope belongs to ("Name <email>"); null for other scopes. */
  ownerLabel: string | null;
};

export type RecallPreview = {
  prompt: string;
  promptTokens: number;
  usedMemoryIds: string[];
  /** Every card in the prompt, in prompt order, labelled with its scope's owner. */
  cards: RecalledCard[];
  recentMessageCount: number;
  hasSummary: boolean;
  diagnostics: MemoryContextDiagnostics;
  /** Whose agent this is: the session's owner (and the key that captured it), or the viewer when the session names nobody. */
  recalledAs:
    { kind: "session_agent"; ownerUserId: string; ownerLabel: string; key: SessionAgent["key"] } | { kind: "viewer" };
  /** Scopes the session's agent reads that the viewer may not: their cards are left out of this preview. */
  hiddenScopes: string[];
};

const CARD_SECTIONS = [
  "alwaysRecalled",
  "profile",
  "constraints",
  "activeTasks",
  "preferences",
  "facts",
  "relevant",
] as const;
/** The result's lists of cards, by the prompt section they fill. */
type CardList = {
  [K in keyof MemoryContextResult]: MemoryContextResult[K] extends MemoryCard[] ? K : never;
}[keyof MemoryContextResult];
const SECTION_FIELD: Record<RecalledCard["section"], CardList> = {
  alwaysRecalled: "alwaysRecalled",
  profile: "profile",
  constraints: "constraints",
  activeTasks: "activeTasks",
  preferences: "preferences",
  facts: "facts",
  relevant: "relevantNodes",
};

/** The agent's patterns the viewer cannot read in full (a wildcard counts only when the viewer holds it too). */
function unreadableBy(viewer: readonly ScopePattern[], agent: readonly ScopePattern[]): string[] {
  const covered = (p: ScopePattern) =>
    p.id === "*"
      ? viewer.some((v) => v.type === p.type && v.id === "*")
      : scopeAllowed({ type: p.type, id: p.id }, viewer);
  return agent.filter((p) => !covered(p)).map(formatScope);
}

/**
 * "Try recall": what the session's own agent would get for `question` (sessionAgentContext: its
 * key's reach, its owner's profile), not what the viewer's wider grants would find. The viewer sees
 * no more than they may read: scopes of the agent's they cannot read are left out and named.
 */
export async function previewRecall(
  db: DbOrTx,
  viewer: MemoryCallContext,
  params: { sessionId?: string; question: string; tokenBudget?: number },
): Promise<RecallPreview> {
  if (params.sessionId && !sessionReadable(viewer.readScopes, params.sessionId))
    throw notFound("not_found", `No session ${params.sessionId} you can read.`);
  const agent = params.sessionId
    ? await sessionAgentContext(db, { tenantId: viewer.tenantId, sessionId: params.sessionId })
    : null;
  const hiddenScopes = agent ? unreadableBy(viewer.readScopes, agent.ctx.readScopes) : [];
  // The viewer ran it: the query log counts it as theirs, not as the agent's.
  const ctx: MemoryCallContext = agent
    ? {
        ...agent.ctx,
        actor: viewer.actor,
        readScopes: intersectScopes(agent.ctx.readScopes, viewer.readScopes),
        writeScopes: [],
      }
    : viewer;
  const result = await buildMemoryContext(db, ctx, {
    queryText: params.question,
    sessionId: params.sessionId,
    tokenBudget: params.tokenBudget,
  });

  const inPrompt = CARD_SECTIONS.flatMap((section) =>
    result[SECTION_FIELD[section]].map((card) => ({ section, card })),
  );
  const userIds = [
    ...new Set([
      ...inPrompt.flatMap(({ card }) => (card.scope.startsWith("user:") ? [card.scope.slice(5)] : [])),
      ...(agent ? [agent.agent.ownerUserId] : []),
    ]),
  ];
  const label = await labelActors(
    db,
    viewer.tenantId,
    userIds.map((id) => ({ type: "user", id })),
  );
  const personLabel = (userId: string) => label({ type: "user", id: userId }).label;
  return {
    prompt: result.prompt,
    promptTokens: countTokens(result.prompt),
    usedMemoryIds: result.usedMemoryIds,
    cards: inPrompt.map(({ section, card }) => ({
      id: card.id,
      title: card.title,
      section,
      scope: card.scope,
      ownerLabel: card.scope.startsWith("user:") ? personLabel(card.scope.slice(5)) : null,
    })),
    recentMessageCount: result.recentMessages.length,
    hasSummary: result.latestSummary !== null,
    diagnostics: result.diagnostics,
    recalledAs: agent
      ? {
          kind: "session_agent",
          ownerUserId: agent.agent.ownerUserId,
          ownerLabel: personLabel(agent.agent.ownerUserId),
          key: agent.agent.key,
        }
      : { kind: "viewer" },
    hiddenScopes,
  };
}
