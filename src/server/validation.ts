import { z } from "zod";
import { badRequest } from "./errors";

/**
 * How inputs are checked: objects that refuse keys they do not define, and the one error text
 * an agent reads. A dropped key changes what a call means without a word — `query` for `queryText`
 * searched for nothing and answered "no memory matched", `scopes` beside `all: true` forgot every
 * scope instead of one — so an unknown key is refused, naming it and the keys the object takes.
 */

/** `"a", "b"` */
const quoted = (keys: readonly string[]) => keys.map((key) => `"${key}"`).join(", ");

/**
 * A strict object whose refusal of unknown keys reads `refusal(unknown, takes)`: `unknown` the keys
 * sent, quoted; `takes` the keys `shape` defines.
 */
export function strictInput<S extends z.ZodRawShape>(shape: S, refusal: (unknown: string, takes: string) => string) {
  const takes = Object.keys(shape).join(", ");
  return z.strictObject(shape, {
    error: (issue: { code?: string; keys?: string[] }) =>
      issue.code === "unrecognized_keys" ? refusal(quoted(issue.keys ?? []), takes) : undefined,
  });
}

/** strictInput with the usual refusal: `<what> does not take "x". It takes a, b, c`. */
export const strictShape = <S extends z.ZodRawShape>(what: string, shape: S, hint = "") =>
  strictInput(
    shape,
    (unknown, takes) => `${what} does not take ${unknown}. It takes ${takes}${hint ? `; ${hint}` : ""}`,
  );

/**
 * Every problem of a failed parse, each with where it is (`input` for the object itself). Unknown keys
 * first: they usually explain the rest (a key sent under the wrong name is also a required one missing).
 */
export function inputProblems(error: z.ZodError): string {
  const where = (issue: z.core.$ZodIssue) => issue.path.join(".") || "input";
  const strays = error.issues.filter((issue) => issue.code === "unrecognized_keys");
  const strayAt = new Set(strays.map(where));
  // An object's own check ("a selector needs at least one field") fails because the field went under a
  // wrong name: the unknown key already says what to send.
  const rest = error.issues.filter(
    (issue) => issue.code !== "unrecognized_keys" && !(issue.code === "custom" && strayAt.has(where(issue))),
  );
  return [...strays, ...rest].map((issue) => `${where(issue)}: ${issue.message}`).join("; ");
}

/** `schema`'s output for `raw`, or 400 invalid_input: `<what> is invalid: <each problem>.` */
export function parseInput<S extends z.ZodType>(schema: S, raw: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw badRequest("invalid_input", `${what} is invalid: ${inputProblems(parsed.error)}.`);
  return parsed.data;
}
