import { PgDialect } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import { anyOf } from "~/db/any-of";
import { memoryNodes } from "~/db/schema";

const dialect = new PgDialect();

describe("anyOf", () => {
  it("sends the list as one array parameter, so the statement text is the same for every length", () => {
    const two = dialect.sqlToQuery(anyOf(memoryNodes.id, ["a", "b"]));
    const five = dialect.sqlToQuery(anyOf(memoryNodes.id, ["a", "b", "c", "d", "e"]));
    const none = dialect.sqlToQuery(anyOf(memoryNodes.id, []));
    expect(two.sql).toBe(five.sql);
    expect(none.sql).toBe(two.sql);
    expect(two.params).toEqual([["a", "b"]]);
    expect(five.params).toEqual([["a", "b", "c", "d", "e"]]);
  });
});
