import { appendMessages, buildMemoryContext, currentRevisionOf, getMemoryNode, loadKindRegistry, type MemoryCallContext, memoryContextInputSchema, type MemoryContextResult, memoryForget, memoryForgetInputSchema, type MemoryForgetResult, type MemoryNode, memorySearch, memorySearchInputSchema, type MemorySearchResult, memoryWrite, memoryWriteInputSchema, type MemoryWriteResult, recordRecalls, scopeAllowed } from "~/server/memory";
import type { z } from "zod";
import type { Database } from "~/db/types";
import type { ApiKey, ApiKeyPermission } from "~/db/schema";
import { hasPermission } from "~/server/auth/permissions";
import { buildAgentCallContext, keyScopeLimits, type EffectiveScopes } from "~/server/auth/permissions";
import { badRequest, forbidden, ServiceError } from "~/server/errors";
import {
  APPEND_DESCRIPTION,
  CONTEXT_DESCRIPTION,
  FIELD_NOTES,
  FORGET_DESCRIPTION,
  GET_DESCRIPTION,
  SEARCH_DESCRIPTION,
  writeDescription,
} from "./descriptions";
import { trustedEvidenceIds } from "./evidence";
import { toolInputJsonSchema, type JsonSchema } from "./json-schema";
import { isPlainObject, jsonShapeProblem } from "./limits";
import { withTurnScopeNames } from "./turn-scope-names";
import { memoryGetInputSchema, messageAppendInputSchema, turnSchema, type Turn, type TurnInput } from "./schemas";
import { inputProblems } from "~/server/validation";
import { isConnectionLost } from "~/db/connection-errors";
import { routeWork, type Principal } from "~/server/db-routing";
import { recordRequest } from "~/server/metrics";

/** Where a caller puts the turn's session, over either transport. */
const TURN_SESSION = "turn.sessionId (over MCP: params._meta.turn.sessionId or the X-Memory-Session-Id header)";

/**
 * The agent tools (002's four plus memory_context and message_append): one registry serving
 * tools.list / tools.call / the per-tool procedures and MCP, so every transport offers the same
 * tools to the same key and runs the same checks.
 */

/** Plain-JSON form of a result type: what an HTTP client actually receives (dates as ISO strings). */
export type Jsonify<T> = T extends Date
  ? string
  : T extends readonly (infer U)[]
    ? Jsonify<U>[]
    : T extends object
      ? { [K in keyof T]: Jsonify<T[K]> }
      : T;
const jsonify = <T>(value: T): Jsonify<T> => JSON.parse(JSON.stringify(value)) as Jsonify<T>;
/**
 * A result that already is plain JSON (no Date: cards carry ISO strings), passed on as is: the JSON
 * round trip of `jsonify` cost ~3 % of a search's server CPU under load. The type checks the claim.
 */
const alreadyJson = <T>(value: T & Jsonify<T>): Jsonify<T> => value;

/**
 * memory_context's result as JSON: its cards already carry ISO strings, so only the messages' and
 * the summary's dates are converted (the whole result through JSON was ~5 % of a context call's CPU).
 */
const contextAsJson = (result: MemoryContextResult): Jsonify<MemoryContextResult> => ({
  ...result,
  recentMessages: result.recentMessages.map((m) => ({ id: m.id, role: m.role, content: m.content, createdAt: m.createdAt.toISOString() })),
  latestSummary: result.latestSummary && jsonify(result.latestSummary),
});

export type MemoryGetResult = {
  found: boolean;
  node?: MemoryNode;
  /** Several cards matched a lookup without id: pick one by id. */
  candidates?: MemoryNode[];
  /** The id named an old revision: the card current now, the one to change. */
  currentId?: string;
  currentRevision?: number;
  message: string;
};

export type MessageAppendResult = {
  sessionId: string;
  /** Cite these in memory_write node.sourceMessageIds (with turn.sessionId = sessionId). */
  messageIds: string[];
  messages: { id: string; role: string; duplicate: boolean; createdAt: string }[];
  message: string;
};

/**
 * A write's answer with read replicas configured: `consistency` is its commit position, to send back
 * as X-Memory-Consistency with a later read that must see it (docs/operations.md, Scaling).
 */
export type WithConsistency<T> = T & { consistency?: string };

export type ToolResults = {
  memory_search: Jsonify<MemorySearchResult>;
  memory_get: MemoryGetResult;
  memory_write: WithConsistency<MemoryWriteResult>;
  memory_forget: WithConsistency<MemoryForgetResult>;
  memory_context: Jsonify<MemoryContextResult>;
  message_append: WithConsistency<MessageAppendResult>;
};
export type ToolName = keyof ToolResults;
export const TOOL_NAMES = ["memory_search", "memory_get", "memory_write", "memory_forget", "memory_context", "message_append"] as const satisfies readonly ToolName[];

type Call = {
  db: Database;
  apiKey: ApiKey;
  args: Record<string, unknown>;
  turn: Turn;
  idempotencyKey?: string;
  /** The key's scope limits for this call: read once (or handed over by the authentication that read them). */
  limits: () => Promise<EffectiveScopes>;
};

type ToolDefinition<N extends ToolName> = {
  name: N;
  title: string;
  /** The key needs one of these; errors name the first. */
  permissions: readonly ApiKeyPermission[];
  readOnly: boolean;
  destructive: boolean;
  schema: z.ZodType;
  /** Properties of the service schema the model must not send (the host sends them on the envelope). */
  omit?: readonly string[];
  run: (call: Call) => Promise<ToolResults[N]>;
};

function parseArgs<S extends z.ZodType>(tool: ToolName, schema: S, args: unknown): z.output<S> {
  const parsed = schema.safeParse(args);
  if (!parsed.success) throw badRequest("invalid_input", `${tool} input is invalid: ${inputProblems(parsed.error)}. See tools.list for the schema.`);
  return parsed.data;
}

const context = async (call: Call) => buildAgentCallContext(call.db, call.apiKey, call.turn, await call.limits());

function requireReadableSession(ctx: MemoryCallContext, sessionId: string) {
  if (!scopeAllowed({ type: "session", id: sessionId }, ctx.readScopes)) {
    throw forbidden("scope_not_readable", `This key may not read session:${sessionId}. Use a session its scopes cover, or ask an admin to add "session:*" to the key and its owner's grants.`, {
      scope: `session:${sessionId}`,
    });
  }
}

/**
 * A batch refused for want of a write grant is an authorization failure, like a missing permission:
 * the agent gets 403 FORBIDDEN (reason scope_not_writable) naming the scopes, with every operation's
 * result in the details — not a 200 it might read past. Other refusals stay `done: false` answers.
 */
function forbidUnwritableWrite(result: MemoryWriteResult): MemoryWriteResult {
  if (result.done) return result;
  const refused = result.results.filter((r) => r.reason === "scope_not_writable");
  if (refused.length === 0) return result;
  const scopes = [...new Set(refused.flatMap((r) => (r.scope ? [r.scope] : [])))];
  throw forbidden(
    "scope_not_writable",
    `Nothing was written: this key may not write ${scopes.join(", ") || "the scope it named"}. Ask an admin for a write grant on it (for the key's owner, and in the key's scopes), or write a scope this key holds.`,
    { scopes, results: result.results },
  );
}

function forbidUnwritableForget(result: MemoryForgetResult): MemoryForgetResult {
  if (result.done || result.reason !== "scope_not_writable") return result;
  throw forbidden("scope_not_writable", `Nothing was forgotten: ${result.message} Ask an admin for a write grant on that scope (for the key's owner, and in the key's scopes).`, { mode: result.mode });
}

/** The sourceMessageIds a write cites, when its input is well-formed (else memoryWrite reports the problem). */
function citedMessageIds(args: unknown): string[] {
  const parsed = memoryWriteInputSchema.safeParse(args);
  if (!parsed.success) return [];
  return [...new Set(parsed.data.operations.flatMap((op) => ("node" in op && op.node.sourceMessageIds) || []))];
}

/** Idempotency key from the envelope, unless the arguments carry one (they must then agree). */
function withIdempotencyKey(tool: ToolName, args: Record<string, unknown>, key: string | undefined): Record<string, unknown> {
  if (key === undefined) return args;
  if (args.idempotencyKey !== undefined && args.idempotencyKey !== key) {
    throw badRequest("idempotency_key_mismatch", `${tool}: idempotencyKey differs between the call and its arguments; send it once.`);
  }
  return { ...args, idempotencyKey: key };
}

const TOOLS: { [N in ToolName]: ToolDefinition<N> } = {
  memory_search: {
    name: "memory_search",
    title: "Search memory",
    permissions: ["memory:read", "memory:write"],
    readOnly: true,
    destructive: false,
    schema: memorySearchInputSchema,
    async run(call) {
      const { db } = call;
      const ctx = await context(call);
      const result = await memorySearch(db, ctx, withTurnScopeNames("memory_search", call.args, ctx.defaults));
      // A listing of everything ("all: true") hands over every card alike: no recall to count.
      if (!result.enumerated) await recordRecalls(db, ctx.tenantId, [...result.exact, ...result.relevant].map((hit) => hit.id));
      return alreadyJson(result);
    },
  },
  memory_get: {
    name: "memory_get",
    title: "Read one memory card",
    permissions: ["memory:read", "memory:write"],
    readOnly: true,
    destructive: false,
    schema: memoryGetInputSchema,
    async run(call) {
      const { db } = call;
      const ctx = await context(call);
      const input = parseArgs("memory_get", memoryGetInputSchema, withTurnScopeNames("memory_get", call.args, ctx.defaults));
      if (input.id !== undefined) {
        const node = await getMemoryNode(db, ctx, input.id);
        if (node.status === "active") {
          await recordRecalls(db, ctx.tenantId, [node.id]);
          return { found: true, node, message: `Memory ${node.id} (${node.key}) is active at revision ${node.revision}. To change it send targetId "${node.id}" with expectedRevision ${node.revision}.` };
        }
        // An id from before an update names an old revision: lead to the card that is current now.
        const current = await currentRevisionOf(db, { tenantId: ctx.tenantId, lineageId: node.lineageId });
        const next = current
          ? `The current card of this memory is ${current.id} at revision ${current.revision}: to change it send targetId "${current.id}" with expectedRevision ${current.revision}.`
          : "Nothing of this memory is current any more, so there is nothing to change.";
        return { found: true, node, ...(current ? { currentId: current.id, currentRevision: current.revision } : {}), message: `Memory ${node.id} (${node.key}) is ${node.status} (revision ${node.revision}). ${next}` };
      }
      const result = await memorySearch(db, ctx, {
        kinds: input.kind ? [input.kind] : undefined,
        itemKey: input.itemKey,
        key: input.key,
        types: input.type ? [input.type] : undefined,
        domain: input.domain,
        valueJson: input.valueJson,
        scopes: input.scope ? [input.scope] : undefined,
        limit: 2,
      });
      const hits = result.exact.filter((hit) => !input.scope || hit.scope === input.scope);
      const nodes: MemoryNode[] = hits.map(({ matchedBy: _m, score: _s, ...node }) => node);
      if (nodes.length === 0) {
        const warnings = result.warnings?.length ? ` ${result.warnings.join(" ")}` : "";
        return { found: false, message: `No active memory matches that lookup in scopes you can read.${warnings} Try memory_search (e.g. with all: true) before concluding it is not stored.` };
      }
      if (nodes.length > 1) {
        // Only two are read: "2 cards match" said there were two when there were six.
        const more = result.omitted.some((o) => o.reason === "over_limit") || result.omittedCount !== undefined;
        const count = more ? "More than one card matches (these are two of them)" : "2 cards match";
        return { found: false, candidates: nodes, message: `${count}; call memory_get again with the id of the one you mean, or list them all with memory_search (kinds, all: true).` };
      }
      const node = nodes[0]!;
      await recordRecalls(db, ctx.tenantId, [node.id]);
      return { found: true, node, message: `Memory ${node.id} (${node.key}) is at revision ${node.revision}. To change it send targetId "${node.id}" with expectedRevision ${node.revision}.` };
    },
  },
  memory_write: {
    name: "memory_write",
    title: "Save or change memory",
    permissions: ["memory:write"],
    readOnly: false,
    destructive: false,
    schema: memoryWriteInputSchema,
    omit: ["idempotencyKey", "value"],
    async run(call) {
      const { db, apiKey, turn, idempotencyKey } = call;
      const ctx = await context(call);
      const input = withIdempotencyKey("memory_write", withTurnScopeNames("memory_write", call.args, ctx.defaults), idempotencyKey);
      const cited = citedMessageIds(input);
      let trusted: string[] = [];
      if (cited.length) {
        if (!turn.sessionId) {
          throw badRequest("session_required", `sourceMessageIds need the turn's session (the one message_append stored those messages in): send ${TURN_SESSION}, or omit sourceMessageIds.`);
        }
        requireReadableSession(ctx, turn.sessionId);
        trusted = await trustedEvidenceIds(db, { tenantId: apiKey.tenantId, sessionId: turn.sessionId, ids: cited });
      }
      return forbidUnwritableWrite(await memoryWrite(db, { ...ctx, trustedMessageIds: trusted }, input));
    },
  },
  memory_forget: {
    name: "memory_forget",
    title: "Forget memory",
    permissions: ["memory:forget"],
    readOnly: false,
    destructive: true,
    schema: memoryForgetInputSchema,
    omit: ["idempotencyKey"],
    async run(call) {
      const { db, idempotencyKey } = call;
      const ctx = await context(call);
      const input = withIdempotencyKey("memory_forget", withTurnScopeNames("memory_forget", call.args, ctx.defaults), idempotencyKey);
      // memory:forget deletes within the key's writable reach (key scopes ∩ owner write grants),
      // whether or not the key may also write or read memory: a forget-only key found no card by id
      // (it could read none) while its selectors listed and deleted them.
      const limits = await call.limits();
      return forbidUnwritableForget(await memoryForget(db, { ...ctx, readScopes: [...ctx.readScopes, ...limits.write], writeScopes: limits.write }, input));
    },
  },
  memory_context: {
    name: "memory_context",
    title: "Memory for this turn",
    permissions: ["memory:read", "memory:write"],
    readOnly: true,
    destructive: false,
    schema: memoryContextInputSchema,
    async run(call) {
      const { db, args, turn } = call;
      const input = parseArgs("memory_context", memoryContextInputSchema, args);
      const ctx = await context(call);
      const sessionId = input.sessionId ?? turn.sessionId;
      if (sessionId) requireReadableSession(ctx, sessionId);
      const result = await buildMemoryContext(db, ctx, { ...input, sessionId });
      await recordRecalls(db, ctx.tenantId, result.usedMemoryIds);
      return contextAsJson(result);
    },
  },
  message_append: {
    name: "message_append",
    title: "Capture this turn's messages",
    permissions: ["messages:write"],
    readOnly: false,
    destructive: false,
    schema: messageAppendInputSchema,
    async run(call) {
      const { db, apiKey, args, turn } = call;
      const input = parseArgs("message_append", messageAppendInputSchema, args);
      const sessionId = input.sessionId ?? turn.sessionId;
      if (!sessionId) throw badRequest("session_required", `message_append needs a session: send sessionId, or ${TURN_SESSION}.`);
      const limits = await call.limits();
      if (!scopeAllowed({ type: "session", id: sessionId }, limits.write)) {
        throw forbidden("scope_not_writable", `This key may not write session:${sessionId}. Add "session:*" to the key's scopes; its owner needs a write grant for it too.`, {
          scope: `session:${sessionId}`,
        });
      }
      const ctx = await context(call);
      const { messages } = await appendMessages(
        db,
        { tenantId: apiKey.tenantId, actor: { type: "api_key", id: apiKey.id } },
        {
          sessionId,
          userScopeId: ctx.defaults.user?.id ?? null,
          workspaceId: turn.workspaceId ?? null,
          messages: input.messages.map((m) => ({ ...m, createdAt: m.createdAt ? new Date(m.createdAt) : undefined })),
        },
      );
      const fresh = messages.filter((m) => !m.duplicate).length;
      return {
        sessionId,
        messageIds: messages.map((m) => m.id),
        messages: messages.map((m) => ({ id: m.id, role: m.role, duplicate: m.duplicate, createdAt: m.createdAt.toISOString() })),
        message: `Stored ${fresh} new message(s)${fresh < messages.length ? `, ${messages.length - fresh} already stored` : ""} in session ${sessionId}. Cite messageIds in memory_write node.sourceMessageIds with turn.sessionId "${sessionId}".`,
      };
    },
  },
};

// ---- listing -----------------------------------------------------------------------------------

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
      sessionId: "The conversation: default session scope, and the session message_append stored this turn's evidence in.",
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
export function toolCatalog(): { name: ToolName; title: string; permission: ApiKeyPermission; readOnly: boolean; destructive: boolean; inputSchema: JsonSchema }[] {
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

export const toolAllowed = (apiKey: Pick<ApiKey, "permissions">, name: ToolName) => TOOLS[name].permissions.some((p) => hasPermission(apiKey, p));

export const isToolName = (name: unknown): name is ToolName => typeof name === "string" && (TOOL_NAMES as readonly string[]).includes(name);

/** The tools this key may call — a read-only key never sees memory_write or memory_forget. */
export async function listTools(db: Database, apiKey: ApiKey): Promise<ToolDescriptor[]> {
  const names = TOOL_NAMES.filter((name) => toolAllowed(apiKey, name));
  // tools.list is read-only work: it may run on a read replica.
  const kinds = names.includes("memory_write") ? (await routeWork(db, { kind: "read", principal: keyPrincipal(apiKey) }, (target) => loadKindRegistry(target, apiKey.tenantId))).value.all : [];
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

// ---- calling -----------------------------------------------------------------------------------

export type ToolCallRequest = {
  name: string;
  arguments?: unknown;
  idempotencyKey?: string;
  turn?: TurnInput;
  /** A write's consistency token sent back (X-Memory-Consistency): the read waits for a replica past it. */
  consistency?: string | null;
};

/** Read-your-writes is kept per API key. */
const keyPrincipal = (apiKey: Pick<ApiKey, "id">): Principal => ({ type: "api_key", id: apiKey.id });

/** What a failed call's caller is told, as a metric label. */
const failureReason = (error: unknown) => (error instanceof ServiceError ? error.reason : isConnectionLost(error) ? "database_unavailable" : "internal_error");

const shown = (text: string) => (text.length > 60 ? `${text.slice(0, 60)}…` : text);

/** Checks the call's envelope (name, permission, argument shape, turn) before any service runs. */
function admit(apiKey: ApiKey, request: { name: unknown; arguments?: unknown; turn?: unknown }): { name: ToolName; args: Record<string, unknown>; turn: Turn } {
  const name = request.name;
  if (!isToolName(name)) {
    const available = TOOL_NAMES.filter((n) => toolAllowed(apiKey, n));
    throw badRequest("unknown_tool", `There is no tool "${shown(String(name))}". Tools for this key: ${available.join(", ") || "none"}. Call tools.list for their schemas.`, { tools: available });
  }
  const tool = TOOLS[name];
  if (!toolAllowed(apiKey, name)) {
    const permission = tool.permissions[0]!;
    throw forbidden("missing_permission", `This API key lacks the "${permission}" permission that ${name} needs. Ask an admin for a key with "${permission}", or use the tools tools.list shows.`, {
      permission,
      tool: name,
    });
  }
  const args = request.arguments ?? {};
  if (!isPlainObject(args)) throw badRequest("invalid_arguments", `${name} arguments must be a JSON object (see tools.list for the schema).`);
  for (const [part, value] of [["arguments", args], ["turn", request.turn]] as const) {
    const problem = jsonShapeProblem(value);
    if (problem) {
      const tooLarge = problem.reason === "too_large";
      throw new ServiceError(tooLarge ? "PAYLOAD_TOO_LARGE" : "BAD_REQUEST", tooLarge ? "payload_too_large" : problem.reason, `${name} ${part}: ${problem.message}`, { part });
    }
  }
  const turn = turnSchema.safeParse(request.turn ?? {});
  if (!turn.success) throw badRequest("invalid_turn", `turn is invalid: ${inputProblems(turn.error)}. It holds only sessionId, workspaceId, userId, forgetIntent, forgetAllIntent, toolCallId.`);
  return { name, args, turn: turn.data };
}

/** Runs one tool for a key: the same path for tools.call, tools.<name> and MCP. */
/** Runs one tool for a key; `knownLimits` are the key's scope limits when the caller already read them this request. */
export async function callTool<N extends ToolName>(db: Database, apiKey: ApiKey, request: ToolCallRequest & { name: N }, knownLimits?: EffectiveScopes): Promise<ToolResults[N]>;
export async function callTool(db: Database, apiKey: ApiKey, request: ToolCallRequest, knownLimits?: EffectiveScopes): Promise<ToolResults[ToolName]>;
export async function callTool(db: Database, apiKey: ApiKey, request: ToolCallRequest, knownLimits?: EffectiveScopes): Promise<ToolResults[ToolName]> {
  const started = performance.now();
  const metricName = isToolName(request.name) ? request.name : "unknown";
  try {
    const result = await runTool(db, apiKey, request, knownLimits);
    recordRequest("tool", metricName, (performance.now() - started) / 1000);
    return result;
  } catch (error) {
    recordRequest("tool", metricName, (performance.now() - started) / 1000, failureReason(error));
    throw error;
  }
}

async function runTool(db: Database, apiKey: ApiKey, request: ToolCallRequest, knownLimits?: EffectiveScopes): Promise<ToolResults[ToolName]> {
  const { name, args, turn } = admit(apiKey, request);
  if (request.idempotencyKey !== undefined && (typeof request.idempotencyKey !== "string" || request.idempotencyKey.length < 8 || request.idempotencyKey.length > 200)) {
    throw badRequest("invalid_idempotency_key", "idempotencyKey must be a string of 8 to 200 characters (e.g. a UUID).");
  }
  const tool = TOOLS[name] as ToolDefinition<ToolName>;
  // The tool's kind decides where it runs: read-only tools may go to a read replica (db-routing.ts).
  const routed = await routeWork(db, { kind: tool.readOnly ? "read" : "write", principal: keyPrincipal(apiKey), consistency: request.consistency }, (target) => {
    let limits = knownLimits ? Promise.resolve(knownLimits) : undefined;
    return tool.run({ db: target, apiKey, args, turn, idempotencyKey: request.idempotencyKey, limits: () => (limits ??= keyScopeLimits(target, apiKey)) });
  });
  // With read replicas, a write's answer carries its commit position (an extra field; absent otherwise).
  return routed.consistency === undefined ? routed.value : ({ ...routed.value, consistency: routed.consistency } as WithConsistency<ToolResults[ToolName]>);
}

/** Did the tool do what was asked? (MCP marks the others `isError`, so no model reads them as success.) */
export function toolSucceeded(name: ToolName, result: ToolResults[ToolName]): boolean {
  if (name === "memory_write" || name === "memory_forget") return (result as MemoryWriteResult | MemoryForgetResult).done;
  return true;
}
