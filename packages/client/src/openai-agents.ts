import { tool } from "@openai/agents";
import type { MemoryClient } from "./client.js";
import { memoryToolSpecs, runMemoryTool, systemPromptWithMemory, type MemoryToolsOptions } from "./tool-runner.js";

export type { MemoryToolsOptions } from "./tool-runner.js";

type NonStrictParameters = Extract<Parameters<typeof tool>[0], { strict: false }>["parameters"];

/**
 * The memory tools for the OpenAI Agents SDK: one function `tool()` per tool this key may use, with
 * the service's JSON Schemas (non-strict: the service checks the arguments and says what to fix).
 *
 *     const agent = new Agent({ name: "assistant", tools: await memoryTools(memory), instructions });
 */
export async function memoryTools(client: MemoryClient, options: MemoryToolsOptions = {}) {
  const specs = await memoryToolSpecs(client, options);
  return specs.map((spec) =>
    tool({
      name: spec.name,
      description: spec.description,
      parameters: spec.inputSchema as NonStrictParameters,
      strict: false,
      execute: async (input, _context, details) =>
        JSON.stringify(
          await runMemoryTool(client, spec.name, input, {
            options,
            toolCallId: details?.toolCall?.callId,
            signal: details?.signal,
          }),
        ),
    }),
  );
}

/** `system` followed by memory_context's block for this turn's user message (for an agent's instructions). */
export const memoryInstructions = systemPromptWithMemory;
