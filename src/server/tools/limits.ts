import { AGENT_MAX_BODY_BYTES } from "~/server/rate-limit/body-limit";

/**
 * Limits on a tool call's arguments as a whole, checked before any schema runs: schemas recurse,
 * so hostile nesting must be refused by a loop first. Per-field limits live in the tool schemas.
 */
export const ARGUMENT_LIMITS = { maxDepth: 24, maxNodes: 20_000, maxBytes: AGENT_MAX_BODY_BYTES } as const;

export type ShapeProblem = {
  reason: "too_deep" | "too_many_values" | "not_json" | "invalid_text" | "too_large";
  message: string;
};

/** Postgres text and jsonb hold neither NUL nor unpaired UTF-16 surrogates: refuse them up front. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const badText = (text: string): ShapeProblem | null =>
  text.includes("\u0000") || LONE_SURROGATE.test(text)
    ? {
        reason: "invalid_text",
        message: "Text must not contain NUL characters or unpaired surrogates; send well-formed Unicode.",
      }
    : null;

/** Iterative walk: nesting depth, number of values, and JSON-only types (no functions, bigints, symbols). */
export function jsonShapeProblem(
  value: unknown,
  limits: { maxDepth: number; maxNodes: number; maxBytes?: number } = ARGUMENT_LIMITS,
): ShapeProblem | null {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  let values = 0;
  while (stack.length) {
    const { value: current, depth } = stack.pop()!;
    if (++values > limits.maxNodes)
      return {
        reason: "too_many_values",
        message: `The arguments hold more than ${limits.maxNodes} values; send less per call.`,
      };
    const type = typeof current;
    if (type === "bigint" || type === "function" || type === "symbol")
      return { reason: "not_json", message: "The arguments must be plain JSON." };
    if (type === "string") {
      const problem = badText(current as string);
      if (problem) return problem;
      continue;
    }
    if (current === null || type !== "object") continue;
    if (depth >= limits.maxDepth)
      return { reason: "too_deep", message: `The arguments nest deeper than ${limits.maxDepth} levels; flatten them.` };
    if (Array.isArray(current)) {
      for (const child of current) stack.push({ value: child, depth: depth + 1 });
      continue;
    }
    for (const [key, child] of Object.entries(current as Record<string, unknown>)) {
      const problem = badText(key);
      if (problem) return problem;
      stack.push({ value: child, depth: depth + 1 });
    }
  }
  if (limits.maxBytes !== undefined) {
    const bytes = Buffer.byteLength(JSON.stringify(value) ?? "", "utf8");
    if (bytes > limits.maxBytes)
      return {
        reason: "too_large",
        message: `The arguments are ${bytes} bytes as JSON; the limit is ${limits.maxBytes}. Split the call.`,
      };
  }
  return null;
}

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
