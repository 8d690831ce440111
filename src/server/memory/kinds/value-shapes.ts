import { z } from "zod";
import type { ValueShape } from "./definition";

/** Value schemas the catalogue and custom kinds are built from. */
export const text = z.string().trim().min(1).max(2000);
export const textList = z.array(text).min(1).max(50);
export const nonEmptyRecord = z
  .record(z.string(), z.unknown())
  .refine((value) => Object.keys(value).length > 0, { error: "must not be an empty object" });

/** An object that must carry at least one of `fields` as non-empty text; other fields pass through. */
export function objectWithOneOf(fields: readonly string[]) {
  const shape = Object.fromEntries(fields.map((field) => [field, text.optional()]));
  return z
    .looseObject(shape)
    .refine((value: Record<string, unknown>) => fields.some((field) => value[field] !== undefined), {
      error: `needs at least one of: ${fields.join(", ")}`,
    });
}

export const SHAPE_SCHEMAS: Record<ValueShape, z.ZodType> = {
  string: text,
  number: z.number(),
  boolean: z.boolean(),
  "string[]": textList,
  object: nonEmptyRecord,
  any: z.unknown(),
};

/** `"香菜"` or `{ ingredient: "香菜" }` → "香菜": lets a write without itemKey still find its slot. */
export const itemFromFields =
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

export const timezoneValue = text.refine(isTimeZone, {
  error: "must be an IANA time zone (Asia/Shanghai) or a UTC offset (UTC+8)",
});
