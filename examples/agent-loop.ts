// An agent loop with long-term memory: @agent-memory/client and any OpenAI-compatible chat API.
//
//   MEMORY_URL=http://localhost:3000 MEMORY_KEY=mem_live_… LLM_KEY=sk-… \
//     npx tsx examples/agent-loop.ts "Remember that I am allergic to peanuts."
//
// LLM_URL (default https://api.openai.com/v1) and LLM_MODEL (default gpt-4.1-mini) pick the model;
// MEMORY_SESSION names the conversation. test/clients/examples.test.ts runs this file against a
// started endpoint and a scripted chat server, so it keeps working.
import { createMemoryClient, MemoryApiError, type MemoryClient } from "@agent-memory/client";

type ChatMessage = {
  role: string;
  content: string | null;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
};
export type Llm = { url: string; key?: string; model: string };

/** Your program's judgement, not the model's: did the user ask to forget in this turn? (A stand-in: use your own check.) */
const askedToForget = (text: string) => /\b(forget|delete)\b|忘掉|删除/i.test(text);

async function chat(llm: Llm, messages: ChatMessage[], tools: unknown[]): Promise<ChatMessage> {
  const response = await fetch(`${llm.url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(llm.key ? { authorization: `Bearer ${llm.key}` } : {}) },
    body: JSON.stringify({ model: llm.model, messages, tools }),
  });
  if (!response.ok) throw new Error(`chat model answered ${response.status}: ${await response.text()}`);
  const body = (await response.json()) as { choices: { message: ChatMessage }[] };
  return body.choices[0]!.message;
}

/** One turn: capture the message, recall into the prompt, let the model use the memory tools. */
export async function runTurn(memory: MemoryClient, llm: Llm, userText: string): Promise<string> {
  const turn = { forgetIntent: askedToForget(userText) };
  await memory.appendMessages([{ role: "user", content: userText }]);
  const [{ tools }, context] = await Promise.all([memory.listTools(), memory.context({ queryText: userText })]);
  const messages: ChatMessage[] = [
    { role: "system", content: `You are a helpful assistant with long-term memory.\n\n${context.prompt}` },
    { role: "user", content: userText },
  ];
  for (let step = 0; step < 8; step++) {
    const reply = await chat(
      llm,
      messages,
      tools.map((tool) => tool.openai),
    );
    messages.push(reply);
    if (!reply.tool_calls?.length) return reply.content ?? "";
    for (const call of reply.tool_calls) {
      const result = await memory
        .call(call.function.name, JSON.parse(call.function.arguments) as Record<string, unknown>, {
          turn: { ...turn, toolCallId: call.id },
        })
        .catch((error: unknown) => (error instanceof MemoryApiError ? error.toToolResult() : { error: String(error) }));
      messages.push({ role: "tool", tool_call_id: call.id, content: JSON.stringify(result) });
    }
  }
  return "I could not finish this turn.";
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const userText = process.argv.slice(2).join(" ");
  if (!userText)
    throw new Error('Say something: npx tsx examples/agent-loop.ts "Remember that I am allergic to peanuts."');
  const memory = createMemoryClient({
    baseUrl: process.env.MEMORY_URL ?? "http://localhost:3000",
    apiKey: process.env.MEMORY_KEY ?? "",
    sessionId: process.env.MEMORY_SESSION ?? "example-chat",
  });
  const llm = {
    url: process.env.LLM_URL ?? "https://api.openai.com/v1",
    key: process.env.LLM_KEY,
    model: process.env.LLM_MODEL ?? "gpt-4.1-mini",
  };
  console.log(await runTurn(memory, llm, userText));
}
