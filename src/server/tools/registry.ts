import { type MemoryForgetResult, type MemoryWriteResult } from "~/server/memory";
import type { Database } from "~/db/types";
import type { ApiKey } from "~/db/schema";
import { keyScopeLimits, type EffectiveScopes } from "~/server/auth/permissions";
import { badRequest, forbidden, ServiceError } from "~/server/errors";
import { isPlainObject, jsonShapeProblem } from "./limits";
import { turnSchema, type Turn, type TurnInput } from "./schemas";
import { inputProblems } from "~/server/validation";
import { isConnectionLost } from "~/db/connection-errors";
import { routeWork } from "~/server/db-routing";
import { recordRequest } from "~/server/metrics";
import { keyPrincipal, TOOLS, type ToolDefinition } from "./definitions";
import { isToolName, toolAllowed } from "./listing";
import { TOOL_NAMES, type ToolName, type ToolResults, type WithConsistency } from "./results";

/**
 * The agent tools (memory_search, memory_get, memory_write, memory_forget, memory_context and
 * message_append): one registry serving tools.list / tools.call / the per-tool procedures and MCP, so
 * every transport offers the same tools to the same key and runs the same checks. The tools themselves
 * are in definitions.ts, what tools.list shows in listing.ts, their answers' types in results.ts; this
 * file admits and runs a call.
 */

export {
  TOOL_NAMES,
  type Jsonify,
  type MemoryGetResult,
  type MessageAppendResult,
  type ToolName,
  type ToolResults,
  type WithConsistency,
} from "./results";
export { isToolName, listTools, toolAllowed, toolCatalog, turnInputJsonSchema, type ToolDescriptor } from "./listing";

export type ToolCallRequest = {
  name: string;
  arguments?: unknown;
  idempotencyKey?: string;
  turn?: TurnInput;
  /** A write's consistency token sent back (X-Memory-Consistency): the read waits for a replica past it. */
  consistency?: string | null;
};

/** What a failed call's caller is told, as a metric label. */
const failureReason = (error: unknown) =>
  error instanceof ServiceError ? error.reason : isConnectionLost(error) ? "database_unavailable" : "internal_error";

const shown = (text: string) => (text.length > 60 ? `${text.slice(0, 60)}…` : text);

/** Checks the call's envelope (name, permission, argument shape, turn) before any service runs. */
function admit(
  apiKey: ApiKey,
  request: { name: unknown; arguments?: unknown; turn?: unknown },
): { name: ToolName; args: Record<string, unknown>; turn: Turn } {
  const name = request.name;
  if (!isToolName(name)) {
    const available = TOOL_NAMES.filter((n) => toolAllowed(apiKey, n));
    throw badRequest(
      "unknown_tool",
      `There is no tool "${shown(String(name))}". Tools for this key: ${available.join(", ") || "none"}. Call tools.list for their schemas.`,
      { tools: available },
    );
  }
  const tool = TOOLS[name];
  if (!toolAllowed(apiKey, name)) {
    const permission = tool.permissions[0]!;
    throw forbidden(
      "missing_permission",
      `This API key lacks the "${permission}" permission that ${name} needs. Ask an admin for a key with "${permission}", or use the tools tools.list shows.`,
      {
        permission,
        tool: name,
      },
    );
  }
  const args = request.arguments ?? {};
  if (!isPlainObject(args))
    throw badRequest("invalid_arguments", `${name} arguments must be a JSON object (see tools.list for the schema).`);
  for (const [part, value] of [
    ["arguments", args],
    ["turn", request.turn],
  ] as const) {
    const problem = jsonShapeProblem(value);
    if (problem) {
      const tooLarge = problem.reason === "too_large";
      throw new ServiceError(
        tooLarge ? "PAYLOAD_TOO_LARGE" : "BAD_REQUEST",
        tooLarge ? "payload_too_large" : problem.reason,
        `${name} ${part}: ${problem.message}`,
        { part },
      );
    }
  }
  const turn = turnSchema.safeParse(request.turn ?? {});
  if (!turn.success)
    throw badRequest(
      "invalid_turn",
      `turn is invalid: ${inputProblems(turn.error)}. It holds only sessionId, workspaceId, userId, forgetIntent, forgetAllIntent, toolCallId.`,
    );
  return { name, args, turn: turn.data };
}

/** Runs one tool for a key: the same path for tools.call, tools.<name> and MCP. */
/** Runs one tool for a key; `knownLimits` are the key's scope limits when the caller already read them this request. */
export async function callTool<N extends ToolName>(
  db: Database,
  apiKey: ApiKey,
  request: ToolCallRequest & { name: N },
  knownLimits?: EffectiveScopes,
): Promise<ToolResults[N]>;
export async function callTool(
  db: Database,
  apiKey: ApiKey,
  request: ToolCallRequest,
  knownLimits?: EffectiveScopes,
): Promise<ToolResults[ToolName]>;
export async function callTool(
  db: Database,
  apiKey: ApiKey,
  request: ToolCallRequest,
  knownLimits?: EffectiveScopes,
): Promise<ToolResults[ToolName]> {
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

async function runTool(
  db: Database,
  apiKey: ApiKey,
  request: ToolCallRequest,
  knownLimits?: EffectiveScopes,
): Promise<ToolResults[ToolName]> {
  const { name, args, turn } = admit(apiKey, request);
  if (
    request.idempotencyKey !== undefined &&
    (typeof request.idempotencyKey !== "string" ||
      request.idempotencyKey.length < 8 ||
      request.idempotencyKey.length > 200)
  ) {
    throw badRequest(
      "invalid_idempotency_key",
      "idempotencyKey must be a string of 8 to 200 characters (e.g. a UUID).",
    );
  }
  const tool = TOOLS[name] as ToolDefinition<ToolName>;
  // The tool's kind decides where it runs: read-only tools may go to a read replica (db-routing.ts).
  const routed = await routeWork(
    db,
    { kind: tool.readOnly ? "read" : "write", principal: keyPrincipal(apiKey), consistency: request.consistency },
    (target) => {
      let limits = knownLimits ? Promise.resolve(knownLimits) : undefined;
      return tool.run({
        db: target,
        apiKey,
        args,
        turn,
        idempotencyKey: request.idempotencyKey,
        limits: () => (limits ??= keyScopeLimits(target, apiKey)),
      });
    },
  );
  // With read replicas, a write's answer carries its commit position (an extra field; absent otherwise).
  return routed.consistency === undefined
    ? routed.value
    : ({ ...routed.value, consistency: routed.consistency } as WithConsistency<ToolResults[ToolName]>);
}

/** Did the tool do what was asked? (MCP marks the others `isError`, so no model reads them as success.) */
export function toolSucceeded(name: ToolName, result: ToolResults[ToolName]): boolean {
  if (name === "memory_write" || name === "memory_forget")
    return (result as MemoryWriteResult | MemoryForgetResult).done;
  return true;
}
