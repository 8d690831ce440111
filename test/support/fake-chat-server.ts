import http from "node:http";
import type { AddressInfo } from "node:net";
import { scriptedStep, type ScriptedView } from "./scripted-agent";

type ChatMessage = {
  role: "system" | "developer" | "user" | "assistant" | "tool";
  content?: string | null | { type: string; text?: string }[];
  tool_calls?: { id: string; type: "function"; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
};
type ChatRequest = {
  model: string;
  messages: ChatMessage[];
  tools?: { type: "function"; function: { name: string } }[];
  stream?: boolean;
};

const textOf = (content: ChatMessage["content"]) =>
  typeof content === "string" ? content : (content ?? []).map((part) => part.text ?? "").join("");

/** The scripted model's view of an OpenAI chat request: system, the last user message, the tool results after it. */
export function viewOfChat(messages: ChatMessage[]): ScriptedView {
  const view: ScriptedView = { system: "", user: "", toolResults: [] };
  const names = new Map<string, string>();
  for (const message of messages) {
    if (message.role === "system" || message.role === "developer") view.system += textOf(message.content);
    if (message.role === "user") {
      view.user = textOf(message.content);
      view.toolResults = [];
    }
    for (const call of message.tool_calls ?? []) names.set(call.id, call.function.name);
    if (message.role === "tool")
      view.toolResults.push({ name: names.get(message.tool_call_id ?? "") ?? "?", result: textOf(message.content) });
  }
  return view;
}

/**
 * An OpenAI-compatible chat server on localhost (POST /v1/chat/completions, no streaming) answering
 * with the scripted model: what an agent framework talks to in place of a hosted model.
 */
export async function startFakeChatServer() {
  const requests: ChatRequest[] = [];
  let calls = 0;
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
      res
        .writeHead(404, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { message: `no ${req.method} ${req.url} here` } }));
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as ChatRequest;
    requests.push(body);
    const step = scriptedStep(viewOfChat(body.messages));
    const offered = (body.tools ?? []).map((t) => t.function.name);
    calls += 1;
    const message =
      "toolCall" in step
        ? offered.includes(step.toolCall.name)
          ? {
              role: "assistant",
              content: null,
              tool_calls: [
                {
                  id: `call_${calls}`,
                  type: "function",
                  function: { name: step.toolCall.name, arguments: JSON.stringify(step.toolCall.args) },
                },
              ],
            }
          : { role: "assistant", content: `${step.toolCall.name} was not offered (offered: ${offered.join(", ")})` }
        : { role: "assistant", content: step.text };
    const answer = {
      id: `chatcmpl-${calls}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [{ index: 0, message, finish_reason: "tool_calls" in message ? "tool_calls" : "stop", logprobs: null }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    };
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
