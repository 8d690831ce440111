import type { MemoryClient } from "./client.js";
import { MemoryApiError } from "./errors.js";
import type { ToolDescriptor, ToolName, TurnInput } from "./types.js";

/** What every framework adapter takes besides the client. */
export type MemoryToolsOptions = {
  /**
   * The turn sent with every tool call, or a function that gives it at each call. Your program sets
   * it, never the model: `forgetIntent` only when the user asked to forget in this turn.
   */
  turn?: TurnInput | (() => TurnInput | undefined);
  /** Only these tools; default: every tool this key may use (tools.list). */
  include?: readonly ToolName[];
};

/** The tools this key may use, as tools.list describes them (names, descriptions, JSON Schemas). */
export async function memoryToolSpecs(
  client: MemoryClient,
  options: MemoryToolsOptions = {},
): Promise<ToolDescriptor[]> {
  const { tools } = await client.listTools();
  return options.include ? tools.filter((spec) => options.include!.includes(spec.name)) : tools;
}

const turnOf = (options: MemoryToolsOptions) => (typeof options.turn === "function" ? options.turn() : options.turn);

/** memory_context's whole answer repeats every card as a record; the model needs the block. */
function forModel(name: ToolName, result: unknown): unknown {
  if (name === "memory_context" && typeof result === "object" && result !== null && "prompt" in result) {
    const { prompt, usedMemoryIds } = result as { prompt: string; usedMemoryIds?: string[] };
    return { prompt, usedMemoryIds };
  }
  return result;
}

/**
 * Runs one tool call a model made and returns what the model should read. A refusal of the service
 * (bad arguments, a missing permission, a scope the key may not write) comes back as
 * `{ error, code, reason, details }` for the model to act on, never as a crash of the agent loop;
 * a refused write or forget is already an answer (`done: false` with a reason).
 */
export async function runMemoryTool(
  client: MemoryClient,
  name: ToolName,
  args: unknown,
  call: { options?: MemoryToolsOptions; toolCallId?: string; signal?: AbortSignal } = {},
): Promise<unknown> {
  const turn = { ...turnOf(call.options ?? {}), ...(call.toolCallId ? { toolCallId: call.toolCallId } : {}) };
  try {
    return forModel(
      name,
      await client.call(name, (args ?? {}) as Record<string, unknown>, { turn, signal: call.signal }),
    );
  } catch (error) {
    if (error instanceof MemoryApiError) return error.toToolResult();
    throw error;
  }
}

/** The memory block of this turn under your own instructions, for a system prompt. */
export async function systemPromptWithMemory(
  client: MemoryClient,
  input: { system?: string; queryText: string; tokenBudget?: number; turn?: TurnInput; signal?: AbortSignal },
): Promise<string> {
  const context = await client.context(
    { queryText: input.queryText, ...(input.tokenBudget ? { tokenBudget: input.tokenBudget } : {}) },
    { turn: input.turn, signal: input.signal },
  );
  return [input.system, context.prompt].filter((part) => part && part.trim() !== "").join("\n\n");
}
