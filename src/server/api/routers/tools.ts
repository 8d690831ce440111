import type { MemoryContextInput, MemoryForgetInput, MemorySearchInput, MemoryWriteInput } from "~/server/memory";
import { badRequest } from "~/server/errors";
import { isPlainObject } from "~/server/tools/limits";
import { callTool, listTools, turnInputJsonSchema, type ToolCallRequest, type ToolName } from "~/server/tools/registry";
import type { MemoryGetInput, MessageAppendInput, TurnInput } from "~/server/tools/schemas";
import { CONSISTENCY_HEADER } from "~/server/db-routing";
import { meteredAgentProcedure } from "../trpc";

/**
 * The agent tool endpoint: bearer key, plain JSON (no transformer), rate-limited per key.
 * `tools.list` → the tools this key may use; `tools.call {name, arguments, turn?, idempotencyKey?}`;
 * and `tools.<name>` taking the tool's arguments plus an optional `turn` at the top level.
 */

const toolProcedure = meteredAgentProcedure;

type ToolArgs = {
  memory_search: MemorySearchInput;
  memory_get: MemoryGetInput;
  memory_write: MemoryWriteInput;
  memory_forget: MemoryForgetInput;
  memory_context: MemoryContextInput;
  message_append: MessageAppendInput;
};
type WithTurn<N extends ToolName> = ToolArgs[N] & { turn?: TurnInput };

/** Accepts any JSON object (the registry validates it, with the same messages on every transport). */
const objectInput =
  <T>(what: string) =>
  (raw: unknown): T => {
    if (!isPlainObject(raw))
      throw badRequest("invalid_input", `${what} takes a JSON object as input; see tools.list for the schema.`);
    return raw as T;
  };

const callInput = (raw: unknown): ToolCallRequest => {
  const input = objectInput<Record<string, unknown>>("tools.call")(raw);
  const { name, arguments: args, idempotencyKey, turn, ...rest } = input;
  const extra = Object.keys(rest);
  if (extra.length)
    throw badRequest(
      "invalid_input",
      `tools.call takes name, arguments, idempotencyKey and turn; unknown field(s): ${extra.slice(0, 5).join(", ")}.`,
    );
  if (typeof name !== "string" || name.length === 0 || name.length > 100)
    throw badRequest("invalid_input", 'tools.call needs name: a tool name from tools.list, e.g. "memory_search".');
  if (idempotencyKey !== undefined && typeof idempotencyKey !== "string")
    throw badRequest("invalid_idempotency_key", "idempotencyKey must be a string of 8 to 200 characters.");
  return { name, arguments: args, idempotencyKey, turn: turn as TurnInput | undefined };
};

function toolMutation<N extends ToolName>(name: N) {
  return toolProcedure.input(objectInput<WithTurn<N>>(`tools.${name}`)).mutation(({ ctx, input }) => {
    const { turn, ...args } = input as Record<string, unknown>;
    return callTool(
      ctx.db,
      ctx.apiKey,
      { name, arguments: args, turn: turn as TurnInput | undefined, consistency: ctx.headers.get(CONSISTENCY_HEADER) },
      ctx.keyLimits,
    );
  });
}

/**
 * A plain record rather than `createTRPCRouter(...)`: tRPC reserves `call` as a router key (its
 * proxies treat `.call` as Function.prototype.call), yet `tools.call` is the documented endpoint.
 * Nested records are not checked, and the path works over HTTP and in `client.tools.call.mutate()`;
 * a server-side caller invokes it as `caller.tools.call.call(null, input)`.
 */
export const toolsRouter = {
  /** The tools this key may call, with descriptions, JSON Schemas and OpenAI / Anthropic forms. */
  list: toolProcedure.query(async ({ ctx }) => ({
    tools: await listTools(ctx.db, ctx.apiKey),
    turn: {
      description:
        "Sent by the host with each call (tools.call turn, or turn next to the arguments of tools.<name>); never by the model.",
      inputSchema: turnInputJsonSchema(),
    },
    key: {
      id: ctx.apiKey.id,
      prefix: ctx.apiKey.prefix,
      permissions: ctx.apiKey.permissions,
      scopes: ctx.apiKey.scopes,
    },
  })),
  /** Runs one tool by name: what a generic agent loop sends for each tool call the model makes. */
  call: toolProcedure
    .input(callInput)
    .mutation(({ ctx, input }) =>
      callTool(ctx.db, ctx.apiKey, { ...input, consistency: ctx.headers.get(CONSISTENCY_HEADER) }, ctx.keyLimits),
    ),
  memory_search: toolMutation("memory_search"),
  memory_get: toolMutation("memory_get"),
  memory_write: toolMutation("memory_write"),
  memory_forget: toolMutation("memory_forget"),
  memory_context: toolMutation("memory_context"),
  message_append: toolMutation("message_append"),
};
