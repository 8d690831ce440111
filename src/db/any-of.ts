import { sql, type AnyColumn, type SQL, type SQLWrapper } from "drizzle-orm";

/**
 * `column = any($1::text[])`: membership in a list of text values as one array parameter. Unlike
 * `inArray` (`in ($1, …, $n)`), the statement text does not change with the list's length, so each
 * connection prepares it once instead of once per length (each new text costs a describe round trip:
 * ~3 % of a search's server CPU under load). An empty list matches nothing.
 */
export function anyOf(column: AnyColumn | SQLWrapper, values: readonly string[]): SQL {
  return sql`${column} = any(${sql.param([...values])}::text[])`;
}
