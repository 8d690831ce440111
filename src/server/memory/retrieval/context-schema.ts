import { z } from "zod";
import type { MemoryMessage, MemorySummary } from "~/db/schema";
import type { MemoryCard } from "../store/card-view";
import { strictShape } from "~/server/validation";

export const DEFAULT_CONTEXT_TOKEN_BUDGET = 4000;
export const DEFAULT_RECENT_MESSAGE_LIMIT = 20;

/** `memory_context`: the automatic recall block for one turn (MemoryContext, docs/retrieval.md). */
export const memoryContextInputSchema = strictShape(
  "memory_context",
  {
    /** The user's message this turn: drives the relevant-memory search. */
    queryText: z.string().trim().max(8000).default(""),
    sessionId: z.string().min(1).max(200).optional(),
    tokenBudget: z.number().int().min(200).max(32_000).default(DEFAULT_CONTEXT_TOKEN_BUDGET),
    recentMessageLimit: z.number().int().min(0).max(DEFAULT_RECENT_MESSAGE_LIMIT).default(DEFAULT_RECENT_MESSAGE_LIMIT),
  },
  "the user's message goes in queryText",
);
export type MemoryContextInput = z.input<typeof memoryContextInputSchema>;

export type MemoryContextDiagnostics = {
  enabled: boolean;
  storeStatus: "ok" | "disabled" | "degraded";
  warnings: string[];
  retrievedNodeCount: number;
  omittedNodeCount: number;
  tokenBudget: number;
  usedTokens: number;
};

export type MemoryContextResult = {
  /** The rendered block to put in the model's prompt. */
  prompt: string;
  recentMessages: Pick<MemoryMessage, "id" | "role" | "content" | "createdAt">[];
  latestSummary: MemorySummary | null;
  alwaysRecalled: MemoryCard[];
  /** The user's profile facts: name, home, occupation, the people in their life. */
  profile: MemoryCard[];
  activeTasks: MemoryCard[];
  constraints: MemoryCard[];
  preferences: MemoryCard[];
  /** Decisions, and the facts of the workspaces read this turn. */
  facts: MemoryCard[];
  relevantNodes: MemoryCard[];
  usedMemoryIds: string[];
  diagnostics: MemoryContextDiagnostics;
};
