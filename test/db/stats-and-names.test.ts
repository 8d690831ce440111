import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_API_KEY_PERMISSIONS, defaultApiKeyScopes, memoryQueryLog } from "~/db/schema";
import { addUserToTenant, registerAccount } from "~/server/auth/accounts";
import { createApiKey } from "~/server/auth/api-keys";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { callerAs } from "../support/trpc";

type Caller = ReturnType<typeof callerAs>;

describe(`stats and workspace names as people see them (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  let tenantId: string;
  let admin: { userId: string; api: Caller };
  let max: { userId: string; api: Caller };
  let nina: { userId: string; api: Caller };

  beforeAll(async () => {
    handle = await openTestDatabase();
    const first = await registerAccount(handle.db, {
      email: "ada@example.com",
      password: "correct horse battery",
      name: "Ada",
      openSignup: false,
    });
    tenantId = first.tenantId;
    admin = { userId: first.user.id, api: callerAs(handle.db, { userId: first.user.id }) };
    const add = async (email: string) => {
      const { user } = await addUserToTenant(handle.db, {
        email,
        password: "member password",
        role: "member",
        tenantId,
        actorUserId: first.user.id,
      });
      return { userId: user.id, api: callerAs(handle.db, { userId: user.id }) };
    };
    max = await add("max@example.com");
    nina = await add("nina@example.com");
  });
  afterAll(async () => handle?.destroy());

  it("members count their own searches and their keys'; admins the organisation's", async () => {
    const keyOf = async (userId: string) =>
      (
        await createApiKey(handle.db, {
          tenantId,
          ownerUserId: userId,
          createdByUserId: userId,
          name: "agent",
          scopes: defaultApiKeyScopes(userId),
          permissions: [...DEFAULT_API_KEY_PERMISSIONS],
        })
      ).apiKey.id;
    const [maxKey, ninaKey] = [await keyOf(max.userId), await keyOf(nina.userId)];
    const row = (actorType: "user" | "api_key", actorId: string, latencyMs: number) => ({
      tenantId,
      operation: "memory_search",
      actorType,
      actorId,
      latencyMs,
      resultCount: 1,
    });
    await handle.db
      .insert(memoryQueryLog)
      .values([
        row("user", max.userId, 10),
        row("api_key", maxKey, 20),
        row("api_key", maxKey, 30),
        row("user", admin.userId, 500),
        row("api_key", ninaKey, 900),
        row("user", nina.userId, 800),
      ]);

    const everyone = await admin.api.memory.stats({ days: 7 });
    expect(everyone.latency.count).toBe(6);
    const mine = await max.api.memory.stats({ days: 7 });
    expect(mine.latency).toMatchObject({ count: 3, p50: 20 });
    expect(mine.latency.byOperation).toEqual([{ operation: "memory_search", count: 3, p50: 20, p95: 29 }]);
    expect(mine.searchesPerDay.reduce((n, d) => n + d.count, 0)).toBe(3);
    expect((await nina.api.memory.stats({ days: 7 })).latency).toMatchObject({ count: 2, p50: 850 });
  });

  it("a workspace named in Chinese keeps its name as its id, numbered when taken", async () => {
    const first = await admin.api.admin.workspaces.create({ name: "测试项目" });
    expect(first).toMatchObject({ id: "测试项目", scope: "workspace:测试项目", name: "测试项目" });
    const second = await admin.api.admin.workspaces.create({ name: "测试 项目!" });
    expect(second.id).toBe("测试-项目");
    const again = await admin.api.admin.workspaces.create({ name: "测试项目" });
    expect(again.id).toBe("测试项目-2");
    // A typed id may be Chinese too; one that would break a scope string is a 400 with the rule.
    expect((await admin.api.admin.workspaces.create({ name: "Data", id: "数据" })).scope).toBe("workspace:数据");
    await expect(admin.api.admin.workspaces.create({ name: "Bad", id: "a:b" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringMatching(/lower-case letters/),
    });
    await expect(admin.api.admin.workspaces.create({ name: "Taken", id: "测试项目" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      cause: { reason: "workspace_exists" },
    });
    // The workspace works as a scope: a card in it is listed under it.
    expect(
      (
        await admin.api.memory.write({
          operations: [
            {
              op: "create",
              kind: "custom_fact",
              itemKey: "goal",
              scope: "workspace:测试项目",
              node: { title: "目标", content: "测试项目的目标", valueJson: "x" },
            },
          ],
        })
      ).done,
    ).toBe(true);
    expect((await admin.api.admin.workspaces.list()).find((w) => w.id === "测试项目")?.activeCards).toBe(1);
  });
});
