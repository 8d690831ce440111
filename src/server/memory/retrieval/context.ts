import type { Database } from "~/db/types";
import { log } from "~/server/log";
import type { MemoryCallContext } from "../context";
import { ALWAYS_RECALLED_KINDS } from "../kinds";
import { listRecentMessages } from "../messages";
import type { MemoryNode } from "../node-view";
import { pgErrorCode } from "../pg-errors";
import { getLatestSummary } from "../summaries";
import { memoryContextInputSchema, type MemoryContextInput, type MemoryContextResult } from "./context-schema";
import { memorySearch } from "./search";
import { countTokens } from "./token-count";

const line = (node: MemoryNode) => `- [${node.id}] ${node.title}: ${node.content}`;

/**
 * `buildMemoryContext`: what the agent should know this turn, under a token budget. A broken store
 * degrades to `disabled` with a warning — it never throws into the agent's turn (000 失败和降级).
 */
export async function buildMemoryContext(db: Database, ctx: MemoryCallContext, rawInput: MemoryContextInput = {}): Promise<MemoryContextResult> {
  const input = memoryContextInputSchema.parse(rawInput);
  const empty: MemoryContextResult = {
    prompt: "",
    recentMessages: [],
    latestSummary: null,
    alwaysRecalled: [],
    activeTasks: [],
    constraints: [],
    preferences: [],
    relevantNodes: [],
    usedMemoryIds: [],
    diagnostics: { enabled: true, storeStatus: "ok", warnings: [], retrievedNodeCount: 0, omittedNodeCount: 0, tokenBudget: input.tokenBudget, usedTokens: 0 },
  };
  try {
    const sessionId = input.sessionId ?? ctx.defaults.session?.id;
    const [recent, summary, always, relevant] = await Promise.all([
      sessionId && input.recentMessageLimit > 0 ? listRecentMessages(db, { tenantId: ctx.tenantId, sessionId, limit: input.recentMessageLimit }) : [],
      sessionId ? getLatestSummary(db, { tenantId: ctx.tenantId, sessionId }) : undefined,
      memorySearch(db, ctx, { kinds: [...ALWAYS_RECALLED_KINDS], limit: 50 }),
      input.queryText ? memorySearch(db, ctx, { queryText: input.queryText, limit: 20 }) : null,
    ]);
    const sections: string[] = [];
    const used: string[] = [];
    let tokens = 0;
    const take = (text: string) => {
      const cost = countTokens(text) + 1;
      if (tokens + cost > input.tokenBudget) return false;
      tokens += cost;
      sections.push(text);
      return true;
    };
    const alwaysRecalled: MemoryNode[] = [];
    for (const node of always.exact) if (take(line(node))) (alwaysRecalled.push(node), used.push(node.id));
    const relevantNodes: MemoryNode[] = [];
    for (const node of [...(relevant?.exact ?? []), ...(relevant?.relevant ?? [])]) {
      if (used.includes(node.id)) continue;
      if (take(line(node))) (relevantNodes.push(node), used.push(node.id));
    }
    if (summary) take(`Summary so far: ${summary.summary}`);
    const recentMessages = [...recent].reverse().filter((m) => take(`${m.role}: ${m.content}`)).reverse();
    const nodes = [...alwaysRecalled, ...relevantNodes];
    return {
      ...empty,
      prompt: sections.length ? `<memory>\n${sections.join("\n")}\n</memory>` : "",
      recentMessages: recentMessages.map((m) => ({ id: m.id, role: m.role, content: m.content, createdAt: m.createdAt })),
      latestSummary: summary ?? null,
      alwaysRecalled,
      activeTasks: nodes.filter((n) => n.type === "task"),
      constraints: nodes.filter((n) => n.type === "constraint"),
      preferences: nodes.filter((n) => n.type === "preference"),
      relevantNodes,
      usedMemoryIds: used,
      diagnostics: { ...empty.diagnostics, retrievedNodeCount: nodes.length, usedTokens: tokens },
    };
  } catch (error) {
    // The agent gets a plain warning; driver details (which may quote SQL) stay in the server log.
    log("warn", `memory context degraded: ${error instanceof Error ? error.message : String(error)}`);
    const code = pgErrorCode(error);
    return { ...empty, diagnostics: { ...empty.diagnostics, enabled: false, storeStatus: "disabled", warnings: [`memory store unavailable${code ? ` (database error ${code})` : ""}; answering without long-term memory`] } };
  }
}
