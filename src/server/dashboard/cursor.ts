import { badRequest } from "~/server/errors";

/**
 * Opaque keyset cursors: the sort key of the last row of a page, base64url-encoded JSON. Pages are
 * found by `WHERE (key) < (cursor)` on an index, so page 1,000 costs what page 1 costs.
 */
export function encodeCursor(parts: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify(parts), "utf8").toString("base64url");
}

/**
 * What each part of a cursor must be: `string` an id (short, well-formed text), `timestamp` Postgres'
 * text form of a timestamptz, `integer` a row number JavaScript holds exactly. A cursor is opaque but
 * comes back from the client: anything else is refused here, before it can reach a query (where
 * [1e308] or "not-a-date" failed as a server error).
 */
export type CursorPart = "string" | "timestamp" | "integer";

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}(:?\d{2}){0,2})?$/;
const WELL_FORMED_ID = /^[^\u0000-\u001f\uD800-\uDFFF]{1,200}$/;

function partOk(value: unknown, kind: CursorPart): boolean {
  if (kind === "integer") return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
  if (typeof value !== "string") return false;
  if (kind === "timestamp")
    return TIMESTAMP.test(value) && !Number.isNaN(Date.parse(value.replace(" ", "T").replace(/([+-]\d{2})$/, "$1:00")));
  return WELL_FORMED_ID.test(value);
}

export function decodeCursor<T extends readonly (string | number)[]>(
  cursor: string,
  shape: { [K in keyof T]: CursorPart },
): T {
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    parts = null;
  }
  const ok = Array.isArray(parts) && parts.length === shape.length && parts.every((p, i) => partOk(p, shape[i]!));
  if (!ok) throw badRequest("invalid_cursor", "This page link is out of date; go back to the first page.");
  return parts as unknown as T;
}

export const clampLimit = (limit: number | undefined, fallback: number, max: number) =>
  Math.min(Math.max(Math.trunc(limit ?? fallback), 1), max);
