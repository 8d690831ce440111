import { z } from "zod";
import { appRouter } from "~/server/api/root";

/**
 * Inputs generated from the router's own schemas (what a caller sends, as JSON Schema): the shared
 * machinery of the suites that call every procedure with hostile input.
 */

export type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
};
export type InputSchema = JsonSchema & {
  required?: string[];
  const?: unknown;
  minItems?: number;
  minimum?: number;
  minLength?: number;
};

/** Every procedure of the router by its dotted path, sorted. */
export const routerProcedures = () =>
  Object.keys((appRouter._def as unknown as { procedures: Record<string, unknown> }).procedures).sort();

/** Procedures an agent calls with a bearer key (tools.*, me.agent) or nobody's (health.*): the rest is the dashboard's. */
export const isDashboardProcedure = (procedure: string) =>
  !procedure.startsWith("tools.") && procedure !== "me.agent" && !procedure.startsWith("health.");

/** Calls a procedure by its dotted path on a server-side caller (`.call(null, input)` also reaches `tools.call`). */
export function invokePath(caller: unknown, procedure: string, input?: unknown): Promise<unknown> {
  let target = caller as Record<string, unknown>;
  for (const segment of procedure.split(".")) target = target[segment] as Record<string, unknown>;
  return (target as unknown as { call: (self: null, input?: unknown) => Promise<unknown> }).call(null, input);
}

/** Paths of the schema's text fields (`a.b`, `list[]`, `list[].field`), any-typed JSON as `json`. */
export function textFields(schema: JsonSchema, prefix = ""): { path: string; json: boolean }[] {
  const branches = [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])];
  if (branches.length) return branches.flatMap((branch) => textFields(branch, prefix));
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.includes("string")) return [{ path: prefix, json: false }];
  if (types.includes("array") && schema.items) return textFields(schema.items, `${prefix}[]`);
  if (schema.properties)
    return Object.entries(schema.properties).flatMap(([key, sub]) =>
      textFields(sub, prefix ? `${prefix}.${key}` : key),
    );
  if (types.length === 0 && prefix) return [{ path: prefix, json: true }];
  return [];
}

export function setPath(target: Record<string, unknown>, fieldPath: string, value: unknown) {
  const parts = fieldPath.split(".");
  let node: Record<string, unknown> = target;
  parts.forEach((part, i) => {
    const list = part.endsWith("[]");
    const key = list ? part.slice(0, -2) : part;
    const last = i === parts.length - 1;
    if (list) {
      const array = (Array.isArray(node[key]) ? node[key] : [{}]) as unknown[];
      if (last) array[0] = value;
      node[key] = array;
      if (!last) node = (array[0] ??= {}) as Record<string, unknown>;
    } else if (last) node[key] = value;
    else node = (node[key] = (node[key] as Record<string, unknown> | undefined) ?? {}) as Record<string, unknown>;
  });
}

/** The smallest input the schema accepts the shape of: required fields only, first choices. */
export function minimalInput(schema: InputSchema): unknown {
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  const branches = [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])] as InputSchema[];
  if (branches.length) return minimalInput(branches.find((b) => b.type !== "null") ?? branches[0]!);
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (schema.properties || types.includes("object")) {
    return Object.fromEntries(
      (schema.required ?? []).map((key) => [key, minimalInput((schema.properties?.[key] ?? {}) as InputSchema)]),
    );
  }
  if (types.includes("array"))
    return (schema.minItems ?? 0) > 0 && schema.items ? [minimalInput(schema.items as InputSchema)] : [];
  if (types.includes("string")) return "x".repeat(Math.max(1, schema.minLength ?? 1));
  if (types.includes("integer") || types.includes("number")) return Math.max(1, schema.minimum ?? 1);
  if (types.includes("boolean")) return false;
  return null;
}

/** A procedure's input as JSON Schema (what a caller sends), from the router itself. */
export function procedureInputSchema(procedure: string): InputSchema | null {
  const inputs = ((appRouter._def as unknown as { procedures: Record<string, { _def: { inputs: unknown[] } }> })
    .procedures[procedure]?._def.inputs ?? []) as z.ZodType[];
  if (inputs.length === 0) return null;
  return z.toJSONSchema(inputs.length === 1 ? inputs[0]! : z.intersection(inputs[0]!, inputs[1]!), {
    io: "input",
    unrepresentable: "any",
  }) as InputSchema;
}

/** A procedure's type: "query" (GET over HTTP) or "mutation" (POST). */
export const procedureType = (procedure: string) =>
  (appRouter._def as unknown as { procedures: Record<string, { _def: { type: string } }> }).procedures[procedure]!._def
    .type as "query" | "mutation";
