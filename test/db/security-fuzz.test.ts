import { and, asc, eq, inArray } from "drizzle-orm";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryAuditEvents, memoryNodes } from "~/db/schema";
import type { MemoryWriteResult } from "~/server/memory/write/schema";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { createKey, createOrg } from "../support/agents";
import { callerAs } from "../support/trpc";

/**
 * Random and hostile tool calls: whatever arrives, the endpoint answers with a client error or a
 * result — never INTERNAL_SERVER_ERROR — a failed call leaves memory exactly as it was, and the
 * audit log has one create/update/supersede/expire event per applied write result.
 */

const KINDS = [
  "custom_fact",
  "food_avoidance",
  "profile_name",
  "home_location",
  "project_context",
  "temporary_state",
  "hard_constraint",
  "not_a_kind",
  "",
];
const ITEMS = ["bike", "wifi", "peanuts", "香菜", "a b", "", "x".repeat(250)];
const CHANGED = new Set(["created", "updated", "superseded", "expired"]);

const hostileString = fc.oneof(
  fc.string(),
  fc.constantFrom(
    "",
    " ",
    "\u0000",
    "\ud800",
    "'; drop table memory_nodes; --",
    "__proto__",
    "constructor",
    "x".repeat(5000),
    "記住我不吃香菜",
    "mem_",
  ),
);
const jsonish = fc.oneof(fc.jsonValue({ maxDepth: 4 }), hostileString, fc.constant(undefined));

describe(`tools.call under random and hostile input (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  let tenantId: string;
  let secret: string;
  const knownIds: string[] = [];
  const knownMessages: string[] = [];

  beforeAll(async () => {
    handle = await openTestDatabase();
    const org = await createOrg(handle.db);
    tenantId = org.tenantId;
    secret = (await createKey(handle.db, { tenantId, ownerUserId: org.memberId, rateLimitPerMinute: 100_000 })).secret;
    const tools = callerAs(handle.db, { bearer: secret }).tools;
    const seeded = await tools.memory_write({
      operations: ["seed_a", "seed_b", "seed_c"].map((itemKey) => ({
        op: "create" as const,
        kind: "custom_fact",
        itemKey,
        explicitUserIntent: true,
        node: { title: itemKey, content: `seeded ${itemKey}` },
      })),
    });
    knownIds.push(...seeded.results.map((r) => r.nodeId!));
    knownMessages.push(
      ...(await tools.message_append({ sessionId: "fuzz", messages: [{ role: "user", content: "seed evidence" }] }))
        .messageIds,
    );
  });
  afterAll(async () => handle?.destroy());

  const w = <T>(weight: number, arbitrary: fc.Arbitrary<T>) => ({ weight, arbitrary });
  const idArb = fc.oneof(
    w(
      4,
      fc.integer({ min: 0, max: 2 }).map((i) => knownIds[i]!),
    ),
    w(1, fc.constantFrom("mem_0000000000000000000x", "")),
    w(1, hostileString),
  );
  const goodText = fc.constantFrom("Some content.", "内容：不吃香菜", "Rides a Brompton", "Works nights");
  const cardArb = fc.oneof(
    w(
      8,
      fc.record({ title: fc.constantFrom("Title", "标题"), content: goodText }, { requiredKeys: ["title", "content"] }),
    ),
    w(
      2,
      fc.record(
        {
          title: fc.oneof(fc.constantFrom("Title", "标题"), hostileString),
          content: fc.oneof(goodText, hostileString),
          valueJson: jsonish,
          tags: fc.array(hostileString, { maxLength: 3 }),
          sourceMessageIds: fc.oneof(
            fc.constant(undefined),
            fc.constant(knownMessages),
            fc.array(hostileString, { maxLength: 2 }),
          ),
          expiresAt: fc.oneof(
            fc.constant(undefined),
            fc.constant(null),
            fc.constantFrom("2000-01-01T00:00:00Z", "2999-01-01T00:00:00Z", "not a date"),
          ),
          confidence: fc.oneof(fc.constant(undefined), fc.double()),
        },
        { requiredKeys: [] },
      ),
    ),
    w(1, jsonish),
  );
  const goodCreate = fc.record({
    op: fc.constant("create"),
    kind: fc.constantFrom("custom_fact", "project_context", "temporary_state"),
    itemKey: fc.constantFrom("bike", "wifi", "seed_a", "香菜"),
    explicitUserIntent: fc.constant(true),
    node: cardArb,
  });
  const goodChange = fc.record({
    op: fc.constantFrom("update", "supersede", "expire"),
    targetId: idArb,
    expectedRevision: fc.integer({ min: 1, max: 3 }),
    explicitUserIntent: fc.constant(true),
    node: cardArb,
  });
  const wildOp = fc.record(
    {
      op: fc.constantFrom("create", "update", "supersede", "expire", "delete", ""),
      kind: fc.constantFrom(...KINDS),
      itemKey: fc.constantFrom(...ITEMS),
      scope: fc.oneof(
        fc.constant(undefined),
        fc.constantFrom("global", "user:other", "session:fuzz", "workspace:w", "context:a/b", "session:*", "nonsense"),
      ),
      targetId: idArb,
      expectedRevision: fc.oneof(fc.integer({ min: -1, max: 4 }), fc.constant(undefined)),
      explicitUserIntent: fc.oneof(fc.boolean(), fc.constant(undefined)),
      node: cardArb,
    },
    { requiredKeys: ["op"] },
  );
  const opArb = fc.oneof(w(4, goodCreate), w(3, goodChange), w(1, wildOp));
  const writeArgs = fc.oneof(
    w(
      6,
      fc.record(
        {
          operations: fc.array(opArb, { minLength: 1, maxLength: 2 }),
          idempotencyKey: fc.oneof(
            w(6, fc.constant(undefined)),
            w(1, fc.constantFrom("fuzz-idem-1", "fuzz-idem-2", "short")),
          ),
        },
        { requiredKeys: ["operations"] },
      ),
    ),
    w(1, fc.dictionary(fc.string({ maxLength: 8 }), jsonish, { maxKeys: 3 })),
  );
  const forgetArgs = fc.oneof(
    w(
      3,
      fc.record({
        id: idArb,
        expectedRevision: fc.integer({ min: 1, max: 3 }),
        reason: fc.constant("user asked"),
        mode: fc.constantFrom("soft", "hard"),
      }),
    ),
    w(
      1,
      fc.record({
        selector: fc.record({ kind: fc.constantFrom(...KINDS), itemKey: fc.constantFrom(...ITEMS) }),
        reason: fc.constant("user asked"),
      }),
    ),
    w(
      2,
      fc.record(
        {
          id: idArb,
          expectedRevision: fc.integer({ min: -1, max: 3 }),
          targets: fc.array(fc.record({ id: idArb, expectedRevision: fc.integer({ min: 0, max: 3 }) }), {
            maxLength: 3,
          }),
          selector: fc.oneof(fc.record({ kind: fc.constantFrom(...KINDS) }, { requiredKeys: [] }), jsonish),
          all: fc.boolean(),
          mode: fc.constantFrom("soft", "hard", "medium"),
          eraseEvidence: fc.boolean(),
          reason: hostileString,
        },
        { requiredKeys: [] },
      ),
    ),
  );
  const otherArgs = fc.oneof(
    fc.record(
      {
        queryText: hostileString,
        kinds: fc.array(fc.constantFrom(...KINDS), { maxLength: 3 }),
        all: fc.boolean(),
        limit: fc.integer({ min: -5, max: 80 }),
        valueJson: jsonish,
      },
      { requiredKeys: [] },
    ),
    fc.record({ id: idArb, kind: fc.constantFrom(...KINDS), itemKey: fc.constantFrom(...ITEMS) }, { requiredKeys: [] }),
    fc.record(
      {
        messages: fc.array(fc.record({ role: fc.constantFrom("user", "assistant", "robot"), content: hostileString }), {
          maxLength: 3,
        }),
        sessionId: fc.oneof(fc.constant(undefined), hostileString),
      },
      { requiredKeys: [] },
    ),
    fc.anything({ maxDepth: 3 }),
  );
  const turnArb = fc.oneof(
    w(2, fc.constant(undefined)),
    w(
      4,
      fc.record(
        {
          sessionId: fc.constant("fuzz"),
          forgetIntent: fc.boolean(),
          forgetAllIntent: fc.boolean(),
          toolCallId: fc.constant("fuzz-call"),
        },
        { requiredKeys: [] },
      ),
    ),
    w(1, fc.record({ sessionId: hostileString, userId: hostileString, forgetIntent: jsonish }, { requiredKeys: [] })),
    w(1, jsonish),
  );
  const callArb = fc.oneof(
    w(5, fc.record({ name: fc.constant("memory_write"), arguments: writeArgs, turn: turnArb })),
    w(2, fc.record({ name: fc.constant("memory_forget"), arguments: forgetArgs, turn: turnArb })),
    w(
      2,
      fc.record({
        name: fc.constantFrom(
          "memory_search",
          "memory_get",
          "memory_context",
          "message_append",
          "memory_nuke",
          "",
          "__proto__",
        ),
        arguments: otherArgs,
        turn: turnArb,
      }),
    ),
    w(
      1,
      fc.record({
        name: hostileString,
        arguments: jsonish,
        turn: jsonish,
        idempotencyKey: fc.oneof(fc.constant(undefined), hostileString),
      }),
    ),
  );

  const snapshot = async () =>
    JSON.stringify(
      await handle.db
        .select({
          id: memoryNodes.id,
          status: memoryNodes.status,
          revision: memoryNodes.revision,
          content: memoryNodes.content,
        })
        .from(memoryNodes)
        .where(eq(memoryNodes.tenantId, tenantId))
        .orderBy(asc(memoryNodes.id)),
    );

  type FuzzCall = typeof callArb extends fc.Arbitrary<infer T> ? T : never;

  it("never fails internally, never half-writes, and audits exactly the applied writes", async () => {
    const tools = callerAs(handle.db, { bearer: secret }).tools;
    let applied = 0;
    const outcomes = { ok: 0, refused: 0, clientErrors: 0 };
    await fc.assert(
      fc.asyncProperty(callArb, async (call) => {
        const before = await snapshot();
        let result: unknown;
        try {
          result = await tools.call.call(null, call as never);
        } catch (error) {
          const e = error as { code?: string; message?: string };
          expect(e.code, `${e.code}: ${e.message}`).not.toBe("INTERNAL_SERVER_ERROR");
          expect(e.code).toMatch(/^(BAD_REQUEST|FORBIDDEN|NOT_FOUND|CONFLICT|PAYLOAD_TOO_LARGE)$/);
          expect(await snapshot()).toBe(before);
          outcomes.clientErrors++;
          return;
        }
        const done = (result as { done?: boolean }).done;
        if (done === false) {
          expect(await snapshot()).toBe(before);
          outcomes.refused++;
          return;
        }
        outcomes.ok++;
        if (call.name === "memory_write" && !(result as MemoryWriteResult).replayed) {
          applied += (result as MemoryWriteResult).results.filter((r) => CHANGED.has(r.status)).length;
        }
      }),
      {
        numRuns: 250,
        endOnFailure: true,
        // Found by this property: a confidence that underflows float4 once failed the insert.
        examples: [
          [
            {
              name: "memory_write",
              arguments: {
                operations: [
                  {
                    op: "create",
                    kind: "custom_fact",
                    itemKey: "tiny",
                    explicitUserIntent: true,
                    node: { title: "Tiny", content: "Tiny confidence.", confidence: 1.4e-125 },
                  },
                ],
              },
              turn: undefined,
            },
          ],
          // Two batches that always apply, so the audit count is checked on applied writes in every run
          // (a random draw once produced only five).
          ...[
            ["ex_tea", "ex_desk", "ex_city"],
            ["例_茶", "例_桌", "例_城"],
          ].map((keys): [FuzzCall] => [
            {
              name: "memory_write",
              arguments: {
                operations: keys.map((itemKey) => ({
                  op: "create",
                  kind: "custom_fact",
                  itemKey,
                  explicitUserIntent: true,
                  node: { title: itemKey, content: `Example ${itemKey}.` },
                })),
              },
              turn: undefined,
            },
          ]),
        ],
      },
    );
    const events = await handle.db
      .select({ id: memoryAuditEvents.id })
      .from(memoryAuditEvents)
      .where(
        and(
          eq(memoryAuditEvents.tenantId, tenantId),
          eq(memoryAuditEvents.actorType, "api_key"),
          inArray(memoryAuditEvents.eventType, ["create", "update", "supersede", "expire"]),
        ),
      );
    // The three seeded creates are applied writes too.
    expect(events).toHaveLength(applied + 3);
    // The property must have exercised every branch, or it proves little.
    expect(outcomes.ok).toBeGreaterThan(0);
    expect(outcomes.clientErrors).toBeGreaterThan(0);
    expect(outcomes.refused).toBeGreaterThan(0);
    expect(applied).toBeGreaterThan(5);
  }, 180_000);
});
