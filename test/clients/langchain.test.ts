import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { ToolInputParsingException, type StructuredToolInterface } from "@langchain/core/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryClient, type MemoryClient } from "../../packages/client/src/index";
import { memorySystemPrompt, memoryTools } from "../../packages/client/src/langchain";
import { startAgentServer, type AgentServer } from "../support/agent-server";
import { TEST_BACKEND } from "../support/db";
import { scriptedStep, TURNS, type ScriptedView } from "../support/scripted-agent";

/** A LangChain chat model that answers with the scripted model, tool calls included. */
class ScriptedChatModel extends BaseChatModel {
  bound: string[] = [];
  _llmType() {
    return "scripted";
  }
  override bindTools(tools: StructuredToolInterface[]) {
    const next = new ScriptedChatModel({});
    next.bound = tools.map((t) => t.name);
    return next;
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const view: ScriptedView = { system: "", user: "", toolResults: [] };
    const names = new Map<string, string>();
    for (const message of messages) {
      if (SystemMessage.isInstance(message)) view.system += message.text;
      if (HumanMessage.isInstance(message)) view.user = message.text;
      if (AIMessage.isInstance(message))
        for (const call of message.tool_calls ?? []) names.set(call.id ?? "", call.name);
      if (ToolMessage.isInstance(message))
        view.toolResults.push({ name: names.get(message.tool_call_id) ?? "?", result: message.text });
    }
    const step = scriptedStep(view);
    const message =
      "toolCall" in step && this.bound.includes(step.toolCall.name)
        ? new AIMessage({
            content: "",
            tool_calls: [
              {
                id: `call_${view.toolResults.length}`,
                name: step.toolCall.name,
                args: step.toolCall.args,
                type: "tool_call",
              },
            ],
          })
        : new AIMessage("text" in step ? step.text : `${step.toolCall.name} is not bound`);
    return { generations: [{ text: message.text, message }] };
  }
}

/** The LangChain adapter: structured tools bound to a chat model, each tool call run by the tool's own invoke. */
describe(`@agent-memory/client/langchain with structured tools (${TEST_BACKEND})`, () => {
  let server: AgentServer;
  let memory: MemoryClient;
  beforeAll(async () => {
    server = await startAgentServer();
    memory = createMemoryClient({ baseUrl: server.baseUrl, apiKey: server.secret, sessionId: "langchain-chat" });
  });
  afterAll(async () => {
    await server?.close();
  });

  /** The usual LangChain tool loop: invoke the bound model, run its tool calls, feed back the ToolMessages. */
  const turn = async (user: string, forgetIntent = false) => {
    const tools = await memoryTools(memory, { turn: { forgetIntent } });
    const byName = new Map(tools.map((t) => [t.name, t]));
    const model = new ScriptedChatModel({}).bindTools(tools);
    const messages: BaseMessage[] = [
      new SystemMessage(
        await memorySystemPrompt(memory, {
          system: "You are a helpful assistant with long-term memory.",
          queryText: user,
        }),
      ),
      new HumanMessage(user),
    ];
    for (let step = 0; step < 5; step++) {
      const reply = await model.invoke(messages);
      messages.push(reply);
      if (!reply.tool_calls?.length) return { text: reply.text, messages };
      for (const call of reply.tool_calls) {
        const result: unknown = await byName.get(call.name)!.invoke({ ...call, type: "tool_call" });
        expect(result).toBeInstanceOf(ToolMessage);
        messages.push(result as ToolMessage);
      }
    }
    throw new Error("the turn did not finish");
  };

  it("writes a card from a tool call, recalls it in a later turn, and shows a forget without intent as a tool result", async () => {
    const remembered = await turn(TURNS.remember);
    expect(remembered.text).toBe("Saved: I will remember your peanut allergy.");

    const recalled = await turn(TURNS.recall);
    expect(recalled.text).toBe("Recalled: Peanut allergy. Memory block in my instructions: yes.");

    const refused = await turn(TURNS.forget);
    expect(refused.text).toBe("Forget answered done=false reason=forget_intent_required");
    const forgetMessage = refused.messages.find(
      (m): m is ToolMessage => ToolMessage.isInstance(m) && m.name === "memory_forget",
    );
    expect(JSON.parse(forgetMessage!.text)).toMatchObject({ done: false, reason: "forget_intent_required" });
    expect(forgetMessage!.status).not.toBe("error");
    expect((await memory.search({ kinds: ["food_avoidance"] })).exact).toHaveLength(1);

    const forgotten = await turn(TURNS.forget, true);
    expect(forgotten.text).toBe("Forget answered done=true reason=undefined");
    expect((await memory.search({ kinds: ["food_avoidance"] })).exact).toEqual([]);
  });

  it("leaves arguments that break the JSON Schema to LangChain's own check, and hands the service's refusals back as tool results", async () => {
    const [search, get] = await memoryTools(memory, { include: ["memory_search", "memory_get"] });
    // LangChain checks the schema before the tool runs (LangGraph's ToolNode turns this into an error ToolMessage).
    await expect(
      search!.invoke({ id: "c1", name: "memory_search", args: { limit: 0 }, type: "tool_call" }),
    ).rejects.toBeInstanceOf(ToolInputParsingException);
    // Within the schema but refused by the service: memory_get needs an id or a lookup.
    const refused = (await get!.invoke({ id: "c2", name: "memory_get", args: {}, type: "tool_call" })) as ToolMessage;
    expect(refused).toBeInstanceOf(ToolMessage);
    expect(refused.tool_call_id).toBe("c2");
    expect(JSON.parse(refused.text)).toMatchObject({
      code: "BAD_REQUEST",
      reason: "invalid_input",
      error: expect.stringMatching(/send id/),
    });
  });
});
