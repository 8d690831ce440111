import { isDatabaseError } from "~/db/connection-errors";
import { isReplicaHandle } from "~/db/replicas";
import type { DbOrTx } from "~/db/types";
import { log } from "~/server/log";
import type { EmbeddingProvider } from "~/server/providers/embeddings";
import type { MemoryCallContext } from "../call-context";
import { ALWAYS_RECALLED_KINDS, PROFILE_KINDS } from "../kinds/registry";
import { getLatestSummary } from "../store/summaries";
import { summaryForContext } from "../evidence/summaries";
import type { MemoryCard } from "../store/card-view";
import { pgErrorCode } from "~/db/pg-errors";
import { scopeAllowed } from "../scope";
import { resolveConflicts } from "./conflicts";
import { loadRecentMessages, loadStandingCards, type RecentMessage } from "./context-parts";
import { messageLine, cardLine, selectWithinBudget, type ContextItem, type SectionName } from "./context-render";
import { memoryContextInputSchema, type MemoryContextInput, type MemoryContextResult } from "./context-schema";
import { recordQuery } from "./query-log";
import { turnScopes } from "./read-scopes";
import { memorySearch } from "./search";
import { parseInput } from "~/server/validation";

export type ContextOptions = { embeddings?: EmbeddingProvider | null; now?: Date };

const ALWAYS = new Set(ALWAYS_RECALLED_KINDS);
const PROFILE = new Set(PROFILE_KINDS);
const TYPE_SECTIONS: Partial<Record<MemoryCard["type"], SectionName>> = {
  constraint: "constraints",
  task: "activeTasks",
  preference: "preferences",
};

/** The prompt section of a standing card (loadStandingCards says which cards stand). */
function standingSection(card: MemoryCard): SectionName {
  if (ALWAYS.has(card.kind)) return "alwaysRecalled";
  if (PROFILE.has(card.kind)) return "profile";
  return TYPE_SECTIONS[card.type] ?? "facts";
}

/** Cards searched for the turn's text before the budget picks. */
const RELEVANT_LIMIT = 20;

/** A part failed on a read replica for a database reason: passed through the catch below to the caller. */
class ReplicaFailure extends Error {
  constructor(readonly cause: unknown) {
    super("memory context part failed on a read replica");
  }
}

type Part<T> = { ok: true; value: T } | { ok: false; error: unknown };
const settle = async <T>(run: () => Promise<T>): Promise<Part<T>> => {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    return { ok: false, error };
  }
};

/** What the agent is told when a part fails: no driver text, which may quote SQL or data. */
function warningFor(part: string, error: unknown): string {
  const code = pgErrorCode(error);
  log("warn", `memory context: ${part} failed: ${error instanceof Error ? error.message : String(error)}`);
  return `${part} unavailable${code ? ` (database error ${code})` : ""}`;
}

/**
 * `buildMemoryContext` (MemoryContext, docs/retrieval.md): what the agent should know this turn — recent
 * messages, the latest summary, always-recalled kinds, the user's profile, active tasks,
 * constraints, preferences, decisions and workspace facts, and the cards relevant to the user's
 * message — chosen under a token budget counted with the real tokenizer and rendered as one prompt
 * block with ids. Only the caller's readable scopes count, and
 * of the session scopes only this turn's session. A failing store never throws into the agent's
 * turn: a failed part degrades the context (`degraded`), a failed store disables it (`disabled`).
 * On a read replica's handle a database failure is thrown instead (ReplicaFailure): the primary can
 * answer in full, and routing (src/server/db-routing.ts) runs the call again there.
 */
export async function buildMemoryContext(
  db: DbOrTx,
  ctx: MemoryCallContext,
  rawInput: MemoryContextInput = {},
  options: ContextOptions = {},
): Promise<MemoryContextResult> {
  const started = performance.now();
  const input = parseInput(memoryContextInputSchema, rawInput ?? {}, "memory_context input");
  const now = options.now ?? new Date();
  const sessionId = input.sessionId ?? ctx.defaults.session?.id;
  const scopes = turnScopes(ctx.readScopes, sessionId);
  const warnings: string[] = [];
  const onReplica = isReplicaHandle(db);
  const empty: MemoryContextResult = {
    prompt: "",
    recentMessages: [],
    latestSummary: null,
    alwaysRecalled: [],
    profile: [],
    activeTasks: [],
    constraints: [],
    preferences: [],
    facts: [],
    relevantNodes: [],
    usedMemoryIds: [],
    diagnostics: {
      enabled: true,
      storeStatus: "ok",
      warnings,
      retrievedNodeCount: 0,
      omittedNodeCount: 0,
      tokenBudget: input.tokenBudget,
      usedTokens: 0,
    },
  };

  try {
    const tenantId = ctx.tenantId;
    // The turn's scope chain: its session overrides the user's defaults, for the search's hits as for the standing cards.
    const chain = { ...ctx.defaults, ...(sessionId ? { session: { type: "session" as const, id: sessionId } } : {}) };
    const sessionReadable = sessionId !== undefined && scopeAllowed({ type: "session", id: sessionId }, ctx.readScopes);
    const latestSummary = (id: string) =>
      settle(async () => (await getLatestSummary(db, { tenantId, sessionId: id })) ?? null);
    // Readable by scope (the usual case): the summary is read together with the rest.
    const summaryByScope = sessionId && sessionReadable ? latestSummary(sessionId) : undefined;
    const [recent, standing, relevant] = await Promise.all([
      settle(async () =>
        sessionId
          ? loadRecentMessages(db, { tenantId, scopes: ctx.readScopes, sessionId, limit: input.recentMessageLimit })
          : ([] as RecentMessage[]),
      ),
      settle(() => loadStandingCards(db, { tenantId, scopes, now })),
      settle(async () =>
        input.queryText
          ? memorySearch(
              db,
              { ...ctx, readScopes: scopes, defaults: chain },
              { queryText: input.queryText, limit: RELEVANT_LIMIT },
              // Lexical order: context is built every turn, and a re-ranker's round trip would be paid each time.
              { logQuery: false, embeddings: options.embeddings, now, reranker: null },
            )
          : null,
      ),
    ]);
    // A session's summary is as readable as its messages: by its session scope, or by owning them.
    const canReadSession = sessionReadable || (recent.ok && recent.value.length > 0);
    const summary = await (summaryByScope ??
      (sessionId && canReadSession ? latestSummary(sessionId) : settle(async () => null)));

    // Parts that went to the database: when every one of them failed, the store is down.
    const attempted: [string, Part<unknown>][] = [["standing memories", standing]];
    if (sessionId) attempted.push(["recent messages", recent]);
    if (sessionId && canReadSession) attempted.push(["session summary", summary]);
    if (input.queryText) attempted.push(["relevant-memory search", relevant]);
    const failures = attempted.filter(([, part]) => !part.ok) as [string, { ok: false; error: unknown }][];
    const replicaFailure = onReplica ? failures.find(([, part]) => isDatabaseError(part.error)) : undefined;
    if (replicaFailure) throw new ReplicaFailure(replicaFailure[1].error);
    if (failures.length === attempted.length) throw failures[0]![1].error;
    for (const [name, part] of failures) warnings.push(warningFor(name, part.error));
    const failed = failures.length;
    if (sessionId && !sessionReadable && recent.ok && recent.value.length === 0)
      warnings.push(`session ${sessionId} is not readable with your grants; recalled without it`);
    if (relevant.ok && relevant.value?.warnings) warnings.push(...relevant.value.warnings);

    // Standing cards and search hits are conflict-resolved as one set: a hit that loses its slot to a
    // standing card (the user's default under this session's override) is not recalled beside the
    // winner. Cards the search found again are not repeated.
    const standingCards = standing.ok ? standing.value.cards : [];
    const found = relevant.ok && relevant.value ? [...relevant.value.exact, ...relevant.value.relevant] : [];
    const resolved = resolveConflicts([...standingCards, ...found], { now, chain });
    const customAlways = standing.ok ? standing.value.customAlwaysIds : new Set<string>();
    const sectionOf = (card: MemoryCard): SectionName =>
      customAlways.has(card.id) ? "alwaysRecalled" : standingSection(card);
    const standingIds = new Set(standingCards.map((n) => n.id));
    const keptStanding = resolved.kept.filter((n) => standingIds.has(n.id));
    const relevantCards = resolved.kept.filter((n) => !standingIds.has(n.id));

    const candidates: ContextItem[] = [
      ...keptStanding.map((card, order) => ({
        section: sectionOf(card),
        id: card.id,
        text: cardLine(card),
        card,
        order,
      })),
      ...relevantCards.map((card, order) => ({
        section: "relevant" as const,
        id: card.id,
        text: cardLine(card),
        card,
        order,
      })),
      ...(summary.ok && summary.value
        ? [{ section: "summary" as const, id: summary.value.id, text: summaryForContext(summary.value), order: 0 }]
        : []),
      // Newest first for the budget; rendered oldest first (order = position in time).
      ...(recent.ok ? recent.value : []).map((m, i, all) => ({
        section: "recent" as const,
        id: m.id,
        text: messageLine(m),
        order: all.length - i,
      })),
    ];
    const selection = selectWithinBudget(candidates, input.tokenBudget);
    const kept = new Set(selection.items.map((item) => `${item.section}:${item.id}`));
    const cardsIn = (section: SectionName) =>
      selection.items
        .filter((i) => i.section === section && i.card)
        .sort((a, b) => a.order - b.order)
        .map((i) => i.card!);
    const usedMemoryIds = selection.items.filter((i) => i.card).map((i) => i.id);
    // Each card left out counts once: a search's conflict_lost card is lost again in the joint resolution.
    const omittedIds = new Set([
      ...resolved.omitted.map((o) => o.nodeId),
      ...(relevant.ok && relevant.value ? relevant.value.omitted.map((o) => o.nodeId) : []),
      ...selection.dropped.filter((i) => i.card).map((i) => i.id),
    ]);
    // Past the search's list of 50 only its count is known.
    const unlisted =
      relevant.ok && relevant.value?.omittedCount !== undefined
        ? relevant.value.omittedCount - relevant.value.omitted.length
        : 0;

    const result: MemoryContextResult = {
      prompt: selection.prompt,
      recentMessages: (recent.ok ? recent.value : []).filter((m) => kept.has(`recent:${m.id}`)).reverse(),
      latestSummary: summary.ok && summary.value && kept.has(`summary:${summary.value.id}`) ? summary.value : null,
      alwaysRecalled: cardsIn("alwaysRecalled"),
      profile: cardsIn("profile"),
      activeTasks: cardsIn("activeTasks"),
      constraints: cardsIn("constraints"),
      preferences: cardsIn("preferences"),
      facts: cardsIn("facts"),
      relevantNodes: cardsIn("relevant"),
      usedMemoryIds,
      diagnostics: {
        enabled: true,
        storeStatus: failed > 0 ? "degraded" : "ok",
        warnings,
        retrievedNodeCount: resolved.kept.length,
        omittedNodeCount: omittedIds.size + unlisted,
        tokenBudget: input.tokenBudget,
        usedTokens: selection.tokens,
      },
    };
    await recordQuery(db, ctx, {
      operation: "memory_context",
      latencyMs: performance.now() - started,
      resultCount: usedMemoryIds.length,
    });
    return result;
  } catch (error) {
    if (error instanceof ReplicaFailure) throw error.cause;
    if (onReplica && isDatabaseError(error)) throw error;
    // The agent gets a plain warning; driver details (which may quote SQL) stay in the server log.
    const code = pgErrorCode(error);
    log("warn", `memory context disabled for this turn: ${error instanceof Error ? error.message : String(error)}`);
    return {
      ...empty,
      diagnostics: {
        ...empty.diagnostics,
        enabled: false,
        storeStatus: "disabled",
        warnings: [
          `memory store unavailable${code ? ` (database error ${code})` : ""}; answering without long-term memory`,
        ],
      },
    };
  }
}
