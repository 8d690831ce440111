import {
  APPEND_DESCRIPTION,
  CONTEXT_DESCRIPTION,
  FORGET_DESCRIPTION,
  GET_DESCRIPTION,
  SEARCH_DESCRIPTION,
} from "./descriptions";
import type { JsonSchema } from "./json-schema";
import { RESULT_SCHEMAS, TOOL_RESULT_SCHEMA } from "./openapi-results";
import { toolCatalog, turnInputJsonSchema, type ToolName } from "./registry";

/**
 * The OpenAPI 3.1 description of the agent endpoint (the tRPC `tools.*` and `me.agent` procedures an
 * API key calls, and MCP), built from the same zod schemas the tools validate with (zod 4's JSON
 * Schema, through the registry). Served at /api/openapi.json; docs/openapi.json is a committed copy
 * (`npm run openapi` rewrites it; test/clients/openapi.test.ts fails when they differ).
 */

const ERROR_STATUSES: Record<string, string> = {
  "400":
    "Bad input (`invalid_input`, `unknown_tool`, `session_required`, `invalid_utf8`, …): the message says what to send instead.",
  "401": "No key, or one that is malformed, unknown, revoked or expired.",
  "403":
    "The key lacks the permission (`missing_permission`), or may not read or write the scope (`scope_not_readable`, `scope_not_writable`).",
  "404": "No card with that id in the scopes the key may read.",
  "409": "The idempotencyKey was used before for another call (`idempotency_key_reused`).",
  "413": "The body is over 256 KB (`payload_too_large`).",
  "429": "Over the key's per-minute limit (`rate_limited`): wait `Retry-After` seconds.",
  "503":
    "The database connection broke during the call (`database_unavailable`): retry a write with the same idempotencyKey.",
};

/** A short summary for memory_write: its full description lists the organisation's kinds (tools.list has it per key). */
const WRITE_SUMMARY = [
  "Save or change durable memory: a batch of create / update / supersede / expire operations, all or nothing.",
  "`done: false` means nothing was written (see each result's reason). A create that replaced a card names it in `replaced`.",
  "The kinds an organisation may write, with their value shapes, are in this tool's description from tools.list.",
].join("\n");

const DESCRIPTIONS: Record<ToolName, string> = {
  memory_search: SEARCH_DESCRIPTION,
  memory_get: GET_DESCRIPTION,
  memory_write: WRITE_SUMMARY,
  memory_forget: FORGET_DESCRIPTION,
  memory_context: CONTEXT_DESCRIPTION,
  message_append: APPEND_DESCRIPTION,
};

/** The calls of the README's "Connect an agent", as request examples. */
const EXAMPLES: Record<ToolName, Record<string, { summary: string; value: unknown }>> = {
  message_append: {
    capture: {
      summary: "Store the user's message as evidence",
      value: {
        turn: { sessionId: "chat-42" },
        messages: [{ role: "user", content: "Remember that I am allergic to peanuts." }],
      },
    },
  },
  memory_write: {
    create: {
      summary: "Save what the user asked to remember",
      value: {
        turn: { sessionId: "chat-42" },
        operations: [
          {
            op: "create",
            kind: "avoid_ingredient",
            itemKey: "peanuts",
            explicitUserIntent: true,
            node: {
              title: "Peanut allergy",
              content: "The user is allergic to peanuts.",
              valueJson: { food: "peanuts", reason: "allergy" },
            },
          },
        ],
      },
    },
    update: {
      summary: "Change a card (a new revision under a new id)",
      value: {
        operations: [
          {
            op: "update",
            targetId: "mem_A…",
            expectedRevision: 1,
            explicitUserIntent: true,
            node: { content: "Severe peanut allergy." },
          },
        ],
      },
    },
  },
  memory_search: {
    kinds: { summary: "A known category", value: { kinds: ["avoid_ingredient"] } },
    all: { summary: '"Show all my memories"', value: { all: true } },
    question: { summary: "An open question", value: { queryText: "peanut allergy" } },
  },
  memory_get: { byId: { summary: "One card and its revision", value: { id: "mem_A…" } } },
  memory_context: {
    turn: {
      summary: "The memory block for this turn",
      value: { queryText: "Can I eat satay?", turn: { sessionId: "chat-42" } },
    },
  },
  memory_forget: {
    byId: {
      summary: "Forget one card the user asked to forget",
      value: { id: "mem_B…", expectedRevision: 2, reason: "the user asked to forget it", turn: { forgetIntent: true } },
    },
  },
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const pascal = (name: string) => name.replace(/(^|_)([a-z])/g, (_m, _s: string, c: string) => c.toUpperCase());
const json = (schema: JsonSchema, extra: Record<string, unknown> = {}) => ({
  content: { "application/json": { schema, ...extra } },
});

const successOf = (data: JsonSchema, description: string) => ({
  description,
  ...json({
    type: "object",
    required: ["result"],
    properties: { result: { type: "object", required: ["data"], properties: { data } } },
  }),
});

const errorResponses = () =>
  Object.fromEntries(
    Object.entries(ERROR_STATUSES).map(([status, description]) => [
      status,
      {
        description,
        ...(status === "429"
          ? {
              headers: {
                "Retry-After": {
                  description: "Seconds to wait before retrying.",
                  schema: { type: "integer", minimum: 0 },
                },
              },
            }
          : {}),
        ...json(ref("Error")),
      },
    ]),
  );

/** Read-your-writes across instances (src/server/db-routing.ts): a write's token, sent back with a later read. */
const CONSISTENCY_PARAMETER = {
  name: "X-Memory-Consistency",
  in: "header",
  required: false,
  description:
    "A write's `consistency` token (a WAL position such as `0/3A2B4C8`), sent back with a later read: the read then runs on a read replica only once that replica has replayed the write, else on the primary, on any instance. Only meaningful where the server has read replicas (DATABASE_READ_URL); ignored otherwise and on writes. A malformed value is ignored.",
  schema: { type: "string", pattern: "^[0-9A-Fa-f]{1,8}/[0-9A-Fa-f]{1,8}$", examples: ["0/3A2B4C8"] },
};
const consistencyParameter = { $ref: "#/components/parameters/Consistency" };
const WRITE_CONSISTENCY_NOTE =
  " With read replicas configured, a write's answer also carries `consistency` (string): the commit's WAL position, to send back as `X-Memory-Consistency` with later reads that may reach another instance.";

export function buildOpenApiDocument(): JsonSchema {
  const catalog = toolCatalog();
  const schemas: Record<string, JsonSchema> = {
    ...RESULT_SCHEMAS,
    Turn: {
      ...turnInputJsonSchema(),
      description: "Sent by the host (your program) with each call, never by the model.",
    },
    Error: {
      type: "object",
      description: "A tRPC error: `data.reason` is machine-readable, `message` says what to send instead.",
      required: ["error"],
      properties: {
        error: {
          type: "object",
          required: ["message", "code", "data"],
          properties: {
            message: { type: "string" },
            code: { type: "integer", description: "JSON-RPC error code." },
            data: {
              type: "object",
              required: ["code", "httpStatus"],
              properties: {
                code: { type: "string", examples: ["BAD_REQUEST", "FORBIDDEN", "TOO_MANY_REQUESTS"] },
                httpStatus: { type: "integer" },
                reason: { type: "string", examples: ["invalid_input", "missing_permission", "rate_limited"] },
                details: { type: "object", additionalProperties: true },
                path: { type: "string", description: "The procedure, e.g. tools.memory_write." },
                zodError: {
                  anyOf: [{ type: "object", additionalProperties: true }, { type: "null" }],
                  description: "Field errors of a schema check, when one failed.",
                },
              },
            },
          },
        },
      },
    },
    ToolCall: {
      type: "object",
      additionalProperties: false,
      required: ["name"],
      properties: {
        name: { type: "string", enum: catalog.map((tool) => tool.name) },
        arguments: { type: "object", description: "The tool's arguments, as in tools.<name> (without turn)." },
        idempotencyKey: {
          type: "string",
          minLength: 8,
          maxLength: 200,
          description: "Makes a retried write or forget answer as the first one did.",
        },
        turn: ref("Turn"),
      },
    },
  };
  const paths: Record<string, unknown> = {
    "/api/trpc/tools.list": {
      get: {
        operationId: "tools.list",
        summary: "The tools this key may call",
        description:
          "Each tool with its description, JSON Schema and drop-in OpenAI and Anthropic forms. A read-only key never sees memory_write or memory_forget.",
        tags: ["tools"],
        responses: { "200": successOf(ref("ToolList"), "The tools."), ...errorResponses() },
      },
    },
    "/api/trpc/tools.call": {
      post: {
        operationId: "tools.call",
        summary: "Run any tool by name",
        description: `What a generic agent loop sends for each tool call the model makes.${WRITE_CONSISTENCY_NOTE}`,
        tags: ["tools"],
        parameters: [consistencyParameter],
        requestBody: {
          required: true,
          ...json(ref("ToolCall"), {
            examples: {
              write: {
                summary: "A retry-safe write",
                value: {
                  name: "memory_write",
                  arguments: {
                    operations: [
                      {
                        op: "create",
                        kind: "timezone_preference",
                        explicitUserIntent: true,
                        node: { title: "Time zone", content: "Lives in Berlin time.", valueJson: "Europe/Berlin" },
                      },
                    ],
                  },
                  turn: { sessionId: "chat-42" },
                  idempotencyKey: "retry-safe-id-123",
                },
              },
            },
          }),
        },
        responses: {
          "200": successOf(
            { anyOf: Object.values(TOOL_RESULT_SCHEMA).map(ref) },
            "The tool's answer (as tools.<name> answers it).",
          ),
          ...errorResponses(),
        },
      },
    },
    "/api/trpc/me.agent": {
      get: {
        operationId: "me.agent",
        summary: "The calling key",
        tags: ["key"],
        responses: {
          "200": successOf(
            {
              type: "object",
              properties: {
                keyId: { type: "string" },
                prefix: { type: "string" },
                name: { type: "string" },
                tenantId: { type: "string" },
                scopes: { type: "array", items: { type: "string" } },
                permissions: { type: "array", items: { type: "string" } },
                expiresAt: { type: ["string", "null"], format: "date-time" },
              },
            },
            "The key's id, prefix, scopes and permissions (never its secret or hash).",
          ),
          ...errorResponses(),
        },
      },
    },
  };
  for (const tool of catalog) {
    const input = `${pascal(tool.name)}Input`;
    const properties = (tool.inputSchema.properties ?? {}) as JsonSchema;
    schemas[input] = { ...tool.inputSchema, properties: { ...properties, turn: ref("Turn") } };
    paths[`/api/trpc/tools.${tool.name}`] = {
      post: {
        operationId: `tools.${tool.name}`,
        summary: tool.title,
        description: `${DESCRIPTIONS[tool.name]}\n\nNeeds the \`${tool.permission}\` permission.${tool.readOnly ? "" : WRITE_CONSISTENCY_NOTE}`,
        tags: ["tools"],
        ...(tool.readOnly ? { parameters: [consistencyParameter] } : {}),
        ...(tool.destructive ? { "x-destructive": true } : {}),
        requestBody: { required: true, ...json(ref(input), { examples: EXAMPLES[tool.name] }) },
        responses: {
          "200": successOf(ref(TOOL_RESULT_SCHEMA[tool.name]), `The ${tool.name} answer.`),
          ...errorResponses(),
        },
      },
    };
  }
  paths["/api/mcp"] = {
    post: {
      operationId: "mcp",
      summary: "The same tools over MCP",
      description:
        "Model Context Protocol, Streamable HTTP (stateless, JSON responses): initialize, tools/list, tools/call. Send `Accept: application/json, text/event-stream`. The turn goes in `params._meta.turn` or the `X-Memory-Session-Id`, `X-Memory-Workspace-Id`, `X-Memory-User-Id` and `X-Memory-Forget-Intent` headers. `X-Memory-Consistency` works as for tRPC (see the parameter).",
      tags: ["mcp"],
      parameters: [consistencyParameter],
      requestBody: {
        required: true,
        ...json(
          {
            type: "object",
            required: ["jsonrpc", "method"],
            properties: {
              jsonrpc: { const: "2.0" },
              id: { type: ["string", "integer"] },
              method: { type: "string" },
              params: { type: "object" },
            },
          },
          {
            examples: {
              search: {
                summary: "Call a tool",
                value: {
                  jsonrpc: "2.0",
                  id: 1,
                  method: "tools/call",
                  params: { name: "memory_search", arguments: { all: true } },
                },
              },
            },
          },
        ),
      },
      responses: {
        "200": {
          description: "A JSON-RPC answer; a tool's failure is a result with isError: true.",
          ...json({ type: "object" }),
        },
        "401": { description: "No valid key.", ...json({ type: "object" }) },
        "403": {
          description: "A browser origin that is not allowed (DNS-rebinding protection).",
          ...json({ type: "object" }),
        },
      },
    },
  };
  return {
    openapi: "3.1.0",
    info: {
      title: "Agent memory: tool endpoint",
      version: "0.1.0",
      description:
        'Long-term memory for AI agents. Every call takes an API key (`Authorization: Bearer mem_live_…`) and plain JSON (tRPC without a transformer). A tool\'s arguments and the optional `turn` go at the top level of the body of `tools.<name>`; successful answers are `{"result": {"data": …}}`.',
      license: { name: "MIT", identifier: "MIT" },
    },
    servers: [{ url: "http://localhost:3000", description: "A local install (npm start)" }],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: "tools", description: "The memory tools" },
      { name: "key", description: "The calling key" },
      { name: "mcp", description: "Model Context Protocol" },
    ],
    paths,
    components: {
      securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", description: "An agent key, mem_live_…" } },
      parameters: { Consistency: CONSISTENCY_PARAMETER },
      schemas,
    },
  };
}

let cached: string | undefined;
/** The document as served: built once per process. */
export function openApiJson(): string {
  cached ??= `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
  return cached;
}
