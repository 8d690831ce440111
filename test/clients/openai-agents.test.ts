import { Agent, OpenAIProvider, Runner, setTracingDisabled } from "@openai/agents";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryClient, type MemoryClient } from "../../packages/client/src/index";
import { memoryInstructions, memoryTools } from "../../packages/client/src/openai-agents";
import { startAgentServer, type AgentServer } from "../support/agent-server";
import { TEST_BACKEND } from "../support/db";
import { startFakeChatServer } from "../support/fake-chat-server";
import { TURNS } from "../support/scripted-agent";

/** The OpenAI Agents SDK adapter in the SDK's own runner, its model a fake OpenAI-compatible chat server. */
describe(`@agent-memory/client/openai-agents with the Agents SDK runner (${TEST_BACKEND})`, () => {
  let server: AgentServer;
  let chat: Awaited<ReturnType<typeof startFakeChatServer>>;
  let memory: MemoryClient;
  let runner: Runner;
  beforeAll(async () => {
    setTracingDisabled(true);
    [server, chat] = await Promise.all([startAgentServer(), startFakeChatServer()]);
    memory = createMemoryClient({ baseUrl: server.baseUrl, apiKey: server.secret, sessionId: "agents-chat" });
    runner = new Runner({
      modelProvider: new OpenAIProvider({ baseURL: chat.baseURL, apiKey: "not-a-real-key", useResponses: false }),
      tracingDisabled: true,
    });
  });
  afterAll(async () => {
    await Promise.all([server?.close(), chat?.close()]);
  });

  const turn = async (user: string, forgetIntent = false) => {
    const agent = new Agent({
      name: "assistant",
      model: "scripted-model",
      instructions: await memoryInstructions(memory, {
        system: "You are a helpful assistant with long-term memory.",
        queryText: user,
      }),
      tools: await memoryTools(memory, { turn: { forgetIntent } }),
    });
    return runner.run(agent, user, { maxTurns: 5 });
  };
  const toolOutputs = (result: Awaited<ReturnType<typeof turn>>, name: string) =>
    result.newItems.flatMap((item) =>
      item.type === "tool_call_output_item" && "name" in item.rawItem && item.rawItem.name === name
        ? [item.output]
        : [],
    );

  it("writes a card from a tool call, recalls it in a later turn, and shows a forget without intent as a tool result", async () => {
    const remembered = await turn(TURNS.remember);
    expect(remembered.finalOutput).toBe("Saved: I will remember your peanut allergy.");
    expect(chat.requests.at(-2)?.tools?.map((t) => t.function.name)).toEqual([
      "memory_search",
      "memory_get",
      "memory_write",
      "memory_forget",
      "memory_context",
      "message_append",
    ]);

    const recalled = await turn(TURNS.recall);
    expect(recalled.finalOutput).toBe("Recalled: Peanut allergy. Memory block in my instructions: yes.");

    const refused = await turn(TURNS.forget);
    expect(refused.finalOutput).toBe("Forget answered done=false reason=forget_intent_required");
    expect(JSON.parse(String(toolOutputs(refused, "memory_forget")[0]))).toMatchObject({
      done: false,
      reason: "forget_intent_required",
    });
    expect((await memory.search({ kinds: ["food_avoidance"] })).exact).toHaveLength(1);

    const forgotten = await turn(TURNS.forget, true);
    expect(forgotten.finalOutput).toBe("Forget answered done=true reason=undefined");
    expect((await memory.search({ kinds: ["food_avoidance"] })).exact).toEqual([]);
  });
});
