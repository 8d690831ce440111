import { createTRPCClient, httpBatchLink, httpLink } from "@trpc/client";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryAuditEvents, memoryNodes } from "~/db/schema";
import { appRouter, type AppRouter } from "~/server/api/root";
import { countTokens } from "~/server/text/token-count";
import { handleMcpRequest, originAllowed } from "~/server/tools/mcp";
import { TOOL_NAMES, type ToolName } from "~/server/tools/registry";
import { EVIDENCE_WINDOW_MESSAGES } from "~/server/tools/evidence";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { createKey, createOrg, trpcHttp } from "../support/agents";
import { callerAs } from "../support/trpc";

const peanutWrite = (sourceMessageIds?: string[]) => ({
  operations: [
    {
      op: "create" as const,
      kind: "food_avoidance",
      itemKey: "peanuts",
      explicitUserIntent: true,
      node: {
        title: "Peanut allergy",
        content: "The user is allergic to peanuts.",
        valueJson: { food: "peanuts", reason: "allergy" },
        sourceMessageIds,
      },
    },
  ],
});

describe(`agent tools over tRPC and MCP (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  let org: Awaited<ReturnType<typeof createOrg>>;
  let full: string;

  beforeAll(async () => {
    handle = await openTestDatabase();
    org = await createOrg(handle.db);
    full = (await createKey(handle.db, { tenantId: org.tenantId, ownerUserId: org.memberId })).secret;
  });
  afterAll(async () => handle?.destroy());

  const tools = (secret: string) => callerAs(handle.db, { bearer: secret }).tools;

  it("lists the tools a key may use, with JSON Schemas and OpenAI / Anthropic forms", async () => {
    const listed = await tools(full).list();
    expect(listed.tools.map((t) => t.name)).toEqual([
      "memory_search",
      "memory_get",
      "memory_write",
      "memory_forget",
      "memory_context",
      "message_append",
    ]);
    for (const tool of listed.tools) {
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.inputSchema).not.toHaveProperty("$schema");
      expect(tool.openai).toEqual({
        type: "function",
        function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
      });
      expect(tool.anthropic).toEqual({
        name: tool.name,
        description: tool.description,
        input_schema: tool.inputSchema,
      });
    }
    const write = listed.tools.find((t) => t.name === "memory_write")!;
    expect(write.description).toMatch(/avoid_ingredient \[itemKey\]/);
    expect(write.description).toMatch(/durable_decision \[itemKey\]/);
    expect(write.description).toMatch(/replaced names that card/);
    expect(write.description).toMatch(/expectedRevision/);
    expect(write.description).toMatch(/never say it was saved/);
    expect(JSON.stringify(write.inputSchema)).not.toMatch(/idempotencyKey|"value":/);
    const search = listed.tools.find((t) => t.name === "memory_search")!;
    expect(search.description).toMatch(/all: true/);
    expect(JSON.stringify(listed.turn.inputSchema)).toMatch(/forgetIntent/);

    const readOnly = (
      await createKey(handle.db, { tenantId: org.tenantId, ownerUserId: org.memberId, permissions: ["memory:read"] })
    ).secret;
    expect((await tools(readOnly).list()).tools.map((t) => t.name)).toEqual([
      "memory_search",
      "memory_get",
      "memory_context",
    ]);
    const capture = (
      await createKey(handle.db, { tenantId: org.tenantId, ownerUserId: org.memberId, permissions: ["messages:write"] })
    ).secret;
    expect((await tools(capture).list()).tools.map((t) => t.name)).toEqual(["message_append"]);
  });

  it("runs the stateless turn: append evidence, write citing it, search, context, get, forget", async () => {
    const turn = { sessionId: "chat-1", toolCallId: "call_1" };
    const appended = await tools(full).message_append({
      messages: [{ role: "user", content: "Please remember I'm allergic to peanuts." }],
      turn,
    });
    expect(appended.messageIds).toHaveLength(1);
    expect(appended.messages[0]?.duplicate).toBe(false);

    const written = await tools(full).memory_write({ ...peanutWrite(appended.messageIds), turn });
    expect(written).toMatchObject({ done: true, results: [{ status: "created" }] });
    const cardId = written.results[0]!.nodeId!;
    const [row] = await handle.db.select().from(memoryNodes).where(eq(memoryNodes.id, cardId));
    expect(row?.sourceMessageIds).toEqual(appended.messageIds);
    expect(row?.scopeId).toBe(org.memberId);

    const found = await tools(full).memory_search({ kinds: ["food_avoidance"] });
    expect(found.exact.map((n) => n.id)).toContain(cardId);
    const context = await tools(full).memory_context({ queryText: "can I eat peanuts?", turn });
    expect(context.usedMemoryIds).toContain(cardId);
    expect(context.prompt).toContain("Peanut allergy");
    // What the agent gets over HTTP, already: plain JSON (dates as ISO strings), nothing lost in transit.
    expect(context.recentMessages).toHaveLength(1);
    expect(context).toStrictEqual(JSON.parse(JSON.stringify(context)));
    expect(found).toStrictEqual(JSON.parse(JSON.stringify(found)));

    const got = await tools(full).memory_get({ id: cardId });
    // food_avoidance is a synonym of avoid_ingredient, whose slot the card takes.
    expect(got).toMatchObject({
      found: true,
      node: { id: cardId, revision: 1, key: "cooking.avoid_ingredient:peanuts" },
    });
    // Lookup fields: by the structured value, narrowed by type and domain.
    const card = (await tools(full).memory_get({ id: cardId })).node!;
    expect(
      await tools(full).memory_get({ valueJson: card.valueJson, type: card.type, domain: card.domain }),
    ).toMatchObject({ found: true, node: { id: cardId } });
    expect(await tools(full).memory_get({ valueJson: card.valueJson, type: "task" })).toMatchObject({ found: false });

    const refused = await tools(full).memory_forget({ id: cardId, expectedRevision: 1, reason: "user asked", turn });
    expect(refused).toMatchObject({ done: false, reason: "forget_intent_required", deletedIds: [] });
    // A selector naming another type matches nothing and deletes nothing.
    expect(
      await tools(full).memory_forget({
        selector: { kind: "food_avoidance", type: "task" },
        reason: "user asked",
        turn: { ...turn, forgetIntent: true },
      }),
    ).toMatchObject({ done: false, reason: "no_match" });
    const forgotten = await tools(full).memory_forget({
      id: cardId,
      expectedRevision: 1,
      reason: "user asked",
      turn: { ...turn, forgetIntent: true },
    });
    expect(forgotten).toMatchObject({ done: true, deletedIds: [cardId] });
    expect((await tools(full).memory_search({ kinds: ["food_avoidance"] })).exact).toHaveLength(0);

    const events = await handle.db
      .select()
      .from(memoryAuditEvents)
      .where(and(eq(memoryAuditEvents.tenantId, org.tenantId), eq(memoryAuditEvents.nodeId, cardId)));
    expect(events.map((e) => e.eventType).sort()).toEqual(["create", "delete"]);
    expect(events.every((e) => e.toolCallId === "call_1" && e.actorType === "api_key")).toBe(true);
  });

  it("accepts as evidence only recent messages of the turn's session in this tenant", async () => {
    const mine = await tools(full).message_append({
      sessionId: "chat-2",
      messages: [{ role: "user", content: "I live in Lisbon." }],
    });
    const other = await tools(full).message_append({
      sessionId: "chat-3",
      messages: [{ role: "user", content: "I live in Porto." }],
    });
    const write = (ids: string[], turn?: { sessionId: string }) => ({
      operations: [
        {
          op: "create" as const,
          kind: "home_location",
          explicitUserIntent: true,
          node: { title: "Home", content: "Lives in Lisbon", valueJson: { city: "Lisbon" }, sourceMessageIds: ids },
        },
      ],
      turn,
    });

    await expect(tools(full).memory_write(write(mine.messageIds))).rejects.toMatchObject({
      code: "BAD_REQUEST",
      cause: { reason: "session_required" },
    });
    const wrongSession = await tools(full).memory_write(write(other.messageIds, { sessionId: "chat-2" }));
    expect(wrongSession).toMatchObject({ done: false, results: [{ status: "rejected", reason: "untrusted_source" }] });
    const invented = await tools(full).memory_write(write(["msg_000000000000000000000000"], { sessionId: "chat-2" }));
    expect(invented).toMatchObject({ done: false, results: [{ reason: "untrusted_source" }] });

    // Evidence scrolls out of the window as the session goes on.
    await tools(full).message_append({
      sessionId: "chat-2",
      messages: Array.from({ length: EVIDENCE_WINDOW_MESSAGES }, (_, i) => ({
        role: "assistant" as const,
        content: `filler ${i}`,
      })),
    });
    const stale = await tools(full).memory_write(write(mine.messageIds, { sessionId: "chat-2" }));
    expect(stale).toMatchObject({ done: false, results: [{ reason: "untrusted_source" }] });
    const fresh = await tools(full).message_append({
      sessionId: "chat-2",
      messages: [{ role: "user", content: "Yes, Lisbon." }],
    });
    expect(await tools(full).memory_write(write(fresh.messageIds, { sessionId: "chat-2" }))).toMatchObject({
      done: true,
    });
  });

  it("dispatches tools.call to the same tools, with idempotency and clean errors", async () => {
    const caller = tools(full);
    const viaCall = await caller.call.call(null, { name: "memory_search", arguments: { all: true } });
    const direct = await caller.memory_search({ all: true });
    expect(viaCall).toEqual(direct);

    const args = {
      operations: [
        {
          op: "create",
          kind: "custom_fact",
          itemKey: "bike_model",
          explicitUserIntent: true,
          node: { title: "Bike", content: "Rides a Brompton." },
        },
      ],
    };
    const first = await caller.call.call(null, {
      name: "memory_write",
      arguments: args,
      idempotencyKey: "idem-key-0001",
    });
    const again = await caller.call.call(null, {
      name: "memory_write",
      arguments: args,
      idempotencyKey: "idem-key-0001",
    });
    expect(first).toMatchObject({ done: true });
    expect(again).toMatchObject({ done: true, replayed: true });
    const bikes = await handle.db
      .select()
      .from(memoryNodes)
      .where(and(eq(memoryNodes.tenantId, org.tenantId), eq(memoryNodes.key, "custom.fact:bike_model")));
    expect(bikes).toHaveLength(1);

    await expect(caller.call.call(null, { name: "memory_delete_everything", arguments: {} })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      cause: { reason: "unknown_tool", details: { tools: expect.arrayContaining(["memory_search"]) } },
    });
    await expect(caller.call.call(null, { name: "memory_search", arguments: [1, 2] })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      cause: { reason: "invalid_arguments" },
    });
    await expect(
      caller.call.call(null, { name: "memory_search", arguments: {}, turn: { sessionId: "x", admin: true } as never }),
    ).rejects.toMatchObject({
      code: "BAD_REQUEST",
      cause: { reason: "invalid_turn" },
    });
    await expect(
      caller.call.call(null, { name: "memory_search", arguments: {}, extra: 1 } as never),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(caller.memory_search({ limit: 9999 })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      cause: { reason: "invalid_input" },
    });
    await expect(caller.memory_get({ id: "mem_doesnotexist" })).rejects.toMatchObject({
      code: "NOT_FOUND",
      cause: { reason: "not_found" },
    });
  });

  it("refuses keys a tool does not take, naming them and what it takes, instead of dropping them", async () => {
    const caller = tools(full);
    const call = (name: ToolName, args: Record<string, unknown>, turn?: Record<string, unknown>) =>
      caller.call.call(null, { name, arguments: args, turn });
    // Every tool, from the registry's own list: a well-formed call plus one stray key is refused by name.
    const wellFormed: Record<ToolName, Record<string, unknown>> = {
      memory_search: { queryText: "bike" },
      memory_get: { kind: "custom_fact", itemKey: "bike_model" },
      memory_write: {
        operations: [
          {
            op: "create",
            kind: "custom_fact",
            itemKey: "stray",
            explicitUserIntent: true,
            node: { title: "Stray", content: "Never written." },
          },
        ],
      },
      memory_forget: { selector: { kind: "custom_fact", itemKey: "bike_model" }, reason: "user asked" },
      memory_context: { queryText: "bike" },
      message_append: { sessionId: "chat-strict", messages: [{ role: "user", content: "hi" }] },
    };
    for (const name of TOOL_NAMES) {
      await expect(
        call(name, { ...wellFormed[name], strayKey: 1 }, { forgetIntent: true }),
        name,
      ).rejects.toMatchObject({
        code: "BAD_REQUEST",
        cause: { reason: "invalid_input" },
        message: expect.stringMatching(new RegExp(`${name} does not take "strayKey"`)),
      });
    }

    // Dropped, these changed what the call meant without a word. A search for "query" searched for nothing
    // and answered that no memory matched; now the agent is told the key to use.
    await expect(caller.memory_search({ query: "bike" } as never)).rejects.toThrow(
      /memory_search does not take "query"\. It takes all, queryText, kinds/,
    );
    await expect(caller.memory_context({ query: "bike" } as never)).rejects.toThrow(
      /memory_context does not take "query"\. It takes queryText, sessionId/,
    );
    // One operation without the list around it: told the shape to send, before the missing list itself.
    await expect(
      call("memory_write", { op: "create", kind: "custom_fact", itemKey: "x", node: { title: "X", content: "Y" } }),
    ).rejects.toThrow(
      /^memory_write input is invalid: input: memory_write does not take "op", "kind", "itemKey", "node" at the top level\. It takes operations, idempotencyKey: put each operation .* in the operations list, even a single one/,
    );
    await expect(
      call("message_append", { sessionId: "chat-strict", messages: [{ role: "user", content: "hi", id: "m1" }] }),
    ).rejects.toThrow(/messages\.0: a message does not take "id"\. It takes role, content, clientMessageId/);

    // Forgetting: a misspelt narrowing key would have widened the deletion. `scopes` for `scope` beside
    // `all: true` cleared every scope; `tag` in a selector was dropped and the selector matched more.
    const cardsNow = async () =>
      (
        await handle.db
          .select({ id: memoryNodes.id })
          .from(memoryNodes)
          .where(and(eq(memoryNodes.tenantId, org.tenantId), eq(memoryNodes.status, "active")))
      ).length;
    const before = await cardsNow();
    expect(before).toBeGreaterThan(1);
    await expect(
      call(
        "memory_forget",
        { all: true, scopes: ["session:chat-strict"], reason: "clear this chat" },
        { forgetIntent: true, forgetAllIntent: true },
      ),
    ).rejects.toThrow(
      /memory_forget does not take "scopes"\. It takes id, expectedRevision, targets, selector, all, scope,/,
    );
    await expect(
      call(
        "memory_forget",
        { selector: { kind: "custom_fact", tag: "bike" }, reason: "user asked" },
        { forgetIntent: true },
      ),
    ).rejects.toThrow(/selector: a selector does not take "tag"\. It takes scope, domain, kind/);
    await expect(
      call("memory_forget", { targets: [{ id: "mem_x", revision: 1 }], reason: "user asked" }, { forgetIntent: true }),
    ).rejects.toThrow(/targets\.0: a target does not take "revision"/);
    // `kinds` (memory_search's name) for `kind`: told once, not also that the selector is empty.
    await expect(
      call("memory_forget", { selector: { kinds: ["custom_fact"] }, reason: "user asked" }, { forgetIntent: true }),
    ).rejects.toThrow(
      /^memory_forget input is invalid: selector: a selector does not take "kinds"\. It takes [^;]*\.$/,
    );
    expect(await cardsNow()).toBe(before);
  });

  it("says a kind does not exist, and which one was meant, instead of only that nothing matched", async () => {
    const caller = tools(full);
    const unknown =
      /Unknown kind "food_avoidances" \(did you mean "food_avoidance"\?\): no current card has it\. Kinds: .*avoid_ingredient/;
    const search = await caller.memory_search({ kinds: ["food_avoidances"] });
    expect(search.exact).toEqual([]);
    expect(search.message).toMatch(new RegExp(`^${unknown.source}`));
    expect(search.warnings?.[0]).toMatch(unknown);
    // Known names, synonyms included, add nothing; a name far from every kind gets no guess.
    expect((await caller.memory_search({ kinds: ["food_avoidance", "custom_fact"] })).warnings).toBeUndefined();
    expect((await caller.memory_search({ kinds: ["zzzz_qqqq"] })).message).toMatch(
      /^Unknown kind "zzzz_qqqq": no current card/,
    );

    expect((await caller.memory_get({ kind: "food_avoidances", itemKey: "peanuts" })).message).toMatch(unknown);
    const forget = await caller.call.call(null, {
      name: "memory_forget",
      arguments: { selector: { kind: "food_avoidances", itemKey: "peanuts" }, reason: "user asked" },
      turn: { forgetIntent: true },
    });
    expect(forget).toMatchObject({ done: false, reason: "no_match", message: expect.stringMatching(unknown) });
    const write = await caller.memory_write({
      operations: [
        {
          op: "create",
          kind: "food_avoidances",
          itemKey: "peanuts",
          explicitUserIntent: true,
          node: { title: "Peanuts", content: "Avoids peanuts." },
        },
      ],
    });
    expect(write).toMatchObject({
      done: false,
      results: [
        {
          reason: "unknown_kind",
          message: expect.stringMatching(
            /^Unknown kind "food_avoidances" \(did you mean "food_avoidance"\?\)\. Use one of/,
          ),
        },
      ],
    });
  });

  it("never calls memory empty while it hides a card, and says at write time that a card will not be recalled", async () => {
    const own = await createOrg(handle.db);
    const caller = tools((await createKey(handle.db, { tenantId: own.tenantId, ownerUserId: own.memberId })).secret);
    const umbrella = {
      op: "create" as const,
      kind: "custom_fact",
      itemKey: "umbrella",
      explicitUserIntent: true,
      node: { title: "Umbrella", content: "Keeps a red umbrella in the car.", confidence: 0.2 },
    };
    const written = await caller.memory_write({ operations: [umbrella] });
    expect(written).toMatchObject({
      done: true,
      results: [
        {
          status: "created",
          message: expect.stringMatching(
            /Its confidence 0\.2 is under 0\.35: memory_search and memory_context leave it out/,
          ),
        },
      ],
    });
    const id = written.results[0]!.nodeId!;

    // The only card is under the threshold: the enumeration used to answer "memory is empty".
    const listed = await caller.memory_search({ all: true });
    expect(listed).toMatchObject({ exact: [], enumerated: true, omitted: [{ nodeId: id, reason: "low_confidence" }] });
    expect(listed.message).not.toMatch(/empty/);
    expect(listed.message).toMatch(
      /none to show, but 1 current memory matched but was left out \(listed in omitted: low_confidence or conflict_lost\)/,
    );
    const asked = await caller.memory_search({ queryText: "red umbrella" });
    expect(asked.message).toMatch(/^Nothing to show for this query: 1 current memory matched but was left out/);
    // Raised above the threshold, it is recalled, and the write says nothing more.
    const raised = await caller.memory_write({
      operations: [
        { op: "update", targetId: id, expectedRevision: 1, explicitUserIntent: true, node: { confidence: 0.9 } },
      ],
    });
    expect(raised.results[0]?.message).not.toMatch(/under 0\.35/);
    expect((await caller.memory_search({ all: true })).exact.map((n) => n.key)).toEqual(["custom.fact:umbrella"]);
    expect((await caller.memory_search({ all: true, kinds: ["profile_name"] })).message).toMatch(/there are none/);
  });

  it("leads an id from before an update to the card current now, in memory_get and memory_forget", async () => {
    const turn = { sessionId: "chat-stale" };
    const created = await tools(full).memory_write({
      turn,
      operations: [
        {
          op: "create",
          kind: "custom_fact",
          itemKey: "bike",
          explicitUserIntent: true,
          node: { title: "Bike", content: "Rides a red bike.", valueJson: "red bike" },
        },
      ],
    });
    const first = created.results[0]!.nodeId!;
    const updated = await tools(full).memory_write({
      turn,
      operations: [
        {
          op: "update",
          targetId: first,
          expectedRevision: 1,
          explicitUserIntent: true,
          node: { content: "Rides a blue bike.", valueJson: "blue bike" },
        },
      ],
    });
    const current = updated.results[0]!.nodeId!;
    expect(current).not.toBe(first);

    const stale = await tools(full).memory_get({ id: first, turn });
    expect(stale).toMatchObject({
      found: true,
      node: { id: first, status: "superseded" },
      currentId: current,
      currentRevision: 2,
    });
    expect(stale.message).toContain(`send targetId "${current}" with expectedRevision 2`);
    const forget = await tools(full).memory_forget({
      id: first,
      expectedRevision: 2,
      reason: "user asked",
      turn: { ...turn, forgetIntent: true },
    });
    expect(forget).toMatchObject({
      done: false,
      reason: "conflict",
      conflicts: [{ id: first, currentId: current, currentIdRevision: 2 }],
    });
    expect(forget.message).toContain(`${first} was replaced by ${current} (revision 2)`);
    expect(
      await tools(full).memory_forget({
        id: current,
        expectedRevision: 2,
        reason: "user asked",
        turn: { ...turn, forgetIntent: true },
      }),
    ).toMatchObject({ done: true });
  });

  it("memory_get falls back to a limit-2 exact lookup and reports ambiguity", async () => {
    const caller = tools(full);
    const one = await caller.memory_get({ kind: "custom_fact", itemKey: "bike_model" });
    expect(one).toMatchObject({ found: true, node: { key: "custom.fact:bike_model" } });
    await caller.memory_write({
      operations: [
        {
          op: "create",
          kind: "custom_fact",
          itemKey: "wifi_name",
          explicitUserIntent: true,
          node: { title: "Wifi", content: "Home wifi is called Tardis." },
        },
      ],
    });
    const two = await caller.memory_get({ kind: "custom_fact" });
    expect(two.found).toBe(false);
    expect(two.candidates).toHaveLength(2);
    expect(await caller.memory_get({ kind: "profile_name" })).toMatchObject({ found: false });
    await expect(caller.memory_get({})).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });

  it("reads bare scope types (scope: 'user') as the turn's own scopes", async () => {
    const turn = { sessionId: "chat-bare", forgetIntent: true };
    const written = await tools(full).memory_write({
      operations: [
        {
          op: "create",
          kind: "custom_fact",
          itemKey: "bike",
          scope: "session",
          explicitUserIntent: true,
          node: { title: "Velocipede", content: "Rides a red velocipede today.", valueJson: "red" },
        },
      ],
      turn,
    });
    expect(written.results[0]).toMatchObject({ status: "created", scope: "session:chat-bare" });
    const inUser = await tools(full).memory_search({ queryText: "velocipede", scopes: ["user"], turn });
    expect(inUser.relevant).toEqual([]);
    const inSession = await tools(full).memory_search({ queryText: "velocipede", scopes: ["session"], turn });
    expect(inSession.relevant.map((n) => n.id)).toEqual([written.results[0]!.nodeId]);
    expect(
      await tools(full).memory_get({ kind: "custom_fact", itemKey: "bike", scope: "session", turn }),
    ).toMatchObject({ found: true });
    const forgot = await tools(full).memory_forget({
      selector: { scope: "session", kind: "custom_fact", itemKey: "bike" },
      reason: "asked",
      turn,
    });
    expect(forgot).toMatchObject({ done: true, deletedIds: [written.results[0]!.nodeId] });
  });

  it("keeps the turn's session and scopes to what the key may use", async () => {
    const narrow = (
      await createKey(handle.db, {
        tenantId: org.tenantId,
        ownerUserId: org.memberId,
        scopes: [`user:${org.memberId}`, "session:only-this"],
      })
    ).secret;
    await expect(
      tools(narrow).message_append({ sessionId: "chat-1", messages: [{ role: "user", content: "hi" }] }),
    ).rejects.toMatchObject({
      code: "FORBIDDEN",
      cause: { reason: "scope_not_writable" },
    });
    await expect(tools(narrow).memory_context({ sessionId: "chat-1" })).rejects.toMatchObject({
      code: "FORBIDDEN",
      cause: { reason: "scope_not_readable" },
    });
    expect(
      await tools(narrow).message_append({ sessionId: "only-this", messages: [{ role: "user", content: "hi" }] }),
    ).toMatchObject({ sessionId: "only-this" });
    // A workspace fact for a turn whose workspace the key may not use: say that, not "send a scope".
    const workspaceWrite = tools(full).memory_write({
      operations: [
        {
          op: "create",
          kind: "project_context",
          itemKey: "deploy",
          explicitUserIntent: true,
          node: { title: "Deploys", content: "We deploy on Fridays.", valueJson: "friday" },
        },
      ],
      turn: { sessionId: "chat-1", workspaceId: "w-not-granted" },
    });
    await expect(workspaceWrite).rejects.toMatchObject({
      code: "FORBIDDEN",
      cause: {
        reason: "scope_not_writable",
        message: expect.stringContaining("may not write workspace:w-not-granted"),
      },
    });
  });

  it("answers plain-JSON HTTP calls with tRPC codes, a reason, and no stack traces", async () => {
    const ok = await trpcHttp(handle.db, "tools.memory_search", { bearer: full, body: { all: true } });
    expect(ok.status).toBe(200);
    expect(ok.json.result?.data).toMatchObject({ enumerated: true });

    const list = await trpcHttp(handle.db, "tools.list", { bearer: full });
    expect(list.status).toBe(200);

    const unknown = await trpcHttp(handle.db, "tools.call", { bearer: full, body: { name: "nope", arguments: {} } });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error?.data).toMatchObject({ code: "BAD_REQUEST", reason: "unknown_tool" });
    expect(unknown.json.error?.data.stack).toBeUndefined();

    const malformed = await trpcHttp(handle.db, "tools.call", {
      bearer: full,
      body: '{"name": "memory_search", "arguments": ',
    });
    expect(malformed.status).toBe(400);
    expect(malformed.text).not.toMatch(/at .*\.ts:\d+|node_modules/);
    expect(malformed.json.error).toMatchObject({
      message: expect.stringMatching(/Send one JSON object with the header Content-Type: application\/json/),
      data: { reason: "invalid_body" },
    });

    const noKey = await trpcHttp(handle.db, "tools.list");
    expect(noKey.status).toBe(401);
    expect(noKey.json.error?.data).toMatchObject({ reason: "missing_api_key" });

    // A misspelt tool, or the wrong method: what the tools are and how to call them.
    const misspelt = await trpcHttp(handle.db, "tools.memory_serch", { bearer: full, body: { queryText: "x" } });
    expect(misspelt.status).toBe(404);
    expect(misspelt.json.error).toMatchObject({
      message: expect.stringContaining('There is no tool "memory_serch". The tools are memory_search'),
      data: { reason: "unknown_tool" },
    });
    const postedList = await trpcHttp(handle.db, "tools.list", { bearer: full, method: "POST", body: {} });
    expect(postedList.status).toBe(405);
    expect(postedList.json.error?.data).toMatchObject({ reason: "wrong_method" });
  });

  it("works from the typed tRPC client an agent would use (tools.call included)", async () => {
    // The README's agent loop: createTRPCClient<AppRouter> with a bearer header, here over the fetch adapter.
    const fetchThroughAdapter = async (url: URL | RequestInfo, init?: RequestInit) =>
      fetchRequestHandler({
        endpoint: "/api/trpc",
        req: new Request(url, init),
        router: appRouter,
        createContext: ({ req }) => ({ db: handle.db, headers: req.headers, getSession: async () => null }),
      });
    for (const link of [httpLink, httpBatchLink]) {
      const client = createTRPCClient<AppRouter>({
        links: [
          link({
            url: "http://localhost/api/trpc",
            headers: { authorization: `Bearer ${full}` },
            fetch: fetchThroughAdapter,
          }),
        ],
      });
      const { tools: listed } = await client.tools.list.query();
      expect(listed.map((t) => t.name)).toContain("memory_write");
      const result = await client.tools.call.mutate({
        name: "memory_search",
        arguments: { kinds: ["custom_fact"] },
        turn: { sessionId: "typed" },
      });
      expect(result).toMatchObject({ enumerated: false });
      const written = await client.tools.memory_write.mutate({
        operations: [
          {
            op: "create",
            kind: "custom_fact",
            itemKey: "typed_client",
            explicitUserIntent: true,
            node: { title: "Typed", content: "Written by the typed client." },
          },
        ],
      });
      expect(written.done).toBe(true);
    }
  });

  describe("MCP", () => {
    const mcp = async (
      secret: string | null,
      body: unknown,
      init: { method?: string; headers?: Record<string, string> } = {},
    ) => {
      const headers = new Headers({
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...init.headers,
      });
      if (secret) headers.set("authorization", `Bearer ${secret}`);
      const method = init.method ?? "POST";
      const req = new Request("http://localhost/api/mcp", {
        method,
        headers,
        body: method === "POST" ? (typeof body === "string" ? body : JSON.stringify(body)) : undefined,
      });
      const res = await handleMcpRequest(req, { db: handle.db });
      const text = await res.text();
      return {
        status: res.status,
        headers: res.headers,
        body: text
          ? (JSON.parse(text) as {
              result?: Record<string, unknown>;
              error?: { code: number; message: string; data?: Record<string, unknown> };
            })
          : null,
      };
    };
    const rpc = (id: number, method: string, params: Record<string, unknown> = {}) => ({
      jsonrpc: "2.0",
      id,
      method,
      params,
    });

    it("initializes, lists the key's tools and calls them", async () => {
      const init = await mcp(
        full,
        rpc(1, "initialize", {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "test", version: "1" },
        }),
      );
      expect(init.status).toBe(200);
      expect(init.body?.result).toMatchObject({ serverInfo: { name: "agent-memory" }, capabilities: { tools: {} } });

      const listed = await mcp(full, rpc(2, "tools/list"));
      const names = (listed.body?.result?.tools as { name: string; inputSchema: { type: string } }[]).map(
        (t) => t.name,
      );
      expect(names).toEqual([
        "memory_search",
        "memory_get",
        "memory_write",
        "memory_forget",
        "memory_context",
        "message_append",
      ]);

      const readOnly = (
        await createKey(handle.db, { tenantId: org.tenantId, ownerUserId: org.memberId, permissions: ["memory:read"] })
      ).secret;
      const readOnlyNames = ((await mcp(readOnly, rpc(3, "tools/list"))).body?.result?.tools as { name: string }[]).map(
        (t) => t.name,
      );
      expect(readOnlyNames).toEqual(["memory_search", "memory_get", "memory_context"]);
      const denied = await mcp(readOnly, rpc(4, "tools/call", { name: "memory_write", arguments: peanutWrite() }));
      expect(denied.body?.result).toMatchObject({ isError: true });
      expect(JSON.stringify(denied.body?.result)).toMatch(/missing_permission.*memory:write/);

      const appended = await mcp(
        full,
        rpc(5, "tools/call", {
          name: "message_append",
          arguments: { messages: [{ role: "user", content: "Remember: peanuts make me sick." }] },
          _meta: { turn: { sessionId: "mcp-1" } },
        }),
      );
      const ids = (appended.body?.result?.structuredContent as { messageIds: string[] }).messageIds;
      const written = await mcp(
        full,
        rpc(6, "tools/call", {
          name: "memory_write",
          arguments: peanutWrite(ids),
          _meta: { turn: { sessionId: "mcp-1" } },
        }),
      );
      expect(written.body?.result).toMatchObject({ isError: false, structuredContent: { done: true } });
      const cardId = (written.body?.result?.structuredContent as { results: { nodeId: string }[] }).results[0]!.nodeId;

      // memory_context: the model reads the budgeted block, not every recalled card as JSON.
      const recalled = await mcp(
        full,
        rpc(61, "tools/call", {
          name: "memory_context",
          arguments: { queryText: "what makes me sick?", tokenBudget: 300 },
          _meta: { turn: { sessionId: "mcp-1" } },
        }),
      );
      const block = (recalled.body?.result?.content as { type: string; text: string }[])[0]!.text;
      expect(block).toMatch(
        /^<memory>\n[\s\S]*<\/memory>\n\[memory_context: \d+ memories recalled; \d+ left out; \d+ of 300 tokens\./,
      );
      expect(countTokens(block)).toBeLessThan(300 + 60);
      expect(block).not.toContain('"lineageId"');
      expect(recalled.body?.result?.structuredContent).toMatchObject({
        prompt: block.slice(0, block.indexOf("\n[memory_context")),
        diagnostics: { tokenBudget: 300 },
      });

      const failed = await mcp(
        full,
        rpc(7, "tools/call", {
          name: "memory_forget",
          arguments: { id: cardId, expectedRevision: 1, reason: "asked" },
        }),
      );
      expect(failed.body?.result).toMatchObject({
        isError: true,
        structuredContent: { done: false, reason: "forget_intent_required" },
      });
      const forgotten = await mcp(
        full,
        rpc(8, "tools/call", {
          name: "memory_forget",
          arguments: { id: cardId, expectedRevision: 1, reason: "asked" },
          _meta: { turn: { forgetIntent: true } },
        }),
      );
      expect(forgotten.body?.result).toMatchObject({
        isError: false,
        structuredContent: { done: true, deletedIds: [cardId] },
      });

      const unknown = await mcp(full, rpc(9, "tools/call", { name: "drop_tables", arguments: {} }));
      expect(unknown.body?.error).toMatchObject({ code: -32602 });
    });

    it("refuses missing keys, bad bodies and other methods cleanly", async () => {
      const missing = await mcp(null, rpc(1, "tools/list"));
      expect(missing.status).toBe(401);
      expect(missing.headers.get("www-authenticate")).toMatch(/Bearer/);
      const garbage = await mcp("mem_live_garbage", rpc(1, "tools/list"));
      expect(garbage).toMatchObject({ status: 401, body: { error: { data: { reason: "unknown_api_key" } } } });
      const malformed = await mcp(full, "{not json");
      expect(malformed).toMatchObject({ status: 400, body: { error: { code: -32700 } } });
      const huge = await mcp(
        full,
        rpc(1, "tools/call", { name: "memory_search", arguments: { queryText: "x".repeat(300 * 1024) } }),
      );
      expect(huge).toMatchObject({ status: 413, body: { error: { data: { reason: "payload_too_large" } } } });
      const deep = `${"[".repeat(5000)}1${"]".repeat(5000)}`;
      const nested = await mcp(
        full,
        `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory_search","arguments":{"valueJson":${deep}}}}`,
      );
      expect(nested).toMatchObject({ status: 400, body: { error: { data: { reason: "too_deep" } } } });
      const get = await mcp(full, null, { method: "GET" });
      expect(get.status).toBe(405);
      // A batch would count as one call against the key's rate limit: one message per POST.
      const batch = await mcp(
        full,
        Array.from({ length: 100 }, (_, i) =>
          rpc(i, "tools/call", { name: "memory_search", arguments: { queryText: "peanuts" } }),
        ),
      );
      expect(batch).toMatchObject({
        status: 400,
        body: { error: { code: -32600, data: { reason: "batch_not_supported" } } },
      });
    });

    it("answers malformed tools/call params with -32602 and the request's id, and declares no list changes it cannot send", async () => {
      const init = await mcp(
        full,
        rpc(1, "initialize", {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "test", version: "1" },
        }),
      );
      expect(init.body?.result?.capabilities).toEqual(expect.objectContaining({ tools: { listChanged: false } }));
      for (const params of [
        { name: "memory_search", arguments: "x" },
        { arguments: {} },
        { name: "memory_search", arguments: [1] },
      ]) {
        const answer = await mcp(full, rpc(77, "tools/call", params));
        expect(answer.body).toMatchObject({
          id: 77,
          error: { code: -32602, message: expect.stringMatching(/^Invalid params: /) },
        });
        expect(answer.body?.error?.message).not.toMatch(/expected|\[/);
      }
      const tooDeep = await mcp(
        full,
        `{"jsonrpc":"2.0","id":"deep-1","method":"tools/call","params":{"name":"memory_search","arguments":{"valueJson":${"[".repeat(40)}1${"]".repeat(40)}}}}`,
      );
      expect(tooDeep.body).toMatchObject({ id: "deep-1", error: { data: { reason: "too_deep" } } });
    });

    it("lets a forget-only key forget by id what its selectors reach", async () => {
      const written = await mcp(
        full,
        rpc(1, "tools/call", {
          name: "memory_write",
          arguments: peanutWrite(),
          _meta: { turn: { sessionId: "mcp-forget-only" } },
        }),
      );
      const cardId = (written.body?.result?.structuredContent as { results: { nodeId: string }[] }).results[0]!.nodeId;
      const forgetOnly = (
        await createKey(handle.db, {
          tenantId: org.tenantId,
          ownerUserId: org.memberId,
          permissions: ["memory:forget"],
        })
      ).secret;
      const forgot = await mcp(
        forgetOnly,
        rpc(2, "tools/call", {
          name: "memory_forget",
          arguments: { id: cardId, expectedRevision: 1, reason: "asked" },
          _meta: { turn: { forgetIntent: true } },
        }),
      );
      expect(forgot.body?.result).toMatchObject({
        isError: false,
        structuredContent: { done: true, deletedIds: [cardId] },
      });
    });

    it("refuses a browser page of another origin (DNS rebinding), and serves loopback, its own and listed origins", async () => {
      const evil = await mcp(full, rpc(1, "tools/list"), {
        headers: { origin: "http://evil.example", host: "evil.example" },
      });
      expect(evil).toMatchObject({ status: 403, body: { error: { data: { reason: "origin_not_allowed" } } } });
      expect((await mcp(full, rpc(2, "tools/list"), { headers: { origin: "http://localhost:3000" } })).status).toBe(
        200,
      );
      expect((await mcp(full, rpc(3, "tools/list"))).status).toBe(200);
      expect(originAllowed("https://memory.example.com", [], "https://memory.example.com")).toBe(true);
      expect(originAllowed("https://app.example.com", ["https://app.example.com"], undefined)).toBe(true);
      expect(
        originAllowed("https://other.example.com", ["https://app.example.com"], "https://memory.example.com"),
      ).toBe(false);
      expect(originAllowed("null", [], undefined)).toBe(false);
    });
  });
});
