import { describe, expect, it } from "vitest";
import { sqlStringLiteral } from "~/db/raw";

describe("sqlStringLiteral", () => {
  it("writes an escape string whose quotes and backslashes cannot end it early", () => {
    expect(sqlStringLiteral("'quokka':*A")).toBe("E'''quokka'':*A'");
    expect(sqlStringLiteral("a\\'); drop table t; --")).toBe("E'a\\\\''); drop table t; --'");
    expect(sqlStringLiteral("\\")).toBe("E'\\\\'");
    expect(sqlStringLiteral("蛋\u0000糕")).toBe("E'蛋糕'");
  });
});
