import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anyOf } from "~/db/any-of";
import { memoryMessages } from "~/db/schema";
import { appendMessages } from "~/server/memory/evidence/messages";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { createTenant } from "../support/memory";

describe(`anyOf on the database (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  beforeAll(async () => {
    handle = await openTestDatabase();
  });
  afterAll(async () => handle?.destroy());

  it("matches exactly the listed values, quotes and commas included, and nothing for an empty list", async () => {
    const t = await createTenant(handle.db);
    const stored = await appendMessages(
      handle.db,
      { tenantId: t, actor: { type: "api_key", id: "key_test" } },
      {
        sessionId: `s,1 "x"`,
        messages: [
          { role: "user", content: "first" },
          { role: "user", content: "second" },
          { role: "user", content: "third" },
        ],
      },
    );
    const ids = stored.messages.map((m) => m.id);
    const select = (values: string[]) =>
      handle.db
        .select({ id: memoryMessages.id })
        .from(memoryMessages)
        .where(and(eq(memoryMessages.tenantId, t), anyOf(memoryMessages.id, values)));
    expect((await select([ids[0]!, ids[2]!, "msg_absent"])).map((r) => r.id).sort()).toEqual([ids[0]!, ids[2]!].sort());
    expect(await select([])).toEqual([]);
    const bySession = await handle.db
      .select({ id: memoryMessages.id })
      .from(memoryMessages)
      .where(and(eq(memoryMessages.tenantId, t), anyOf(memoryMessages.sessionId, [`s,1 "x"`, "o'neil"])));
    expect(bySession).toHaveLength(3);
  });
});
