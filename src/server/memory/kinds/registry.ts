import { z } from "zod";
import { NODE_TYPES, SCOPE_TYPES, type NodeType, type ScopeType } from "~/db/schema";
import { normalizeFlavorProfile } from "../write/value-normalize";

/**
 * The kind registry (002's controlled slots + 000's cooking schema). The model names a kind; the
 * registry decides the canonical key, domain, category, type, value shape, scope and intent rules,
 * so the same fact always lands in the same slot.
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
  type: NodeType;
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
  /** Writes need `explicitUserIntent` (user said "remember…"); 000: long-term user facts only when explicit. */
  requiresExplicitIntent: boolean;
  /** Injected into every turn's context regardless of relevance. */
  alwaysRecall: boolean;
  /** A transient state: it needs `expiresAt` in any scope but `session` (000: no undated temporary state in user scope). */
  temporary: boolean;
  description: string;
  source: "builtin" | "custom";
};

// ---- value shapes --------------------------------------------------------------------------

const text = z.string().trim().min(1).max(2000);
const textList = z.array(text).min(1).max(50);
const nonEmptyRecord = z
  .record(z.string(), z.unknown())
  .refine((value) => Object.keys(value).length > 0, { error: "must not be an empty object" });

/** An object that must carry at least one of `fields` as non-empty text; other fields pass through. */
function objectWithOneOf(fields: readonly string[]) {
  const shape = Object.fromEntries(fields.map((field) => [field, text.optional()]));
  return z
    .looseObject(shape)
    .refine((value: Record<string, unknown>) => fields.some((field) => value[field] !== undefined), {
      error: `needs at least one of: ${fields.join(", ")}`,
    });
}

const SHAPE_SCHEMAS: Record<ValueShape, z.ZodType> = {
  string: text,
  number: z.number(),
  boolean: z.boolean(),
  "string[]": textList,
  object: nonEmptyRecord,
  any: z.unknown(),
};

/** `"香菜"` or `{ ingredient: "香菜" }` → "香菜": lets a 000-style write without itemKey still find its slot. */
const itemFromFields =
  (fields: readonly string[]) =>
  (value: unknown): string | undefined => {
    if (typeof value === "string") return value.trim() || undefined;
    if (value && typeof value === "object" && !Array.isArray(value)) {
      const record = value as Record<string, unknown>;
      const found = fields.map((field) => record[field]).find((v) => typeof v === "string" && v.trim());
      return typeof found === "string" ? found.trim() : undefined;
    }
    return undefined;
  };

const isTimeZone = (value: string) => {
  if (/^(utc|gmt)\s*[+-]\s*\d{1,2}(:?\d{2})?$/i.test(value)) return true;
  try {
    new Intl.DateTimeFormat("en", { timeZone: value });
    return true;
  } catch {
    return false;
  }
};

const timezoneValue = text.refine(isTimeZone, { error: "must be an IANA time zone (Asia/Shanghai) or a UTC offset (UTC+8)" });

// ---- the built-in registry ---------------------------------------------------------------------

const PERSONAL_SCOPES: readonly ScopeType[] = ["user", "session", "context"];
const SHARED_SCOPES: readonly ScopeType[] = ["user", "workspace", "session", "context"];
const COOKING_DOMAIN = "生活技能";
const COOKING_PREFERENCES = [COOKING_DOMAIN, "做饭", "饮食偏好"];

type KindSpec = Pick<KindDefinition, "kind" | "key" | "domain" | "categoryPath" | "type" | "valueShape" | "valueHint" | "valueSchema" | "description"> &
  Partial<Omit<KindDefinition, "source">>;

/** Defaults: a personal, single-slot, explicit-intent, user-scope kind with a required value. */
const builtIn = (spec: KindSpec): KindDefinition => ({
  itemized: false,
  valueRequired: true,
  defaultScope: "user",
  allowedScopes: PERSONAL_SCOPES,
  requiresExplicitIntent: true,
  alwaysRecall: false,
  temporary: false,
  ...spec,
  source: "builtin",
});

const ingredientKind = (kind: string, description: string) =>
  builtIn({
    kind,
    key: `cooking.${kind}`,
    domain: COOKING_DOMAIN,
    categoryPath: COOKING_PREFERENCES,
    type: "preference",
    itemized: true,
    valueShape: "string",
    valueHint: 'the ingredient or food ("香菜", "peanuts"), or { ingredient (or food), note?, reason? }; itemKey defaults to it',
    valueSchema: z.union([text, objectWithOneOf(["ingredient", "food", "name"])]),
    itemKeyFromValue: itemFromFields(["ingredient", "food", "name"]),
    description,
  });

export const BUILT_IN_KINDS: readonly KindDefinition[] = [
  // 002's single slots.
  builtIn({
    kind: "interaction_contract",
    key: "interaction.relationship",
    domain: "interaction",
    categoryPath: ["interaction", "relationship"],
    type: "preference",
    valueShape: "object",
    valueHint: "{ userRole?, assistantRole?, addressUserAs?, tone? } with at least one of userRole/assistantRole/addressUserAs",
    valueSchema: objectWithOneOf(["userRole", "assistantRole", "addressUserAs"]),
    allowedScopes: SHARED_SCOPES,
    alwaysRecall: true,
    description: "How the user and the assistant relate: roles, how to address the user, tone.",
  }),
  builtIn({
    kind: "profile_name",
    key: "profile.identity.name",
    domain: "profile",
    categoryPath: ["profile", "identity"],
    type: "fact",
    valueShape: "string",
    valueHint: 'the name ("Alice"), or { name, preferredName? }',
    valueSchema: z.union([text, objectWithOneOf(["name"])]),
    description: "The user's name or preferred name.",
  }),
  builtIn({
    kind: "home_location",
    key: "profile.location.home",
    domain: "profile",
    categoryPath: ["profile", "location"],
    type: "fact",
    valueShape: "object",
    valueHint: "{ city?, location?, region?, country? } with city or location",
    valueSchema: objectWithOneOf(["city", "location"]),
    normalizeValue: (value) => (typeof value === "string" ? { location: value } : value),
    description: "Where the user lives (city or location).",
  }),
  builtIn({
    kind: "occupation",
    key: "profile.occupation",
    domain: "profile",
    categoryPath: ["profile", "occupation"],
    type: "fact",
    valueShape: "string",
    valueHint: 'the occupation ("backend engineer"), or { title?, employer? }',
    valueSchema: z.union([text, objectWithOneOf(["title", "occupation", "employer"])]),
    description: "The user's job or occupation.",
  }),
  builtIn({
    kind: "timezone_preference",
    key: "preference.timezone",
    domain: "preference",
    categoryPath: ["preference", "timezone"],
    type: "preference",
    valueShape: "string",
    valueHint: 'an IANA time zone ("Asia/Shanghai") or UTC offset ("UTC+8")',
    valueSchema: timezoneValue,
    allowedScopes: SHARED_SCOPES,
    description: "The time zone the user wants times shown in.",
  }),
  builtIn({
    kind: "language_preference",
    key: "preference.language",
    domain: "preference",
    categoryPath: ["preference", "language"],
    type: "preference",
    valueShape: "string",
    valueHint: 'the language ("zh-CN", "English") or a list in order of preference',
    valueSchema: z.union([text, textList]),
    allowedScopes: SHARED_SCOPES,
    alwaysRecall: true,
    description: "The language(s) the user wants replies in.",
  }),
  builtIn({
    kind: "hard_constraint",
    key: "constraint.hard",
    domain: "constraint",
    categoryPath: ["constraint"],
    type: "constraint",
    valueShape: "string[]",
    valueHint: "the rule as text, or the full list of rules (a new write replaces the list)",
    valueSchema: z.union([text, textList, nonEmptyRecord]),
    valueRequired: false,
    allowedScopes: SCOPE_TYPES,
    alwaysRecall: true,
    description: "Rules the assistant must always follow for this user or project.",
  }),
  builtIn({
    kind: "long_term_goal",
    key: "goal.long_term",
    domain: "goal",
    categoryPath: ["goal", "long_term"],
    type: "task",
    valueShape: "any",
    valueHint: "the goal as text, or { goal, deadline?, ... }",
    valueSchema: z.union([text, nonEmptyRecord]),
    valueRequired: false,
    allowedScopes: SHARED_SCOPES,
    description: "The user's long-term goal.",
  }),
  builtIn({
    kind: "durable_decision",
    key: "decision.durable",
    domain: "decision",
    categoryPath: ["decision"],
    type: "decision",
    itemized: true,
    itemKeyFromTitle: true,
    valueShape: "any",
    valueHint: "the decision as text, or { decision, rationale?, ... }; itemKey names the decision (database, release_day), else the title does",
    valueSchema: z.union([text, nonEmptyRecord]),
    valueRequired: false,
    defaultScope: "workspace",
    allowedScopes: SCOPE_TYPES,
    requiresExplicitIntent: false,
    description: "A lasting decision (usually a project's) that later work must respect, one card per decision.",
  }),
  builtIn({
    kind: "custom_fact",
    key: "custom.fact",
    domain: "custom",
    categoryPath: ["custom"],
    type: "fact",
    itemized: true,
    valueShape: "any",
    valueHint: "any JSON value; itemKey names the fact (wifi_name, bike_model)",
    valueSchema: SHAPE_SCHEMAS.any,
    valueRequired: false,
    allowedScopes: SCOPE_TYPES,
    description: "Any other stable fact the user asked to remember, one card per itemKey.",
  }),
  // 002's itemized kinds.
  builtIn({
    kind: "accessibility_need",
    key: "profile.accessibility",
    domain: "profile",
    categoryPath: ["profile", "accessibility"],
    type: "constraint",
    itemized: true,
    valueShape: "any",
    valueHint: "the need as text, or an object describing it; itemKey names it (screen_reader, large_text)",
    valueSchema: z.union([text, nonEmptyRecord]),
    valueRequired: false,
    allowedScopes: SHARED_SCOPES,
    alwaysRecall: true,
    description: "An accessibility need the assistant must accommodate.",
  }),
  builtIn({
    kind: "communication_preference",
    key: "preference.communication",
    domain: "preference",
    categoryPath: ["preference", "communication"],
    type: "preference",
    itemized: true,
    valueShape: "any",
    valueHint: 'the preference ("concise", "no emoji"); itemKey names the aspect (length, tone, format)',
    valueSchema: z.union([text, textList, nonEmptyRecord]),
    allowedScopes: SHARED_SCOPES,
    alwaysRecall: true,
    description: "How the user wants answers written (length, tone, format), one card per aspect.",
  }),
  builtIn({
    kind: "project_context",
    key: "project.context",
    domain: "project",
    categoryPath: ["project"],
    type: "fact",
    itemized: true,
    valueShape: "any",
    valueHint: "any JSON value; itemKey names the project or topic (hermes_studio, deploy_target)",
    valueSchema: SHAPE_SCHEMAS.any,
    valueRequired: false,
    defaultScope: "workspace",
    allowedScopes: SCOPE_TYPES,
    requiresExplicitIntent: false,
    description: "A stable fact about a project: stack, repository, conventions, one card per topic.",
  }),
  builtIn({
    kind: "personal_relationship",
    key: "profile.relationship",
    domain: "profile",
    categoryPath: ["profile", "relationship"],
    type: "fact",
    itemized: true,
    valueShape: "object",
    valueHint: '{ name?, relation? } with at least one ("wife", "Bob"); itemKey names the person',
    valueSchema: z.union([text, objectWithOneOf(["name", "relation"])]),
    itemKeyFromValue: itemFromFields(["name", "relation"]),
    description: "A person in the user's life and how they relate to the user.",
  }),
  // Work in progress and transient states.
  builtIn({
    kind: "active_task",
    key: "task.active",
    domain: "task",
    categoryPath: ["task", "active"],
    type: "task",
    itemized: true,
    valueShape: "any",
    valueHint: "the task as text, or { task, status?, due?, next? }; itemKey names the task",
    valueSchema: z.union([text, nonEmptyRecord]),
    valueRequired: false,
    defaultScope: "workspace",
    allowedScopes: ["workspace", "session", "context"],
    requiresExplicitIntent: false,
    description: "A task in progress; expire it when done.",
  }),
  builtIn({
    kind: "temporary_state",
    key: "state.temporary",
    domain: "state",
    categoryPath: ["state"],
    type: "constraint",
    itemized: true,
    valueShape: "any",
    valueHint: 'the state as text ("stomach upset today"); itemKey names the aspect (health, travel); needs expiresAt outside session scope',
    valueSchema: z.union([text, nonEmptyRecord]),
    valueRequired: false,
    defaultScope: "session",
    allowedScopes: SHARED_SCOPES,
    requiresExplicitIntent: false,
    temporary: true,
    description: "A temporary state of the user that matters for a while (health, travel, mood).",
  }),
  // 000's cooking schema (生活技能 / 做饭).
  ingredientKind("avoid_ingredient", "An ingredient or food the user avoids (dislike, allergy, religion), one card per item."),
  ingredientKind("preferred_ingredient", "An ingredient the user likes in recipes, one card per ingredient."),
  builtIn({
    kind: "flavor_profile",
    key: "cooking.flavor_profile",
    domain: COOKING_DOMAIN,
    categoryPath: COOKING_PREFERENCES,
    type: "preference",
    valueShape: "object",
    valueHint: '{ spicy?, oil?, salt?, sugar?, sour? } each "none" | "low" | "medium" | "high"; phrases like "少油少辣" are accepted',
    valueSchema: z
      .record(z.string(), z.string())
      .refine((value) => Object.keys(value).length > 0, { error: "names no recognised flavor (spicy, oil, salt, sugar, sour)" }),
    normalizeValue: (value) =>
      typeof value === "string" || Array.isArray(value) || (value && typeof value === "object")
        ? normalizeFlavorProfile(value as string | unknown[] | Record<string, unknown>)
        : value,
    description: "The user's taste for cooking: spiciness, oil, salt, sugar, sourness.",
  }),
  builtIn({
    kind: "dietary_restriction",
    key: "cooking.dietary_restriction",
    domain: COOKING_DOMAIN,
    categoryPath: COOKING_PREFERENCES,
    type: "preference",
    itemized: true,
    valueShape: "string",
    valueHint: 'the restriction ("vegetarian", "低糖", "halal"), or { restriction, note? }; itemKey defaults to it',
    valueSchema: z.union([text, objectWithOneOf(["restriction", "name"])]),
    itemKeyFromValue: itemFromFields(["restriction", "name"]),
    description: "A diet the user follows (vegetarian, halal, low sugar), one card per restriction.",
  }),
  builtIn({
    kind: "cooking_time_preference",
    key: "cooking.cooking_time_preference",
    domain: COOKING_DOMAIN,
    categoryPath: COOKING_PREFERENCES,
    type: "preference",
    valueShape: "object",
    valueHint: 'minutes as a number (30), text ("quick weekday meals"), or { maxMinutes?, note? }',
    valueSchema: z.union([text, z.number().positive(), nonEmptyRecord]),
    description: "How much time the user wants to spend cooking.",
  }),
  builtIn({
    kind: "recipe",
    key: "cooking.recipe",
    domain: COOKING_DOMAIN,
    categoryPath: [COOKING_DOMAIN, "做饭", "菜谱"],
    type: "recipe",
    itemized: true,
    valueShape: "any",
    valueHint: "{ ingredients?, steps?, notes? } or text; itemKey names the dish (番茄炒蛋)",
    valueSchema: z.union([text, nonEmptyRecord]),
    valueRequired: false,
    description: "A recipe the user wants kept, one card per dish.",
  }),
];

/** Kinds injected into every turn (002's ALWAYS_RECALLED_MEMORY_KINDS). */
/** A kind as plain data (no schema or functions): what the dashboard lists and edits. */
export function describeKind(def: KindDefinition) {
  return {
    kind: def.kind,
    key: def.key,
    domain: def.domain,
    categoryPath: [...def.categoryPath],
    type: def.type,
    itemized: def.itemized,
    /** Where the item comes from when none is given: the value ("香菜"), the title (decisions), or nowhere (required). */
    itemFrom: def.itemKeyFromValue ? ("value" as const) : def.itemKeyFromTitle ? ("title" as const) : null,
    valueShape: def.valueShape,
    valueHint: def.valueHint,
    valueRequired: def.valueRequired,
    defaultScope: def.defaultScope,
    allowedScopes: [...def.allowedScopes],
    requiresExplicitIntent: def.requiresExplicitIntent,
    alwaysRecall: def.alwaysRecall,
    temporary: def.temporary,
    description: def.description,
    source: def.source,
  };
}

export const ALWAYS_RECALLED_KINDS: readonly string[] = BUILT_IN_KINDS.filter((def) => def.alwaysRecall).map((def) => def.kind);
/** The user's profile facts (name, home, occupation, the people in their life): recalled every turn, as "About the user". */
export const PROFILE_KINDS: readonly string[] = BUILT_IN_KINDS.filter((def) => def.domain === "profile" && def.type === "fact").map((def) => def.kind);

/** Names a model tends to invent → the controlled kind (000: the same meaning must get one key). */
export const kindKeySynonyms: Readonly<Record<string, string>> = {
  relationship_contract: "interaction_contract", interaction: "interaction_contract", address_user_as: "interaction_contract", persona: "interaction_contract",
  name: "profile_name", user_name: "profile_name", username: "profile_name", display_name: "profile_name", preferred_name: "profile_name", nickname: "profile_name",
  location: "home_location", home: "home_location", home_city: "home_location", city: "home_location", residence: "home_location", hometown: "home_location",
  job: "occupation", profession: "occupation", job_title: "occupation", work: "occupation", role: "occupation",
  timezone: "timezone_preference", time_zone: "timezone_preference", tz: "timezone_preference",
  language: "language_preference", preferred_language: "language_preference", reply_language: "language_preference", locale: "language_preference",
  constraint: "hard_constraint", rule: "hard_constraint", hard_rule: "hard_constraint", must_not: "hard_constraint",
  goal: "long_term_goal", long_term_goals: "long_term_goal", objective: "long_term_goal",
  decision: "durable_decision", project_decision: "durable_decision",
  fact: "custom_fact", note: "custom_fact", custom: "custom_fact",
  // food_avoidance was a kind of its own until the two meant the same thing (MERGED_KINDS).
  food_avoidance: "avoid_ingredient", food_dislike: "avoid_ingredient", food_allergy: "avoid_ingredient", allergy: "avoid_ingredient", avoided_food: "avoid_ingredient", disliked_food: "avoid_ingredient",
  accessibility: "accessibility_need", disability: "accessibility_need",
  communication_style: "communication_preference", response_style: "communication_preference", tone: "communication_preference", reply_style: "communication_preference",
  project: "project_context", project_fact: "project_context", project_info: "project_context",
  relationship: "personal_relationship", family_member: "personal_relationship", contact: "personal_relationship", relative: "personal_relationship",
  task: "active_task", current_task: "active_task", todo: "active_task",
  temporary: "temporary_state", current_state: "temporary_state", temporary_condition: "temporary_state", mood: "temporary_state",
  disliked_ingredient: "avoid_ingredient", avoid_food: "avoid_ingredient", excluded_ingredient: "avoid_ingredient", avoided_ingredient: "avoid_ingredient", no_ingredient: "avoid_ingredient",
  liked_ingredient: "preferred_ingredient", favorite_ingredient: "preferred_ingredient", favourite_ingredient: "preferred_ingredient",
  flavor: "flavor_profile", flavour: "flavor_profile", flavor_preference: "flavor_profile", taste: "flavor_profile", taste_preference: "flavor_profile", spice_level: "flavor_profile",
  diet: "dietary_restriction", dietary_preference: "dietary_restriction", diet_restriction: "dietary_restriction",
  cooking_time: "cooking_time_preference", cook_time: "cooking_time_preference", prep_time: "cooking_time_preference",
  dish: "recipe", recipe_note: "recipe",
};

const kindName = (raw: string) =>
  raw.normalize("NFKC").trim().toLowerCase().replace(/[\s\-./]+/g, "_").replace(/_+/g, "_");

const BUILT_IN_BY_KIND = new Map(BUILT_IN_KINDS.map((def) => [def.kind, def]));
/**
 * Kinds merged into another (docs/memory-model.md): a write naming the old kind lands in the kind it
 * merged into, while cards stored before the merge keep their kind and slot key (no key rewrite, so no
 * two cards of one item are ever folded together). Reads by either name, or by either slot key, find
 * both; an update of an old card moves it into the new slot as its next revision.
 */
export const MERGED_KINDS: Readonly<Record<string, { into: string; key: string }>> = {
  food_avoidance: { into: "avoid_ingredient", key: "preference.food.avoid" },
};

/** The kind names cards of `kind` may be stored under: its own and those merged into it. */
export function storedKindNames(kind: string): string[] {
  return [kind, ...Object.entries(MERGED_KINDS).flatMap(([name, merged]) => (merged.into === kind ? [name] : []))];
}

/** The slot keys cards of `def` may be stored under: its own and those of kinds merged into it. */
export function storedSlotKeys(def: Pick<KindDefinition, "kind" | "key">): string[] {
  return [def.key, ...Object.values(MERGED_KINDS).flatMap((merged) => (merged.into === def.kind ? [merged.key] : []))];
}

const BUILT_IN_BY_KEY = new Map([
  ...BUILT_IN_KINDS.map((def) => [def.key, def] as const),
  ...Object.values(MERGED_KINDS).flatMap((merged) => {
    const def = BUILT_IN_KINDS.find((d) => d.kind === merged.into);
    return def ? [[merged.key, def] as const] : [];
  }),
]);

/**
 * The definition for a kind name, a synonym (`disliked_ingredient`), or a slot/canonical key
 * (`profile.identity.name`, `cooking.avoid_ingredient:香菜`). Built-ins first; custom kinds can never
 * shadow them. Undefined for anything unknown.
 */
export function resolveKind(kindOrSynonym: string, customKinds: readonly KindDefinition[] = []): KindDefinition | undefined {
  if (typeof kindOrSynonym !== "string") return undefined;
  const raw = kindOrSynonym.normalize("NFKC").trim().toLowerCase();
  const slotKey = raw.split(":")[0] ?? raw;
  const name = kindName(raw);
  const synonym = kindKeySynonyms[name];
  return (
    BUILT_IN_BY_KIND.get(name) ??
    (synonym ? BUILT_IN_BY_KIND.get(synonym) : undefined) ??
    BUILT_IN_BY_KEY.get(slotKey) ??
    customKinds.find((def) => def.kind === name || def.key === slotKey)
  );
}

/** Every kind a tenant can use: built-ins, then its custom kinds. */
export function listKinds(customKinds: readonly KindDefinition[] = []): readonly KindDefinition[] {
  return [...BUILT_IN_KINDS, ...customKinds];
}

// ---- checks the write path runs --------------------------------------------------------------

export type KindValueResult =
  | { ok: true; value: unknown }
  | { ok: false; reason: "value_required" | "invalid_value"; message: string };

/** Normalizes synonyms, then validates valueJson against the kind's shape. */
export function validateKindValue(def: KindDefinition, value: unknown): KindValueResult {
  if (value === undefined || value === null) {
    return def.valueRequired
      ? { ok: false, reason: "value_required", message: `kind ${def.kind} needs valueJson: ${def.valueHint}` }
      : { ok: true, value: null };
  }
  const parsed = def.valueSchema.safeParse(def.normalizeValue ? def.normalizeValue(value) : value);
  if (parsed.success) return { ok: true, value: parsed.data };
  const details = parsed.error.issues.map((issue) => (issue.path.length ? `${issue.path.join(".")}: ` : "") + issue.message).join("; ");
  return { ok: false, reason: "invalid_value", message: `kind ${def.kind} expects ${def.valueHint} (${details})` };
}

export type KindScopeResult = { ok: true } | { ok: false; reason: "scope_not_allowed" | "expiry_required"; message: string };

/** Whether a card of this kind may live in `scope`; temporary kinds need an expiry outside a session. */
export function checkKindScope(def: KindDefinition, scope: ScopeType, options: { hasExpiry: boolean }): KindScopeResult {
  if (!def.allowedScopes.includes(scope)) {
    return { ok: false, reason: "scope_not_allowed", message: `kind ${def.kind} may be stored in ${def.allowedScopes.join(", ")} scope, not ${scope}` };
  }
  if (def.temporary && scope !== "session" && !options.hasExpiry) {
    return { ok: false, reason: "expiry_required", message: `kind ${def.kind} is temporary: outside session scope it needs expiresAt` };
  }
  return { ok: true };
}

// ---- per-tenant custom kinds -----------------------------------------------------------------

const KIND_NAME = /^[a-z][a-z0-9_]{1,47}$/;
const SLOT_KEY = /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$/;

/** What an admin submits to add a kind for the tenant (stored as `memory_kinds.definition`). */
export const customKindDefinitionSchema = z
  .strictObject({
    kind: z.string().regex(KIND_NAME, "lower-case letters, digits and _ (2–48 characters), starting with a letter"),
    key: z.string().max(64).regex(SLOT_KEY, "dot-separated lower-case segments, e.g. hobby.instrument"),
    domain: z.string().trim().min(1).max(64),
    categoryPath: z.array(z.string().trim().min(1).max(64)).max(8).default([]),
    type: z.enum(NODE_TYPES),
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
    const message = parsed.error.issues.map((issue) => `${issue.path.join(".") || "definition"}: ${issue.message}`).join("; ");
    return { ok: false, reason: "invalid_definition", message };
  }
  const input = parsed.data;
  const clashesWithKey = (key: string) => key === input.key || key.startsWith(`${input.key}.`) || input.key.startsWith(`${key}.`);
  if (resolveKind(input.kind) || [...BUILT_IN_KINDS.map((def) => def.key), ...Object.values(MERGED_KINDS).map((m) => m.key)].some(clashesWithKey)) {
    return { ok: false, reason: "shadows_builtin", message: `kind ${input.kind} or key ${input.key} is taken by a built-in kind` };
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
