import { loadKindRegistry } from "~/server/memory";
import type { Database } from "~/db/types";
import type { ApiKey, ApiKeyPermission } from "~/db/schema";
import { hasPermission } from "~/server/auth/permissions";
import {
  APPEND_DESCRIPTION,
  CONTEXT_DESCRIPTION,
  FIELD_NOTES,
  FORGET_DESCRIPTION,
  GET_DESCRIPTION,
  SEARCH_DESCRIPTION,
  writeDescription,
} from "./descriptions";
import { toolInputJsonSchema, type JsonSchema } from "./json-schema";
import { turnSchema } from "./schemas";
import { routeWork } from "~/server/db-routing";
import { keyPrincipal, TOOLS } from "./definitions";
import { TOOL_NAMES, type ToolName } from "./results";

/** What tools.list and MCP list: the tools a key may call, with their JSON Schemas and descriptions. */
export type ToolDescriptor = {
  name: ToolName;
  title: string;
  description: string;
  /** The permission that makes this tool available to a key. */
  permission: ApiKeyPermission;
  readOnly: boolean;
  destructive: boolean;
  inputSchema: JsonSchema;
  /** Drop-in definitions for the OpenAI (function calling) and Anthropic (tool use) APIs. */
  openai: { type: "function"; function: { name: string; description: string; parameters: JsonSchema } };
  anthropic: { name: string; description: string; input_schema: JsonSchema };
};

const schemaCache = new Map<ToolName, JsonSchema>();
function inputSchemaOf(name: ToolName): JsonSchema {
  let schema = schemaCache.get(name);
  if (!schema) {
    const tool = TOOLS[name];
    schema = toolInputJsonSchema(tool.schema, { omit: tool.omit, notes: FIELD_NOTES[name] });
    schemaCache.set(name, schema);
  }
  return schema;
}

let turnJsonSchema: JsonSchema | undefined;
/** The JSON Schema of `turn`, for hosts. */
export function turnInputJsonSchema(): JsonSchema {
  turnJsonSchema ??= toolInputJsonSchema(turnSchema, {
    notes: {
      sessionId:
        "The conversation: default session scope, and the session message_append stored this turn's evidence in.",
      workspaceId: "Default workspace scope for this turn.",
      userId: "Whose user profile this turn is about (default: the key's owner).",
      forgetIntent: "The user explicitly asked to forget something in this turn.",
      forgetAllIntent: "The user explicitly asked to clear all memory in this turn.",
      toolCallId: "The model's tool-call id, kept in the audit trail.",
    },
  });
  return turnJsonSchema;
}

/**
 * Every tool as the HTTP endpoint takes it, for the OpenAPI document: its title, the permission it
 * needs, and the whole input schema (the fields hidden from models, such as idempotencyKey, included).
 */
export function toolCatalog(): {
  name: ToolName;
  title: string;
  permission: ApiKeyPermission;
  readOnly: boolean;
  destructive: boolean;
  inputSchema: JsonSchema;
}[] {
  return TOOL_NAMES.map((name) => {
    const tool = TOOLS[name];
    return {
      name,
      title: tool.title,
      permission: tool.permissions[0]!,
      readOnly: tool.readOnly,
      destructive: tool.destructive,
      inputSchema: toolInputJsonSchema(tool.schema, { notes: FIELD_NOTES[name] }),
    };
  });
}

export const toolAllowed = (apiKey: Pick<ApiKey, "permissions">, name: ToolName) =>
  TOOLS[name].permissions.some((p) => hasPermission(apiKey, p));

export const isToolName = (name: unknown): name is ToolName =>
  typeof name === "string" && (TOOL_NAMES as readonly string[]).includes(name);

/** The tools this key may call — a read-only key never sees memory_write or memory_forget. */
export async function listTools(db: Database, apiKey: ApiKey): Promise<ToolDescriptor[]> {
  const names = TOOL_NAMES.filter((name) => toolAllowed(apiKey, name));
  // tools.list is read-only work: it may run on a read replica.
  const kinds = names.includes("memory_write")
    ? (
        await routeWork(db, { kind: "read", principal: keyPrincipal(apiKey) }, (target) =>
          loadKindRegistry(target, apiKey.tenantId),
        )
      ).value.all
    : [];
  const descriptions: Record<ToolName, string> = {
    memory_search: SEARCH_DESCRIPTION,
    memory_get: GET_DESCRIPTION,
    memory_write: writeDescription(kinds),
    memory_forget: FORGET_DESCRIPTION,
    memory_context: CONTEXT_DESCRIPTION,
    message_append: APPEND_DESCRIPTION,
  };
  return names.map((name) => {
    const tool = TOOLS[name];
    const description = descriptions[name];
    const inputSchema = inputSchemaOf(name);
    return {
      name,
      title: tool.title,
      description,
      permission: tool.permissions[0]!,
      readOnly: tool.readOnly,
      destructive: tool.destructive,
      inputSchema,
      openai: { type: "function", function: { name, description, parameters: inputSchema } },
      anthropic: { name, description, input_schema: inputSchema },
    };
  });
}
