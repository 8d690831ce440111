import { env } from "~/env";

export type ChatMessage = { role: "system" | "user" | "assistant"; content: string };

export type LlmClient = {
  model: string;
  complete(messages: ChatMessage[], options?: { json?: boolean; maxTokens?: number }): Promise<string>;
};

export class LlmError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LlmError";
  }
}

/**
 * Any OpenAI-compatible `/chat/completions` (OpenAI, Ollama, vLLM, LM Studio, DashScope…). Returns
 * null when no model is configured: callers fall back to their rules.
 */
export function createLlmClient(
  config: { baseUrl?: string; apiKey?: string; model?: string; timeoutMs?: number } = {
    baseUrl: env.LLM_BASE_URL,
    apiKey: env.LLM_API_KEY,
    model: env.LLM_MODEL,
    timeoutMs: env.LLM_TIMEOUT_MS,
  },
): LlmClient | null {
  const { baseUrl, model } = config;
  if (!baseUrl || !model) return null;
  const url = `${baseUrl.replace(/\/+$/, "")}/chat/completions`;
  return {
    model,
    async complete(messages, options = {}) {
      const response = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}),
        },
        body: JSON.stringify({
          model,
          messages,
          temperature: 0,
          max_tokens: options.maxTokens ?? 800,
          ...(options.json ? { response_format: { type: "json_object" } } : {}),
        }),
        signal: AbortSignal.timeout(config.timeoutMs ?? 20_000),
      }).catch((error: unknown) => {
        throw new LlmError(`LLM request to ${url} failed: ${error instanceof Error ? error.message : String(error)}`);
      });
      if (!response.ok)
        throw new LlmError(`LLM ${model} answered HTTP ${response.status}: ${(await response.text()).slice(0, 300)}`);
      const body = (await response.json()) as { choices?: { message?: { content?: string } }[] };
      const content = body.choices?.[0]?.message?.content;
      if (typeof content !== "string") throw new LlmError(`LLM ${model} returned no message content.`);
      return content;
    },
  };
}

/** Parses the first JSON object in a model's answer (models like to wrap JSON in prose or fences). */
export function parseJsonObject(text: string): unknown {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end <= start) throw new LlmError("LLM answer contained no JSON object.");
  return JSON.parse(text.slice(start, end + 1));
}
