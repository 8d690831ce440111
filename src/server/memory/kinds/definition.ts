import type { z } from "zod";
import type { CardType, ScopeType } from "~/db/schema";

/**
 * What a kind is (a controlled slot, docs/memory-model.md): the model names a kind; its definition decides the
 * canonical key, domain, category, type, value shape, scope and intent rules, so the same fact always
 * lands in the same slot. The built-in ones are in catalogue.ts; resolution and checks in registry.ts.
 */

export const VALUE_SHAPES = ["string", "number", "boolean", "string[]", "object", "any"] as const;
export type ValueShape = (typeof VALUE_SHAPES)[number];

export type KindDefinition = {
  /** What the model submits (`profile_name`, `avoid_ingredient`). */
  kind: string;
  /** Slot key; itemized kinds append `:<itemKey>`. */
  key: string;
  domain: string;
  categoryPath: readonly string[];
  type: CardType;
  /** Many cards per scope (one per item) instead of one slot. */
  itemized: boolean;
  valueShape: ValueShape;
  /** One line for tool descriptions: what valueJson should look like. */
  valueHint: string;
  /** Validates valueJson after normalizeValue. */
  valueSchema: z.ZodType;
  /** False when title/content alone may carry the fact. */
  valueRequired: boolean;
  /** Maps synonyms to the canonical value (`"少辣"` → `{ spicy: "low" }`) before validation. */
  normalizeValue?: (value: unknown) => unknown;
  /** For itemized kinds whose value names the item (`"香菜"`): the item key when none was given. */
  itemKeyFromValue?: (value: unknown) => string | undefined;
  /** For itemized kinds whose cards are told apart by what they say (decisions): the title makes the item when none was given. */
  itemKeyFromTitle?: boolean;
  defaultScope: ScopeType;
  allowedScopes: readonly ScopeType[];
  /** Writes need `explicitUserIntent` (user said "remember…"): long-term user facts only when explicit. */
  requiresExplicitIntent: boolean;
  /** Injected into every turn's context regardless of relevance. */
  alwaysRecall: boolean;
  /** A transient state: it needs `expiresAt` in any scope but `session` (no undated temporary state in user scope). */
  temporary: boolean;
  description: string;
  source: "builtin" | "custom";
};
