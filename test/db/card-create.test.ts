import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryNodes } from "~/db/schema";
import { handleMcpRequest } from "~/server/tools/mcp";
import { createKey, createOrg } from "../support/agents";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { callerAs } from "../support/trpc";

/**
 * Issue #31, items 1 and 9: a create never replaces another card without saying so (agents get
 * `replaced` over tRPC and MCP, people a preview before saving), several durable decisions live side by
 * side in a workspace, and food_avoidance cards stored before the merge stay readable as avoid_ingredient.
 */
describe(`creating a card never silently replaces another (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  let org: Awaited<ReturnType<typeof createOrg>>;
  let secret: string;

  beforeAll(async () => {
    handle = await openTestDatabase();
    org = await createOrg(handle.db);
    secret = (
      await createKey(handle.db, {
        tenantId: org.tenantId,
        ownerUserId: org.adminId,
        scopes: [`user:${org.adminId}`, "workspace:apollo", "session:*"],
      })
    ).secret;
  });
  afterAll(async () => handle?.destroy());

  const agent = () => callerAs(handle.db, { bearer: secret }).tools;
  const person = () => callerAs(handle.db, { userId: org.adminId }).memory;
  const decision = (title: string, content: string) => ({
    op: "create" as const,
    kind: "durable_decision",
    scope: "workspace:apollo",
    node: { title, content },
  });
  const mcp = async (body: unknown) => {
    const headers = new Headers({
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${secret}`,
    });
    const res = await handleMcpRequest(
      new Request("http://localhost/api/mcp", { method: "POST", headers, body: JSON.stringify(body) }),
      { db: handle.db },
    );
    return (await res.json()) as {
      result: { isError: boolean; structuredContent: { done: boolean; results: Record<string, unknown>[] } };
    };
  };

  it("keeps two durable decisions of one workspace side by side, and both findable", async () => {
    const postgres = await agent().memory_write({
      operations: [decision("Apollo uses Postgres", "The Apollo database is Postgres.")],
    });
    const friday = await agent().memory_write({
      operations: [decision("No Friday deploys", "Apollo is never deployed on a Friday.")],
    });
    expect(postgres.results[0]).toMatchObject({ status: "created", key: "decision.durable:apollo_uses_postgres" });
    expect(friday.results[0]).toMatchObject({ status: "created", key: "decision.durable:no_friday_deploys" });
    expect(friday.results[0]).not.toHaveProperty("replaced");
    const found = await agent().memory_search({ queryText: "database", scopes: ["workspace:apollo"] });
    expect([...found.exact, ...found.relevant].map((n) => n.id)).toContain(postgres.results[0]!.nodeId);
    const decisions = await agent().memory_search({ kinds: ["durable_decision"], scopes: ["workspace:apollo"] });
    expect(decisions.exact.map((n) => n.title).sort()).toEqual(["Apollo uses Postgres", "No Friday deploys"]);
  });

  it("refuses a decision whose title makes no item, asking for an itemKey", async () => {
    const dated = await agent().memory_write({ operations: [decision("2025-01-01", "Freeze starts.")] });
    expect(dated).toMatchObject({
      done: false,
      results: [{ status: "rejected", reason: "item_key_required", message: expect.stringMatching(/Send itemKey/) }],
    });
    const named = await agent().memory_write({
      operations: [{ ...decision("2025-01-01", "Freeze starts."), itemKey: "code freeze" }],
    });
    expect(named.results[0]).toMatchObject({ status: "created", key: "decision.durable:code_freeze" });
  });

  it("names the card a create replaced, over tRPC", async () => {
    const own = `user:${org.adminId}`;
    const first = await agent().memory_write({
      operations: [
        {
          op: "create",
          kind: "occupation",
          scope: own,
          explicitUserIntent: true,
          node: { title: "Backend engineer", content: "Works as a backend engineer.", valueJson: "backend engineer" },
        },
      ],
    });
    const second = await agent().memory_write({
      operations: [
        {
          op: "create",
          kind: "occupation",
          scope: own,
          explicitUserIntent: true,
          node: { title: "Designer", content: "Works as a designer.", valueJson: "designer" },
        },
      ],
    });
    const firstId = first.results[0]!.nodeId!;
    expect(second).toMatchObject({
      done: true,
      results: [
        {
          status: "superseded",
          previousId: firstId,
          replaced: { id: firstId, title: "Backend engineer", revision: 1 },
        },
      ],
    });
    expect(second.results[0]!.message).toMatch(new RegExp(`replaced ${firstId} "Backend engineer"`));
    // The same call through tools.call answers the same way.
    // (`call` is a procedure here, so it is reached as tools.call.call: Function.prototype.call is in the way.)
    const viaCall = (await agent().call.call(null, {
      name: "memory_write",
      arguments: {
        operations: [
          {
            op: "create",
            kind: "occupation",
            scope: own,
            explicitUserIntent: true,
            node: { title: "Teacher", content: "Works as a teacher.", valueJson: "teacher" },
          },
        ],
      },
    })) as { results: Record<string, unknown>[] };
    expect(viaCall.results[0]).toMatchObject({
      status: "superseded",
      replaced: { id: second.results[0]!.nodeId, title: "Designer", revision: 2 },
    });
  });

  it("names the card a create replaced, over MCP", async () => {
    const write = (value: string) => ({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "memory_write",
        arguments: {
          operations: [
            {
              op: "create",
              kind: "timezone_preference",
              scope: `user:${org.adminId}`,
              explicitUserIntent: true,
              node: { title: `Time zone ${value}`, content: `Show times in ${value}.`, valueJson: value },
            },
          ],
        },
      },
    });
    const first = await mcp(write("Asia/Shanghai"));
    const firstId = first.result.structuredContent.results[0]!.nodeId as string;
    const second = await mcp(write("Europe/Berlin"));
    expect(second.result).toMatchObject({
      isError: false,
      structuredContent: {
        done: true,
        results: [{ status: "superseded", replaced: { id: firstId, title: "Time zone Asia/Shanghai" } }],
      },
    });
  });

  it("keeps an agent's update at a stale revision a conflict", async () => {
    const created = await agent().memory_write({
      operations: [{ ...decision("Apollo ships weekly", "Apollo releases every Tuesday.") }],
    });
    const id = created.results[0]!.nodeId!;
    const updated = await agent().memory_write({
      operations: [
        { op: "update", targetId: id, expectedRevision: 1, node: { content: "Apollo releases every Wednesday." } },
      ],
    });
    expect(updated.results[0]).toMatchObject({ status: "updated", revision: 2 });
    const stale = await agent().memory_write({
      operations: [
        { op: "update", targetId: id, expectedRevision: 1, node: { content: "Apollo releases every Thursday." } },
      ],
    });
    expect(stale).toMatchObject({
      done: false,
      results: [{ status: "conflict", reason: "not_active", currentStatus: "superseded" }],
    });
    const current = updated.results[0]!.nodeId!;
    const staleCurrent = await agent().memory_write({
      operations: [
        { op: "update", targetId: current, expectedRevision: 1, node: { content: "Apollo releases every Thursday." } },
      ],
    });
    expect(staleCurrent).toMatchObject({
      done: false,
      results: [{ status: "conflict", reason: "revision_mismatch", currentRevision: 2 }],
    });
  });

  it("tells a person, before saving, which card a create would replace", async () => {
    const own = `user:${org.adminId}`;
    const name = (title: string) => ({
      op: "create" as const,
      kind: "profile_name",
      scope: own,
      node: { title, content: `The user is called ${title}.`, valueJson: title },
    });
    expect(await person().previewCreate({ operation: name("Ada") })).toMatchObject({
      ok: true,
      key: "profile.identity.name",
      itemized: false,
      replaces: null,
    });
    const saved = await person().write({ operations: [name("Ada")] });
    const id = saved.results[0]!.nodeId;
    expect(await person().previewCreate({ operation: name("Grace") })).toMatchObject({
      ok: true,
      replaces: { id, title: "Ada", revision: 1 },
      unchanged: false,
    });
    expect(await person().previewCreate({ operation: name("Ada") })).toMatchObject({
      ok: true,
      replaces: { id },
      unchanged: true,
    });
    // Nothing was written by asking.
    const rows = await handle.db
      .select()
      .from(memoryNodes)
      .where(and(eq(memoryNodes.tenantId, org.tenantId), eq(memoryNodes.key, "profile.identity.name")));
    expect(rows).toHaveLength(1);
    // Another decision is no replacement; the same title is.
    expect(
      await person().previewCreate({ operation: decision("Apollo runs on Kubernetes", "Apollo runs on Kubernetes.") }),
    ).toMatchObject({ ok: true, itemized: true, replaces: null });
    expect(await person().previewCreate({ operation: decision("No Friday deploys", "Not on Fridays.") })).toMatchObject(
      { ok: true, replaces: { title: "No Friday deploys" } },
    );
    // A refusal comes back as the write would give it, not as an error.
    expect(
      await person().previewCreate({
        operation: {
          op: "create",
          kind: "home_location",
          scope: own,
          node: { title: "Home", content: "Lives somewhere.", valueJson: { country: "China" } },
        },
      }),
    ).toMatchObject({ ok: false, reason: "invalid_value" });
    await expect(
      person().previewCreate({ operation: { op: "create", kind: "profile_name" } as never }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });

  it("finds food_avoidance cards stored before the merge under either name, and moves one into the new slot on update", async () => {
    const own = `user:${org.adminId}`;
    // A card as the food_avoidance kind stored it before it merged into avoid_ingredient.
    const written = await agent().memory_write({
      operations: [
        {
          op: "create",
          kind: "avoid_ingredient",
          itemKey: "peanuts",
          scope: own,
          explicitUserIntent: true,
          node: {
            title: "Peanut allergy",
            content: "Allergic to peanuts.",
            valueJson: { food: "peanuts", reason: "allergy" },
          },
        },
      ],
    });
    const oldId = written.results[0]!.nodeId!;
    await handle.db
      .update(memoryNodes)
      .set({
        kind: "food_avoidance",
        key: "preference.food.avoid:peanuts",
        domain: "preference",
        categoryPath: ["preference", "food"],
        categoryPathText: "preference/food",
      })
      .where(and(eq(memoryNodes.tenantId, org.tenantId), eq(memoryNodes.id, oldId)));

    for (const kinds of [["avoid_ingredient"], ["food_avoidance"], ["allergy"]]) {
      expect(
        (await agent().memory_search({ kinds, scopes: [own] })).exact.map((n) => n.id),
        kinds[0],
      ).toEqual([oldId]);
    }
    expect(await agent().memory_get({ kind: "avoid_ingredient", itemKey: "peanuts" })).toMatchObject({
      found: true,
      node: { id: oldId },
    });
    expect(
      (await agent().memory_search({ key: "preference.food.avoid:peanuts", scopes: [own] })).exact.map((n) => n.id),
    ).toEqual([oldId]);
    expect(
      (await agent().memory_search({ key: "cooking.avoid_ingredient:peanuts", scopes: [own] })).exact.map((n) => n.id),
    ).toEqual([oldId]);

    // A new card of the same item lands in the new slot; it does not replace the old card (no silent merge).
    const cilantro = await agent().memory_write({
      operations: [
        {
          op: "create",
          kind: "food_avoidance",
          scope: own,
          explicitUserIntent: true,
          node: { title: "No cilantro", content: "Dislikes cilantro.", valueJson: { food: "香菜", reason: "dislike" } },
        },
      ],
    });
    expect(cilantro.results[0]).toMatchObject({ status: "created", key: "cooking.avoid_ingredient:香菜" });

    const moved = await agent().memory_write({
      operations: [
        {
          op: "update",
          targetId: oldId,
          expectedRevision: 1,
          explicitUserIntent: true,
          node: { content: "Severely allergic to peanuts." },
        },
      ],
    });
    expect(moved.results[0]).toMatchObject({
      status: "updated",
      revision: 2,
      key: "cooking.avoid_ingredient:peanuts",
      previousId: oldId,
    });
    const [row] = await handle.db
      .select()
      .from(memoryNodes)
      .where(and(eq(memoryNodes.tenantId, org.tenantId), eq(memoryNodes.id, moved.results[0]!.nodeId!)));
    expect(row).toMatchObject({
      kind: "avoid_ingredient",
      domain: "生活技能",
      valueJson: { food: "peanuts", reason: "allergy" },
    });
  });

  it("does not fold an old food_avoidance card into an occupied new slot", async () => {
    const own = `user:${org.adminId}`;
    const create = (title: string) => ({
      op: "create" as const,
      kind: "avoid_ingredient",
      itemKey: "shrimp",
      scope: own,
      explicitUserIntent: true,
      node: { title, content: `${title}.`, valueJson: "shrimp" },
    });
    const old = await agent().memory_write({ operations: [create("Avoids shrimp")] });
    const oldId = old.results[0]!.nodeId!;
    await handle.db
      .update(memoryNodes)
      .set({ kind: "food_avoidance", key: "preference.food.avoid:shrimp" })
      .where(and(eq(memoryNodes.tenantId, org.tenantId), eq(memoryNodes.id, oldId)));
    const fresh = await agent().memory_write({ operations: [create("Shrimp allergy")] });
    expect(fresh.results[0]).toMatchObject({ status: "created" });
    const both = await agent().memory_search({ kinds: ["avoid_ingredient"], itemKey: "shrimp", scopes: [own] });
    expect(both.exact.map((n) => n.id).sort()).toEqual([oldId, fresh.results[0]!.nodeId].sort());
    const update = await agent().memory_write({
      operations: [
        {
          op: "update",
          targetId: oldId,
          expectedRevision: 1,
          explicitUserIntent: true,
          node: { content: "Avoids shrimp, always." },
        },
      ],
    });
    expect(update).toMatchObject({
      done: false,
      results: [{ status: "conflict", reason: "slot_occupied", nodeId: fresh.results[0]!.nodeId }],
    });
  });

  it("keeps a decision stored under the old single slot, and moves it to its item when edited", async () => {
    const legacy = await agent().memory_write({ operations: [decision("Apollo uses gRPC", "Services talk gRPC.")] });
    const id = legacy.results[0]!.nodeId!;
    await handle.db
      .update(memoryNodes)
      .set({ key: "decision.durable", itemKey: null })
      .where(and(eq(memoryNodes.tenantId, org.tenantId), eq(memoryNodes.id, id)));
    const next = await agent().memory_write({
      operations: [decision("Apollo uses Kafka", "Events go through Kafka.")],
    });
    expect(next.results[0]).toMatchObject({ status: "created" });
    expect(next.results[0]).not.toHaveProperty("replaced");
    const edited = await agent().memory_write({
      operations: [
        { op: "update", targetId: id, expectedRevision: 1, node: { content: "Services talk gRPC over TLS." } },
      ],
    });
    expect(edited.results[0]).toMatchObject({
      status: "updated",
      key: "decision.durable:apollo_uses_grpc",
      revision: 2,
    });
  });
});
