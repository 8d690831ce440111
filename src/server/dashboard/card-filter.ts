import { z } from "zod";
import { CARD_STATUSES, CARD_TYPES } from "~/db/schema";

/**
 * What the memory browser filters by. The same shape travels in the URL (shareable, back button),
 * in the `memory.browse` input, and into the SQL of browseCards.
 */
const label = z.string().trim().min(1).max(200);
const unit = z.number().min(0).max(1);

export const cardFilterSchema = z.object({
  /** Concrete scopes (`user:<id>`, `session:<id>`, `global`) or `session:*`; each must be readable. */
  scopes: z.array(z.string().trim().min(1).max(220)).max(20).optional(),
  kinds: z.array(label).max(20).optional(),
  domain: label.optional(),
  /** `/`-joined category prefix (`生活技能/做饭`). */
  category: z.string().trim().min(1).max(300).optional(),
  types: z.array(z.enum(CARD_TYPES)).max(CARD_TYPES.length).optional(),
  /** Default: active only. */
  statuses: z.array(z.enum(CARD_STATUSES)).max(CARD_STATUSES.length).optional(),
  tags: z.array(label).max(20).optional(),
  entities: z.array(label).max(20).optional(),
  minConfidence: unit.optional(),
  maxConfidence: unit.optional(),
  minImportance: unit.optional(),
  maxImportance: unit.optional(),
  /** Text match over title, keys, values and content (Chinese is segmented like the index). */
  text: z.string().trim().min(1).max(500).optional(),
});
export type CardFilter = z.infer<typeof cardFilterSchema>;

type SearchParams = Record<string, string | string[] | undefined>;

const list = (value: string | string[] | undefined): string[] =>
  (Array.isArray(value) ? value : value ? [value] : [])
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter(Boolean);
const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value)?.trim() || undefined;
const fraction = (value: string | string[] | undefined) => {
  const text = one(value);
  if (text === undefined) return undefined;
  const n = Number(text);
  return Number.isFinite(n) && n >= 0 && n <= 1 ? n : undefined;
};

/** URL → filter. Unknown or malformed values are dropped rather than failing the page. */
export function cardFilterFromSearchParams(params: SearchParams): CardFilter {
  const raw = {
    scopes: list(params.scope),
    kinds: list(params.kind),
    domain: one(params.domain),
    category: one(params.category),
    types: list(params.type).filter((t) => (CARD_TYPES as readonly string[]).includes(t)),
    statuses: list(params.status).filter((s) => (CARD_STATUSES as readonly string[]).includes(s)),
    tags: list(params.tag),
    entities: list(params.entity),
    minConfidence: fraction(params.minConfidence),
    maxConfidence: fraction(params.maxConfidence),
    minImportance: fraction(params.minImportance),
    maxImportance: fraction(params.maxImportance),
    text: one(params.q),
  };
  const cleaned = Object.fromEntries(
    Object.entries(raw).filter(([, v]) => v !== undefined && !(Array.isArray(v) && v.length === 0)),
  );
  const parsed = cardFilterSchema.safeParse(cleaned);
  return parsed.success ? parsed.data : {};
}

export { cardFilterToSearchParams } from "./card-filter-url";
