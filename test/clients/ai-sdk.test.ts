import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memorySystemPrompt, memoryTools } from "../../packages/client/src/ai";
import { createMemoryClient, type MemoryClient } from "../../packages/client/src/index";
import { startAgentServer, type AgentServer } from "../support/agent-server";
import { TEST_BACKEND } from "../support/db";
import { scriptedStep, TURNS, type ScriptedView } from "../support/scripted-agent";

type DoGenerate = MockLanguageModelV3["doGenerate"];
type LanguageModelV3CallOptions = Parameters<DoGenerate>[0];
type LanguageModelV3GenerateResult = Awaited<ReturnType<DoGenerate>>;

/** The Vercel AI SDK adapter in `generateText`'s own tool loop, with the SDK's mock model scripted. */
describe(`@agent-memory/client/ai with generateText (${TEST_BACKEND})`, () => {
  let server: AgentServer;
  let memory: MemoryClient;
  beforeAll(async () => {
    server = await startAgentServer();
    memory = createMemoryClient({ baseUrl: server.baseUrl, apiKey: server.secret, sessionId: "ai-sdk-chat" });
  });
  afterAll(async () => {
    await server?.close();
  });

  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 1, text: 1, reasoning: undefined },
  };
  /** The scripted model: reads the prompt the SDK built (system, user, tool results) and answers as the script says. */
  const model = () =>
    new MockLanguageModelV3({
      doGenerate: async (options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> => {
        const view: ScriptedView = { system: "", user: "", toolResults: [] };
        for (const message of options.prompt) {
          if (message.role === "system") view.system += message.content;
          if (message.role === "user")
            view.user = message.content.map((part) => (part.type === "text" ? part.text : "")).join("");
          if (message.role === "tool") {
            for (const part of message.content) {
              if (part.type === "tool-result")
                view.toolResults.push({
                  name: part.toolName,
                  result: part.output.type === "json" || part.output.type === "text" ? part.output.value : part.output,
                });
            }
          }
        }
        const step = scriptedStep(view);
        if ("toolCall" in step) {
          const offered = (options.tools ?? []).map((t) => t.name);
          if (!offered.includes(step.toolCall.name))
            throw new Error(`the SDK did not offer ${step.toolCall.name} (offered: ${offered.join(", ")})`);
          return {
            content: [
              {
                type: "tool-call",
                toolCallId: `call-${view.toolResults.length}`,
                toolName: step.toolCall.name,
                input: JSON.stringify(step.toolCall.args),
              },
            ],
            finishReason: { unified: "tool-calls", raw: "tool_calls" },
            usage,
            warnings: [],
          };
        }
        return {
          content: [{ type: "text", text: step.text }],
          finishReason: { unified: "stop", raw: "stop" },
          usage,
          warnings: [],
        };
      },
    });

  const turn = async (user: string, forgetIntent = false) => {
    const tools = await memoryTools(memory, { turn: () => ({ forgetIntent }) });
    const system = await memorySystemPrompt(memory, {
      system: "You are a helpful assistant with long-term memory.",
      queryText: user,
    });
    return generateText({ model: model(), tools, system, prompt: user, stopWhen: stepCountIs(5) });
  };

  it("writes a card from a tool call, recalls it in a later turn, and shows a forget without intent as a tool result", async () => {
    const tools = await memoryTools(memory);
    expect(Object.keys(tools)).toEqual([
      "memory_search",
      "memory_get",
      "memory_write",
      "memory_forget",
      "memory_context",
      "message_append",
    ]);

    const remembered = await turn(TURNS.remember);
    expect(remembered.text).toBe("Saved: I will remember your peanut allergy.");
    expect(remembered.steps[0]?.toolResults[0]).toMatchObject({ toolName: "memory_write", output: { done: true } });

    const system = await memorySystemPrompt(memory, { system: "Be brief.", queryText: TURNS.recall });
    expect(system.startsWith("Be brief.\n\n")).toBe(true);
    expect(system).toContain("allergic to peanuts");
    const recalled = await turn(TURNS.recall);
    expect(recalled.text).toBe("Recalled: Peanut allergy. Memory block in my instructions: yes.");

    const refused = await turn(TURNS.forget);
    expect(refused.text).toBe("Forget answered done=false reason=forget_intent_required");
    const forgetResult = refused.steps.flatMap((s) => s.toolResults).find((r) => r.toolName === "memory_forget");
    expect(forgetResult?.output).toMatchObject({ done: false, reason: "forget_intent_required" });
    expect((await memory.search({ kinds: ["food_avoidance"] })).exact.map((hit) => hit.status)).toEqual(["active"]);

    // The host says the user asked: the same script now forgets it.
    const forgotten = await turn(TURNS.forget, true);
    expect(forgotten.text).toBe("Forget answered done=true reason=undefined");
    expect((await memory.search({ kinds: ["food_avoidance"] })).exact).toEqual([]);
  });

  it("hands the service's refusal of bad arguments to the model as a tool result, and offers a read-only key no write", async () => {
    const readOnly = createMemoryClient({
      baseUrl: server.baseUrl,
      apiKey: await server.newKey({ permissions: ["memory:read", "messages:write"] }),
    });
    const tools = await memoryTools(readOnly);
    expect(Object.keys(tools)).not.toContain("memory_write");
    // A model that calls a tool the key may not use (it was offered by another key's list).
    const writeTool = (await memoryTools(memory, { include: ["memory_write"] })).memory_write!;
    const result = await generateText({
      model: new MockLanguageModelV3({
        doGenerate: [
          {
            content: [
              {
                type: "tool-call",
                toolCallId: "c1",
                toolName: "memory_write",
                input: JSON.stringify({ operations: [] }),
              },
            ],
            finishReason: { unified: "tool-calls", raw: "tool_calls" },
            usage,
            warnings: [],
          },
          {
            content: [{ type: "text", text: "done" }],
            finishReason: { unified: "stop", raw: "stop" },
            usage,
            warnings: [],
          },
        ],
      }),
      tools: { memory_write: writeTool },
      prompt: "write nothing",
      stopWhen: stepCountIs(3),
    });
    expect(result.steps[0]?.toolResults[0]?.output).toMatchObject({ code: "BAD_REQUEST", reason: "invalid_input" });
    expect(result.text).toBe("done");
  });
});
