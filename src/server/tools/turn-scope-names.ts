import { formatScope, type MemoryCallContext } from "~/server/memory";
import { isPlainObject } from "./limits";
import type { ToolName } from "./registry";

const TURN_SCOPE_TYPES = new Set(["user", "session", "workspace"]);

/** A bare scope type ("user") as this turn's scope of that type ("user:usr_…"); anything else as sent. */
function turnScope(value: unknown, defaults: MemoryCallContext["defaults"]): unknown {
  if (typeof value !== "string" || !TURN_SCOPE_TYPES.has(value.trim())) return value;
  const scope = defaults[value.trim() as keyof MemoryCallContext["defaults"]];
  return scope ? formatScope(scope) : value;
}

/**
 * Agents name scopes by type (`memory_forget({scope: 'user', …})`, MemoryQuery's `scopes`): the model
 * knows "the user" and "this session", not their ids. A bare user / session / workspace in a tool's
 * scope fields means the turn's own scope of that type; without one it stays as sent (and is refused
 * with the reason).
 */
export function withTurnScopeNames<T>(tool: ToolName, args: T, defaults: MemoryCallContext["defaults"]): T {
  return rewrite(tool, args, defaults) as T;
}

function rewrite(tool: ToolName, args: unknown, defaults: MemoryCallContext["defaults"]): unknown {
  if (!isPlainObject(args)) return args;
  const at = (value: unknown) => turnScope(value, defaults);
  switch (tool) {
    case "memory_search":
      return Array.isArray(args.scopes) ? { ...args, scopes: args.scopes.map(at) } : args;
    case "memory_get":
      return "scope" in args ? { ...args, scope: at(args.scope) } : args;
    case "memory_forget": {
      const selector =
        isPlainObject(args.selector) && "scope" in args.selector
          ? { selector: { ...args.selector, scope: at(args.selector.scope) } }
          : {};
      return { ...args, ...("scope" in args ? { scope: at(args.scope) } : {}), ...selector };
    }
    case "memory_write":
      return Array.isArray(args.operations)
        ? {
            ...args,
            operations: args.operations.map((op: unknown) =>
              isPlainObject(op) && "scope" in op ? { ...op, scope: at(op.scope) } : op,
            ),
          }
        : args;
    default:
      return args;
  }
}
