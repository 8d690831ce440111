import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import type { JSONSchema } from "@langchain/core/utils/json_schema";
import type { MemoryClient } from "./client.js";
import { memoryToolSpecs, runMemoryTool, systemPromptWithMemory, type MemoryToolsOptions } from "./tool-runner.js";

export type { MemoryToolsOptions } from "./tool-runner.js";

/**
 * The memory tools for LangChain.js (and LangGraph): one structured tool per tool this key may use,
 * with the service's JSON Schemas. Bind them to a chat model (`model.bindTools(tools)`) and run each
 * tool call with `tool.invoke(toolCall)`, which answers a ToolMessage.
 */
export async function memoryTools(
  client: MemoryClient,
  options: MemoryToolsOptions = {},
): Promise<StructuredToolInterface[]> {
  const specs = await memoryToolSpecs(client, options);
  return specs.map((spec) =>
    tool(
      async (input: unknown, config) =>
        JSON.stringify(
          await runMemoryTool(client, spec.name, input, {
            options,
            toolCallId: config?.toolCall?.id,
            signal: config?.signal,
          }),
        ),
      { name: spec.name, description: spec.description, schema: spec.inputSchema as JSONSchema },
    ),
  );
}

/** `system` followed by memory_context's block for this turn's user message (for a SystemMessage). */
export const memorySystemPrompt = systemPromptWithMemory;
