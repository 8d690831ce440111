import { jsonSchema, tool, type ToolSet } from "ai";
import type { MemoryClient } from "./client.js";
import { memoryToolSpecs, runMemoryTool, systemPromptWithMemory, type MemoryToolsOptions } from "./tool-runner.js";

export type { MemoryToolsOptions } from "./tool-runner.js";

/**
 * The memory tools for the Vercel AI SDK (`generateText`, `streamText`, agents): one `tool()` per
 * tool this key may use, with the service's descriptions and JSON Schemas.
 *
 *     const tools = await memoryTools(memory, { turn: () => ({ forgetIntent: userAskedToForget }) });
 *     await generateText({ model, tools, system: await memorySystemPrompt(memory, { queryText }), prompt: queryText });
 */
export async function memoryTools(client: MemoryClient, options: MemoryToolsOptions = {}): Promise<ToolSet> {
  const tools: ToolSet = {};
  for (const spec of await memoryToolSpecs(client, options)) {
    tools[spec.name] = tool({
      description: spec.description,
      inputSchema: jsonSchema<Record<string, unknown>>(spec.inputSchema as Parameters<typeof jsonSchema>[0]),
      execute: (input, { toolCallId, abortSignal }) =>
        runMemoryTool(client, spec.name, input, { options, toolCallId, signal: abortSignal }),
    });
  }
  return tools;
}

/** `system` followed by memory_context's block for this turn's user message. */
export const memorySystemPrompt = systemPromptWithMemory;
