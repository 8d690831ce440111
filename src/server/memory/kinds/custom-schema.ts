import { z } from "zod";
import { CARD_TYPES, SCOPE_TYPES } from "~/db/schema";
import { BUILT_IN_KINDS, MERGED_KINDS } from "./catalogue";
import { VALUE_SHAPES, type KindDefinition, type ValueShape } from "./definition";
import { resolveKind } from "./registry";
import { SHAPE_SCHEMAS } from "./value-shapes";

/** Per-tenant kinds an admin adds: the definition they submit, checked and turned into a KindDefinition. */

const KIND_NAME = /^[a-z][a-z0-9_]{1,47}$/;
const SLOT_KEY = /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$/;

/** What an admin submits to add a kind for the tenant (stored as `memory_kinds.definition`). */
export const customKindDefinitionSchema = z
  .strictObject({
    kind: z.string().regex(KIND_NAME, "lower-case letters, digits and _ (2–48 characters), starting with a letter"),
    key: z.string().max(64).regex(SLOT_KEY, "dot-separated lower-case segments, e.g. hobby.instrument"),
    domain: z.string().trim().min(1).max(64),
    categoryPath: z.array(z.string().trim().min(1).max(64)).max(8).default([]),
    type: z.enum(CARD_TYPES),
    itemized: z.boolean().default(false),
    valueShape: z.enum(VALUE_SHAPES).default("any"),
    defaultScope: z.enum(SCOPE_TYPES).default("user"),
    allowedScopes: z.array(z.enum(SCOPE_TYPES)).min(1).optional(),
    requiresExplicitIntent: z.boolean().default(true),
    alwaysRecall: z.boolean().default(false),
    temporary: z.boolean().default(false),
    description: z.string().trim().min(1).max(300),
  })
  .refine((def) => !def.allowedScopes || def.allowedScopes.includes(def.defaultScope), {
    error: "allowedScopes must include defaultScope",
    path: ["allowedScopes"],
  });
export type CustomKindDefinitionInput = z.input<typeof customKindDefinitionSchema>;

export type BuildCustomKindResult =
  | { ok: true; definition: KindDefinition }
  | { ok: false; reason: "invalid_definition" | "shadows_builtin" | "duplicate"; message: string };

const customValueHint: Record<ValueShape, string> = {
  string: "text",
  number: "a number",
  boolean: "true or false",
  "string[]": "a list of texts",
  object: "a JSON object",
  any: "any JSON value",
};

/** Validates an admin's JSON and turns it into a KindDefinition; it may not reuse a built-in (or another custom) name or key. */
export function buildCustomKind(json: unknown, existingCustom: readonly KindDefinition[] = []): BuildCustomKindResult {
  const parsed = customKindDefinitionSchema.safeParse(json);
  if (!parsed.success) {
    const message = parsed.error.issues
      .map((issue) => `${issue.path.join(".") || "definition"}: ${issue.message}`)
      .join("; ");
    return { ok: false, reason: "invalid_definition", message };
  }
  const input = parsed.data;
  const clashesWithKey = (key: string) =>
    key === input.key || key.startsWith(`${input.key}.`) || input.key.startsWith(`${key}.`);
  if (
    resolveKind(input.kind) ||
    [...BUILT_IN_KINDS.map((def) => def.key), ...Object.values(MERGED_KINDS).map((m) => m.key)].some(clashesWithKey)
  ) {
    return {
      ok: false,
      reason: "shadows_builtin",
      message: `kind ${input.kind} or key ${input.key} is taken by a built-in kind`,
    };
  }
  const others = existingCustom.filter((def) => def.kind !== input.kind);
  if (others.some((def) => def.key === input.key)) {
    return { ok: false, reason: "duplicate", message: `key ${input.key} is used by another custom kind` };
  }
  return {
    ok: true,
    definition: {
      kind: input.kind,
      key: input.key,
      domain: input.domain,
      categoryPath: input.categoryPath.length ? input.categoryPath : [input.domain],
      type: input.type,
      itemized: input.itemized,
      valueShape: input.valueShape,
      valueHint: customValueHint[input.valueShape],
      valueSchema: SHAPE_SCHEMAS[input.valueShape],
      valueRequired: input.valueShape !== "any",
      defaultScope: input.defaultScope,
      allowedScopes: input.allowedScopes ?? SCOPE_TYPES,
      requiresExplicitIntent: input.requiresExplicitIntent,
      alwaysRecall: input.alwaysRecall,
      temporary: input.temporary,
      description: input.description,
      source: "custom",
    },
  };
}
