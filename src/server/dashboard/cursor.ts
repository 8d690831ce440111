import { badRequest } from "~/server/errors";

/**
 * Opaque keyset cursors: the sort key of the last row of a page, base64url-encoded JSON. Pages are
 * found by `WHERE (key) < (cursor)` on an index, so page 1,000 costs what page 1 costs.
 */
export function encodeCursor(parts: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify(parts), "utf8").toString("base64url");
}

export function decodeCursor<T extends readonly (string | number)[]>(cursor: string, shape: { [K in keyof T]: "string" | "number" }): T {
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    parts = null;
  }
  const ok = Array.isArray(parts) && parts.length === shape.length && parts.every((p, i) => typeof p === shape[i]);
  if (!ok) throw badRequest("invalid_cursor", "This page link is out of date; go back to the first page.");
  return parts as unknown as T;
}

export const clampLimit = (limit: number | undefined, fallback: number, max: number) => Math.min(Math.max(Math.trunc(limit ?? fallback), 1), max);
