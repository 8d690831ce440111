import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEmbeddingProvider, type EmbeddingConfig } from "~/server/providers/embeddings";
import { englishStem } from "~/server/text/english-stem";
import { createLocalEmbeddingProvider, localEmbedding } from "~/server/providers/embeddings/local";
import { createOpenAiEmbeddingProvider, EmbeddingProviderError } from "~/server/providers/embeddings/openai";
import { countTokens } from "~/server/text/token-count";

const cosine = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);
const norm = (a: number[]) => Math.sqrt(cosine(a, a));

describe("local embeddings", () => {
  const provider = createLocalEmbeddingProvider({ dimensions: 256 });

  it("is deterministic, L2-normalized and of the configured dimension", async () => {
    const [a, b] = await provider.embed(["用户不吃香菜 (cilantro)", "用户不吃香菜 (cilantro)"]);
    expect(a).toHaveLength(256);
    expect(a).toEqual(b);
    expect(norm(a!)).toBeCloseTo(1, 6);
    expect(provider.model).toBe("local-hash-v1");
  });

  it("places related texts closer than unrelated ones, in Chinese, English and mixed text", () => {
    const v = (text: string) => localEmbedding(text, 256);
    expect(cosine(v("用户不吃香菜"), v("香菜不要放"))).toBeGreaterThan(cosine(v("用户不吃香菜"), v("明天去北京出差")));
    expect(cosine(v("She was painting a sunrise"), v("painted sunrises"))).toBeGreaterThan(
      cosine(v("She was painting a sunrise"), v("quarterly tax return")),
    );
    expect(cosine(v("香菜 cilantro"), v("cilantro"))).toBeGreaterThan(0.3);
  });

  it("gives text without features a zero vector (never stored)", () => {
    expect(localEmbedding("  …  ", 32).every((x) => x === 0)).toBe(true);
  });

  it("stems English inflections to a shared prefix", () => {
    expect(["painting", "painted", "paints"].map(englishStem)).toEqual(["paint", "paint", "paint"]);
    expect(["studies", "study"].map(englishStem)).toEqual(["stud", "stud"]);
    expect(englishStem("glass")).toBe("glass");
    expect(englishStem("cat")).toBe("cat");
  });
});

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

describe("OpenAI-compatible embeddings against a local stand-in server", () => {
  let server: Server;
  let baseUrl: string;
  let handler: Handler = () => {};
  const requests: { auth: string | undefined; body: Record<string, unknown>; url: string | undefined }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => {
        requests.push({
          auth: req.headers.authorization,
          body: JSON.parse(body || "{}") as Record<string, unknown>,
          url: req.url,
        });
        handler(req, body, res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const json = (res: ServerResponse, status: number, payload: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(payload));
  };
  /** Vectors [i+1, 0, 0]: answers out of order, as the API allows (items carry their index). */
  const answer: Handler = (_req, body, res) => {
    const input = (JSON.parse(body) as { input: string[] }).input;
    json(res, 200, { data: input.map((_, i) => ({ index: i, embedding: [i + 1, 0, 0] })).reverse(), model: "m" });
  };
  const provider = (overrides: Partial<Parameters<typeof createOpenAiEmbeddingProvider>[0]> = {}) =>
    createOpenAiEmbeddingProvider({
      baseUrl,
      apiKey: "sk-test",
      model: "text-embedding-test",
      dimensions: 3,
      timeoutMs: 2000,
      ...overrides,
    });

  it("posts batches to /v1/embeddings with the key and model, and keeps the input order", async () => {
    handler = answer;
    requests.length = 0;
    const vectors = await provider({ batchSize: 2 }).embed(["a", "b", "c"]);
    expect(vectors).toEqual([
      [1, 0, 0],
      [1, 0, 0],
      [1, 0, 0],
    ]);
    expect(requests).toHaveLength(2);
    expect(requests[0]).toMatchObject({
      url: "/v1/embeddings",
      auth: "Bearer sk-test",
      body: { model: "text-embedding-test", input: ["a", "b"], encoding_format: "float" },
    });
    expect(requests[0]!.body).not.toHaveProperty("dimensions");
    await provider({ requestDimensions: true }).embed(["x"]);
    expect(requests.at(-1)!.body).toMatchObject({ dimensions: 3 });
  });

  it("cuts each text to the token limit before sending it: a long Chinese turn no longer exceeds the model's context", async () => {
    handler = answer;
    requests.length = 0;
    const long = "我们明天下午三点在会议室讨论项目预算和上线计划。".repeat(400);
    await provider({ maxInputTokens: 300 }).embed([long, "short text"]);
    const [sent, short] = (requests[0]!.body as { input: string[] }).input;
    expect(countTokens(sent!)).toBeLessThanOrEqual(300);
    expect(countTokens(sent!)).toBeGreaterThan(250);
    expect(long.startsWith(sent!.slice(0, -1))).toBe(true);
    expect(short).toBe("short text");
  });

  it("orders vectors by their index", async () => {
    handler = (_req, _body, res) =>
      json(res, 200, {
        data: [
          { index: 1, embedding: [0, 2, 0] },
          { index: 0, embedding: [3, 0, 0] },
        ],
      });
    expect(await provider().embed(["first", "second"])).toEqual([
      [1, 0, 0],
      [0, 1, 0],
    ]);
  });

  it("names the variable to fix when the dimension is wrong", async () => {
    handler = (_req, _body, res) => json(res, 200, { data: [{ index: 0, embedding: [1, 2, 3, 4] }] });
    await expect(provider().embed(["a"])).rejects.toMatchObject({
      name: "EmbeddingProviderError",
      reason: "embedding_dimension_mismatch",
      message: expect.stringContaining("EMBEDDING_DIMENSIONS=4"),
    });
  });

  it("reports refused credentials, missing models and server errors with the server's own message", async () => {
    handler = (_req, _body, res) => json(res, 401, { error: { message: "Incorrect API key provided" } });
    await expect(provider().embed(["a"])).rejects.toMatchObject({
      reason: "embedding_unauthorized",
      retryable: false,
      message: expect.stringMatching(/Incorrect API key.*EMBEDDING_API_KEY/),
    });
    handler = (_req, _body, res) => json(res, 404, { error: { message: "model not found" } });
    await expect(provider().embed(["a"])).rejects.toMatchObject({
      reason: "embedding_not_found",
      message: expect.stringContaining("EMBEDDING_MODEL"),
    });
    handler = (_req, _body, res) => json(res, 503, { error: { message: "overloaded" } });
    await expect(provider().embed(["a"])).rejects.toMatchObject({ reason: "embedding_http_error", retryable: true });
    handler = (_req, _body, res) => (res.writeHead(200, { "content-type": "text/html" }), res.end("<html>hi</html>"));
    await expect(provider().embed(["a"])).rejects.toMatchObject({ reason: "embedding_bad_response" });
    handler = (_req, _body, res) => json(res, 200, { data: [] });
    await expect(provider().embed(["a"])).rejects.toMatchObject({ reason: "embedding_bad_response" });
  });

  it("times out a slow server", async () => {
    handler = (_req, body, res) => setTimeout(() => answer(_req, body, res), 1000);
    const started = Date.now();
    const error = await provider({ timeoutMs: 150 })
      .embed(["a"])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmbeddingProviderError);
    expect(error).toMatchObject({
      reason: "embedding_timeout",
      retryable: true,
      message: expect.stringContaining("EMBEDDING_TIMEOUT_MS"),
    });
    expect(Date.now() - started).toBeLessThan(900);
  });

  it("says when the endpoint cannot be reached", async () => {
    const unreachable = createOpenAiEmbeddingProvider({
      baseUrl: "http://127.0.0.1:1/v1",
      model: "m",
      dimensions: 3,
      timeoutMs: 2000,
    });
    await expect(unreachable.embed(["a"])).rejects.toMatchObject({
      reason: "embedding_unreachable",
      message: expect.stringContaining("EMBEDDING_BASE_URL"),
    });
  });

  it("is chosen by configuration, and refuses openai without a model name", () => {
    const config: EmbeddingConfig = {
      EMBEDDING_PROVIDER: "openai",
      EMBEDDING_MODEL: "local-hash-v1",
      EMBEDDING_DIMENSIONS: 3,
      EMBEDDING_BASE_URL: baseUrl,
      EMBEDDING_API_KEY: undefined,
      EMBEDDING_TIMEOUT_MS: 1000,
      EMBEDDING_REQUEST_DIMENSIONS: false,
      EMBEDDING_MAX_TOKENS: 4096,
    };
    expect(() => createEmbeddingProvider(config)).toThrow(/EMBEDDING_MODEL/);
    expect(createEmbeddingProvider({ ...config, EMBEDDING_MODEL: "nomic-embed-text" })).toMatchObject({
      model: "nomic-embed-text",
      dimensions: 3,
    });
    expect(createEmbeddingProvider({ ...config, EMBEDDING_PROVIDER: "local" })).toMatchObject({
      model: "local-hash-v1",
      dimensions: 3,
    });
  });
});
