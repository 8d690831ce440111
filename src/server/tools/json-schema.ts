import { z } from "zod";

export type JsonSchema = { [key: string]: unknown };

const isRecord = (value: unknown): value is JsonSchema =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Tidies zod's JSON Schema for model tool definitions (OpenAI, Anthropic, MCP): no `$schema`, no
 * huge date-time regexes or ±2^53 bounds, `anyOf` instead of `oneOf` (accepted everywhere), fields
 * the model must not send removed, and notes attached to properties by name.
 */
function tidy(node: unknown, options: { omit: ReadonlySet<string>; notes: Record<string, string> }): unknown {
  if (Array.isArray(node)) return node.map((item) => tidy(item, options));
  if (!isRecord(node)) return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "$schema") continue;
    if (key === "pattern" && node.format === "date-time") continue;
    if (
      (key === "maximum" && value === Number.MAX_SAFE_INTEGER) ||
      (key === "minimum" && value === Number.MIN_SAFE_INTEGER)
    )
      continue;
    if (key === "properties" && isRecord(value)) {
      const properties: JsonSchema = {};
      for (const [name, schema] of Object.entries(value)) {
        // `z.never()` fields ({ not: {} }) and omitted names are not offered at all.
        if (
          options.omit.has(name) ||
          (isRecord(schema) && isRecord(schema.not) && Object.keys(schema.not).length === 0)
        )
          continue;
        const cleaned = tidy(schema, options) as JsonSchema;
        const note = options.notes[name];
        properties[name] =
          note && isRecord(cleaned) && cleaned.description === undefined ? { description: note, ...cleaned } : cleaned;
      }
      out.properties = properties;
      continue;
    }
    if (key === "required" && Array.isArray(value) && isRecord(node.properties)) {
      const kept = value.filter((name) => typeof name === "string" && !options.omit.has(name));
      if (kept.length) out.required = kept;
      continue;
    }
    out[key === "oneOf" ? "anyOf" : key] = tidy(value, options);
  }
  return out;
}

/** The JSON Schema of a tool's input as the model should see it (zod v4 `z.toJSONSchema`, input side). */
export function toolInputJsonSchema(
  schema: z.ZodType,
  options: { omit?: readonly string[]; notes?: Record<string, string> } = {},
): JsonSchema {
  const raw = z.toJSONSchema(schema, { io: "input", unrepresentable: "any", target: "draft-2020-12" });
  const cleaned = tidy(raw, { omit: new Set(options.omit ?? []), notes: options.notes ?? {} }) as JsonSchema;
  return { type: "object", ...cleaned };
}
