import { readFile } from "node:fs/promises";
import path from "node:path";
import { Validator } from "@langchain/core/utils/json_schema";
import { compileErrors, validate } from "@readme/openapi-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appRouter } from "~/server/api/root";
import { buildOpenApiDocument } from "~/server/tools/openapi";
import { startAgentServer, type AgentServer } from "../support/agent-server";
import { TEST_BACKEND } from "../support/db";

type Operation = {
  operationId: string;
  requestBody?: { content: { "application/json": { examples?: Record<string, { value: unknown }> } } };
  responses: Record<string, { content?: { "application/json": { schema: object } } }>;
};
type Document = {
  openapi: string;
  paths: Record<string, Partial<Record<"get" | "post", Operation>>>;
  components: { schemas: Record<string, object> };
};

/** The document's schemas with unknown fields refused wherever an object lists its fields: an answer's new field must be documented. */
function strict(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(strict);
  if (typeof schema !== "object" || schema === null) return schema;
  const out = Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, strict(value)]));
  return "properties" in out && !("additionalProperties" in out) ? { ...out, additionalProperties: false } : out;
}

const root = path.resolve(import.meta.dirname, "../..");

/**
 * The OpenAPI 3.1 document of the agent endpoint: served at /api/openapi.json, built from the tools'
 * zod schemas, committed as docs/openapi.json, valid by a real OpenAPI validator, and naming exactly
 * the agent routes that exist — each of them answering its examples.
 */
describe(`OpenAPI document of the agent endpoint (${TEST_BACKEND})`, () => {
  let server: AgentServer;
  let served: Document;
  beforeAll(async () => {
    server = await startAgentServer();
    const response = await fetch(`${server.baseUrl}/api/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    served = (await response.json()) as Document;
  });
  afterAll(async () => {
    await server?.close();
  });

  it("is served as generated, and the committed copy is the same (npm run openapi rewrites it)", async () => {
    const generated = buildOpenApiDocument();
    expect(served).toEqual(generated);
    const committed = JSON.parse(await readFile(path.join(root, "docs/openapi.json"), "utf8")) as unknown;
    expect(committed, "docs/openapi.json is stale: run npm run openapi").toEqual(generated);
  });

  it("is a valid OpenAPI 3.1 document", async () => {
    expect(served.openapi).toBe("3.1.0");
    const result = await validate(structuredClone(served) as never);
    expect(result.valid, result.valid ? "" : compileErrors(result)).toBe(true);
    expect(result.specification).toBe("OpenAPI");
    // The validator catches a broken document (a test that cannot fail proves nothing).
    const broken = structuredClone(served) as unknown as { paths: Record<string, unknown> };
    broken.paths["/api/trpc/tools.list"] = {
      get: {
        responses: { "200": { content: { "application/json": { schema: { $ref: "#/components/schemas/Nope" } } } } },
      },
    };
    expect((await validate(broken as never)).valid).toBe(false);
  });

  it("names exactly the agent procedures that exist, with their methods, and MCP", () => {
    const procedures = appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>;
    const agentProcedures = Object.entries(procedures)
      .filter(([name]) => /^tools\.[A-Za-z_]+$/.test(name) || name === "me.agent")
      .map(([name, procedure]) => `${procedure._def.type === "query" ? "get" : "post"} /api/trpc/${name}`);
    const documented = Object.entries(served.paths).flatMap(([route, methods]) =>
      Object.keys(methods).map((method) => `${method} ${route}`),
    );
    expect(documented.sort()).toEqual([...agentProcedures, "post /api/mcp"].sort());
  });

  it("answers every documented call and example on the started endpoint as documented (none is an unknown route)", async () => {
    const components = strict(served.components) as object;
    let calls = 0;
    let validated = 0;
    // Twice: the second pass reads the cards the first one wrote, so search and context answers hold cards.
    for (const pass of [1, 2]) {
      for (const [route, methods] of Object.entries(served.paths)) {
        for (const [method, operation] of Object.entries(methods) as ["get" | "post", Operation][]) {
          const examples = Object.values(operation.requestBody?.content["application/json"].examples ?? {}).map(
            (example) => example.value,
          );
          for (const body of method === "get" ? [undefined] : examples) {
            const headers: Record<string, string> = {
              authorization: `Bearer ${server.secret}`,
              "content-type": "application/json",
              accept: "application/json, text/event-stream",
            };
            const response = await fetch(`${server.baseUrl}${route}`, {
              method: method.toUpperCase(),
              headers,
              body: body === undefined ? undefined : JSON.stringify(body),
            });
            const text = await response.text();
            const where = `pass ${pass}: ${method} ${route} ${JSON.stringify(body)}: ${text.slice(0, 300)}`;
            calls += 1;
            expect(response.status, where).not.toBe(405);
            expect(response.status, where).toBeLessThan(500);
            expect(text, where).not.toMatch(/"reason":"(unknown_tool|wrong_method|invalid_input)"/);
            // Examples with placeholder ids (mem_A…) name no card: a 404 with its reason, not a missing route.
            if (response.status === 404)
              expect(JSON.parse(text), where).toMatchObject({ error: { data: { code: "NOT_FOUND" } } });
            const documented = operation.responses[String(response.status)]?.content?.["application/json"].schema;
            expect(documented, `${where}: status not documented`).toBeDefined();
            const result = new Validator(
              { ...(strict(documented) as object), components } as never,
              "2020-12",
              false,
            ).validate(JSON.parse(text));
            expect(
              result.errors.map((e) => `${e.instanceLocation}: ${e.error}`),
              where,
            ).toEqual([]);
            validated += 1;
          }
        }
      }
    }
    expect(calls).toBeGreaterThanOrEqual(24);
    expect(validated).toBe(calls);
    // The examples really wrote (so the second pass validated search and context answers holding cards).
    const search = await fetch(`${server.baseUrl}/api/trpc/tools.memory_search`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.secret}`, "content-type": "application/json" },
      body: JSON.stringify({ all: true }),
    });
    const titles = ((await search.json()) as { result: { data: { exact: { title: string }[] } } }).result.data.exact
      .map((hit) => hit.title)
      .sort();
    expect(titles).toEqual(["Peanut allergy", "Time zone"]);
  });

  it("documents the answers strictly enough to catch an undocumented field", () => {
    const components = strict(served.components) as object;
    const node = { $ref: "#/components/schemas/MemoryGetResult", components };
    const validator = new Validator(node as never, "2020-12", false);
    expect(validator.validate({ found: false, message: "none" }).valid).toBe(true);
    expect(validator.validate({ found: false, message: "none", surprise: 1 }).valid).toBe(false);
    expect(validator.validate({ found: "no", message: "none" }).valid).toBe(false);
  });
});
