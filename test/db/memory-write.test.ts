import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryAuditEvents, memoryNodes, tenants } from "~/db/schema";
import { ServiceError } from "~/server/errors";
import { loadKindRegistry } from "~/server/memory/kinds/custom";
import { findActiveCards } from "~/server/memory/store/exact-query";
import { getCardHistory, readMemoryAsOf } from "~/server/memory/retrieval/history";
import { parseScopePattern } from "~/server/memory/scope";
import { memoryForget } from "~/server/memory/forget/forget";
import { memorySearch } from "~/server/memory/retrieval/search";
import { memoryWrite } from "~/server/memory/write/write";
import { appendMessages } from "~/server/memory/evidence/messages";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { steppingClock } from "../support/clock";
import { agentContext, createTenant, personContext } from "../support/memory";

describe(`memory_write (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  beforeAll(async () => {
    handle = await openTestDatabase();
  });
  afterAll(async () => handle?.destroy());

  const cardsOf = (t: string) => handle.db.select().from(memoryNodes).where(eq(memoryNodes.tenantId, t));
  const auditOf = (t: string) => handle.db.select().from(memoryAuditEvents).where(eq(memoryAuditEvents.tenantId, t));

  it("creates a card in its canonical slot with the explicit-intent defaults and an audit row", async () => {
    const t = await createTenant(handle.db);
    const result = await memoryWrite(handle.db, agentContext(t), {
      operations: [
        {
          op: "create",
          kind: "profile_name",
          explicitUserIntent: true,
          node: { title: "Name", content: "The user is called Ada.", valueJson: "Ada" },
        },
      ],
    });
    expect(result.done).toBe(true);
    expect(result.results[0]).toMatchObject({
      status: "created",
      key: "profile.identity.name",
      scope: "user:u1",
      revision: 1,
    });
    const [row] = await cardsOf(t);
    expect(row).toMatchObject({
      confidence: 0.98,
      importance: expect.closeTo(0.9, 5),
      status: "active",
      domain: "profile",
      explicitUserIntent: true,
    });
    const audit = await auditOf(t);
    expect(audit.map((a) => a.eventType)).toEqual(["create"]);
    expect(audit[0]).toMatchObject({ actorType: "api_key", actorId: "key_test", nodeId: row!.id });
  });

  it("answers an identical write with noop and no new revision", async () => {
    const t = await createTenant(handle.db);
    const op = {
      op: "create",
      kind: "home_location",
      explicitUserIntent: true,
      node: { title: "Home", content: "Lives in Hangzhou.", valueJson: { city: "Hangzhou" } },
    };
    await memoryWrite(handle.db, agentContext(t), { operations: [op] });
    const again = await memoryWrite(handle.db, agentContext(t), {
      operations: [{ ...op, node: { ...op.node, valueJson: { city: "Hangzhou" } } }],
    });
    expect(again.results[0]).toMatchObject({ status: "noop", revision: 1 });
    expect(again.done).toBe(true);
    expect(await cardsOf(t)).toHaveLength(1);
  });

  it("applies an update that changes only the title, tags, confidence or importance; an identical one is a noop", async () => {
    const t = await createTenant(handle.db);
    const ctx = agentContext(t);
    const [created] = (
      await memoryWrite(handle.db, ctx, {
        operations: [
          {
            op: "create",
            kind: "custom_fact",
            itemKey: "bike",
            explicitUserIntent: true,
            node: { title: "Bike", content: "Rides a Brompton.", tags: ["travel"] },
          },
        ],
      })
    ).results;
    let revision = created!.revision!;
    let id = created!.nodeId!;
    const update = async (card: Record<string, unknown>) => {
      const [result] = (
        await memoryWrite(handle.db, ctx, {
          operations: [
            { op: "update", targetId: id, expectedRevision: revision, explicitUserIntent: true, node: card },
          ],
        })
      ).results;
      if (result!.status === "updated") ({ revision, nodeId: id } = result as { revision: number; nodeId: string });
      return result!;
    };
    // Each of these used to answer "already says this; nothing changed" and drop the edit.
    for (const card of [
      { title: "Folding bike" },
      { tags: ["travel", "commute"] },
      { confidence: 0.5 },
      { importance: 0.2 },
    ]) {
      expect(await update(card), JSON.stringify(card)).toMatchObject({ status: "updated" });
    }
    const [current] = await handle.db
      .select()
      .from(memoryNodes)
      .where(and(eq(memoryNodes.tenantId, t), eq(memoryNodes.status, "active")));
    expect(current).toMatchObject({
      id,
      revision: 5,
      title: "Folding bike",
      tags: ["travel", "commute"],
      confidence: 0.5,
      importance: 0.2,
      content: "Rides a Brompton.",
    });
    // The same values again (tags in another order, the content re-spaced) change nothing.
    expect(
      await update({
        title: "Folding bike",
        tags: ["commute", "travel"],
        confidence: 0.5,
        importance: 0.2,
        content: " Rides  a Brompton. ",
      }),
    ).toMatchObject({ status: "noop", revision: 5 });
    expect(await cardsOf(t)).toHaveLength(5);
    // What it did not send stays while the card says the same (above: importance alone kept confidence
    // 0.5); a new statement gets a new statement's confidence, by intent, as a create would.
    expect(await update({ content: "Rides a Brompton to work." })).toMatchObject({ status: "updated", revision: 6 });
    const [restated] = await handle.db
      .select()
      .from(memoryNodes)
      .where(and(eq(memoryNodes.tenantId, t), eq(memoryNodes.status, "active")));
    expect(restated).toMatchObject({ confidence: 0.98, importance: 0.9 });
  });

  it("refuses an update of valueJson alone, whose old content recall would keep showing, and names the content to send", async () => {
    const t = await createTenant(handle.db);
    const ctx = agentContext(t);
    const [created] = (
      await memoryWrite(handle.db, ctx, {
        operations: [
          {
            op: "create",
            kind: "language_preference",
            explicitUserIntent: true,
            node: { title: "Language", content: "Answer in English.", valueJson: "en" },
          },
        ],
      })
    ).results;
    const update = (card: Record<string, unknown>) =>
      memoryWrite(handle.db, ctx, {
        operations: [
          { op: "update", targetId: created!.nodeId!, expectedRevision: 1, explicitUserIntent: true, node: card },
        ],
      });
    const valueOnly = await update({ valueJson: "zh-CN" });
    expect(valueOnly).toMatchObject({ done: false, results: [{ status: "rejected", reason: "content_required" }] });
    expect(valueOnly.results[0]!.message).toContain("Answer in English.");
    expect(await cardsOf(t)).toHaveLength(1);
    // The same value, or a value with the sentence that states it, goes through.
    expect((await update({ valueJson: "en", title: "Reply language" })).results[0]).toMatchObject({
      status: "updated",
      revision: 2,
    });
    const [current] = await handle.db
      .select()
      .from(memoryNodes)
      .where(and(eq(memoryNodes.tenantId, t), eq(memoryNodes.status, "active")));
    const restated = await memoryWrite(handle.db, ctx, {
      operations: [
        {
          op: "update",
          targetId: current!.id,
          expectedRevision: 2,
          explicitUserIntent: true,
          node: { valueJson: "zh-CN", content: "Answer in Chinese." },
        },
      ],
    });
    expect(restated.results[0]).toMatchObject({ status: "updated", revision: 3 });
  });

  it("keeps a supersede chain of three revisions, one active, linked both ways", async () => {
    const t = await createTenant(handle.db);
    const ctx = agentContext(t);
    const first = await memoryWrite(handle.db, ctx, {
      operations: [
        {
          op: "create",
          kind: "occupation",
          explicitUserIntent: true,
          node: { title: "Job", content: "Nurse.", valueJson: "nurse" },
        },
      ],
    });
    const second = await memoryWrite(handle.db, ctx, {
      operations: [
        {
          op: "create",
          kind: "occupation",
          explicitUserIntent: true,
          node: { title: "Job", content: "Doctor now.", valueJson: "doctor" },
        },
      ],
    });
    expect(second.results[0]).toMatchObject({
      status: "superseded",
      revision: 2,
      previousId: first.results[0]!.nodeId,
    });
    const third = await memoryWrite(handle.db, ctx, {
      operations: [
        {
          op: "update",
          targetId: second.results[0]!.nodeId!,
          expectedRevision: 2,
          explicitUserIntent: true,
          node: { content: "Surgeon.", valueJson: "surgeon" },
        },
      ],
    });
    expect(third.results[0]).toMatchObject({ status: "updated", revision: 3, previousId: second.results[0]!.nodeId });
    const history = await getCardHistory(handle.db, ctx, first.results[0]!.nodeId!);
    expect(history.revisions.map((r) => [r.revision, r.status, r.valueJson])).toEqual([
      [1, "superseded", "nurse"],
      [2, "superseded", "doctor"],
      [3, "active", "surgeon"],
    ]);
    expect(history.revisions[1]!.supersedesId).toBe(history.revisions[0]!.id);
    expect(history.revisions[0]!.supersededById).toBe(history.revisions[1]!.id);
    expect(history.events.map((e) => e.eventType)).toEqual(["create", "supersede", "update"]);
  });

  it("answers a supersede that restates the card word for word with noop, not a new revision", async () => {
    const t = await createTenant(handle.db);
    const ctx = agentContext(t);
    const card = { title: "Job", content: "Works as a nurse.", valueJson: "nurse" };
    const [created] = (
      await memoryWrite(handle.db, ctx, {
        operations: [{ op: "create", kind: "occupation", explicitUserIntent: true, node: card }],
      })
    ).results;
    const same = await memoryWrite(handle.db, ctx, {
      operations: [
        {
          op: "supersede",
          targetId: created!.nodeId!,
          expectedRevision: 1,
          explicitUserIntent: true,
          node: { ...card, content: " Works as a  nurse. " },
        },
      ],
    });
    expect(same).toMatchObject({ done: true, results: [{ status: "noop", nodeId: created!.nodeId, revision: 1 }] });
    expect(await cardsOf(t)).toHaveLength(1);
    expect((await auditOf(t)).map((a) => a.eventType).sort()).toEqual(["create", "noop"]);
    const changed = await memoryWrite(handle.db, ctx, {
      operations: [
        {
          op: "supersede",
          targetId: created!.nodeId!,
          expectedRevision: 1,
          explicitUserIntent: true,
          node: { ...card, content: "Works as a midwife.", valueJson: "midwife" },
        },
      ],
    });
    expect(changed.results[0]).toMatchObject({ status: "superseded", revision: 2 });
  });

  it("refuses a stale expectedRevision with a conflict that carries the current revision", async () => {
    const t = await createTenant(handle.db);
    const ctx = agentContext(t);
    const created = await memoryWrite(handle.db, ctx, {
      operations: [
        {
          op: "create",
          kind: "long_term_goal",
          explicitUserIntent: true,
          node: { title: "Goal", content: "Run a marathon.", valueJson: "marathon" },
        },
      ],
    });
    const id = created.results[0]!.nodeId!;
    await memoryWrite(handle.db, ctx, {
      operations: [
        {
          op: "update",
          targetId: id,
          expectedRevision: 1,
          explicitUserIntent: true,
          node: { content: "Run two marathons.", valueJson: "two marathons" },
        },
      ],
    });
    const stale = await memoryWrite(handle.db, ctx, {
      operations: [
        {
          op: "update",
          targetId: id,
          expectedRevision: 1,
          explicitUserIntent: true,
          node: { content: "Swim.", valueJson: "swim" },
        },
      ],
    });
    expect(stale.done).toBe(false);
    expect(stale.results[0]).toMatchObject({ status: "conflict", reason: "not_active", currentStatus: "superseded" });
    const [active] = await findActiveCards(handle.db, {
      tenantId: t,
      scopes: ctx.readScopes,
      filter: { kinds: ["long_term_goal"] },
      registry: await loadKindRegistry(handle.db, t),
    });
    const wrongRevision = await memoryWrite(handle.db, ctx, {
      operations: [{ op: "expire", targetId: active!.id, expectedRevision: 1 }],
    });
    expect(wrongRevision.results[0]).toMatchObject({
      status: "conflict",
      reason: "revision_mismatch",
      currentRevision: 2,
    });
    expect(stale.message).toMatch(/Nothing was written/);
  });

  it("lets exactly one of many racing writers with the same expectedRevision win; the rest get clean conflicts", async () => {
    const t = await createTenant(handle.db);
    const ctx = agentContext(t);
    const created = await memoryWrite(handle.db, ctx, {
      operations: [
        {
          op: "create",
          kind: "timezone_preference",
          explicitUserIntent: true,
          node: { title: "TZ", content: "Shanghai time.", valueJson: "Asia/Shanghai" },
        },
      ],
    });
    const id = created.results[0]!.nodeId!;
    const zones = [
      "Europe/Paris",
      "Europe/Berlin",
      "America/New_York",
      "Asia/Tokyo",
      "Europe/London",
      "Asia/Seoul",
      "Australia/Sydney",
      "America/Chicago",
    ];
    const results = await Promise.all(
      zones.map((zone) =>
        memoryWrite(handle.db, ctx, {
          operations: [
            {
              op: "update",
              targetId: id,
              expectedRevision: 1,
              explicitUserIntent: true,
              node: { content: `Now in ${zone}.`, valueJson: zone },
            },
          ],
        }),
      ),
    );
    expect(results.filter((r) => r.done)).toHaveLength(1);
    expect(results.filter((r) => !r.done).every((r) => r.results[0]!.status === "conflict")).toBe(true);
    const rows = await cardsOf(t);
    expect(rows.map((r) => r.revision).sort()).toEqual([1, 2]);
    expect(rows.filter((r) => r.status === "active")).toHaveLength(1);
  });

  it("rejects sourceMessageIds that are not this turn's evidence", async () => {
    const t = await createTenant(handle.db);
    const { messages } = await appendMessages(handle.db, agentContext(t), {
      sessionId: "s1",
      messages: [{ role: "user", content: "Our Wi-Fi is Lighthouse." }],
    });
    const real = messages[0]!.id;
    const result = await memoryWrite(handle.db, agentContext(t, { trustedMessageIds: [real] }), {
      operations: [
        {
          op: "create",
          kind: "custom_fact",
          itemKey: "wifi",
          explicitUserIntent: true,
          node: {
            title: "Wi-Fi",
            content: "Home Wi-Fi is called Lighthouse.",
            valueJson: "Lighthouse",
            sourceMessageIds: [real, "msg_forged"],
          },
        },
      ],
    });
    expect(result.results[0]).toMatchObject({ status: "rejected", reason: "untrusted_source" });
    expect(result.results[0]!.message).toMatch(/msg_forged/);
    expect(await cardsOf(t)).toHaveLength(0);
    const ok = await memoryWrite(handle.db, agentContext(t, { trustedMessageIds: [real, "msg_erased"] }), {
      operations: [
        {
          op: "create",
          kind: "custom_fact",
          itemKey: "wifi",
          explicitUserIntent: true,
          node: {
            title: "Wi-Fi",
            content: "Home Wi-Fi is called Lighthouse.",
            valueJson: "Lighthouse",
            sourceMessageIds: [real],
          },
        },
      ],
    });
    expect(ok.results[0]!.status).toBe("created");
    // Evidence trusted for the turn but erased before the write commits: refused, nothing written.
    const gone = await memoryWrite(handle.db, agentContext(t, { trustedMessageIds: [real, "msg_erased"] }), {
      operations: [
        {
          op: "create",
          kind: "custom_fact",
          itemKey: "router",
          explicitUserIntent: true,
          node: {
            title: "Router",
            content: "The router is in the hall.",
            valueJson: "hall",
            sourceMessageIds: ["msg_erased"],
          },
        },
      ],
    });
    expect(gone.results[0]).toMatchObject({ status: "rejected", reason: "source_erased" });
    expect(await cardsOf(t)).toHaveLength(1);
  });

  it("enforces the explicit-only write policy", async () => {
    const t = await createTenant(handle.db, { writePolicy: "explicit-only" });
    const op = {
      op: "create" as const,
      kind: "custom_fact",
      itemKey: "editor",
      node: { title: "Editor", content: "Uses vim.", valueJson: "vim" },
      scope: "session:s1",
    };
    const inferred = await memoryWrite(handle.db, agentContext(t), { operations: [op] });
    expect(inferred.results[0]).toMatchObject({ status: "rejected", reason: "explicit_only_policy" });
    const explicit = await memoryWrite(handle.db, agentContext(t), {
      operations: [{ ...op, explicitUserIntent: true }],
    });
    expect(explicit.results[0]!.status).toBe("created");
  });

  it("keeps inferred facts and undated temporary states out of user scope (downgraded to the session)", async () => {
    const t = await createTenant(handle.db);
    const inferred = await memoryWrite(handle.db, agentContext(t), {
      operations: [
        {
          op: "create",
          kind: "custom_fact",
          itemKey: "pet",
          node: { title: "Pet", content: "Seems to own a cat.", valueJson: "cat" },
          scope: "user:u1",
        },
      ],
    });
    expect(inferred.results[0]).toMatchObject({ status: "created", scope: "session:s1" });
    expect(inferred.results[0]!.notes?.[0]).toMatch(/downgraded_to_session/);
    const temporary = await memoryWrite(handle.db, agentContext(t), {
      operations: [
        {
          op: "create",
          kind: "temporary_state",
          itemKey: "stomach",
          explicitUserIntent: true,
          scope: "user:u1",
          node: { title: "Upset stomach", content: "胃不舒服，今天少辣。" },
        },
      ],
    });
    expect(temporary.results[0]).toMatchObject({ status: "created", scope: "session:s1" });
    const dated = await memoryWrite(handle.db, agentContext(t), {
      operations: [
        {
          op: "create",
          kind: "temporary_state",
          itemKey: "stomach",
          explicitUserIntent: true,
          scope: "user:u1",
          node: {
            title: "Upset stomach",
            content: "胃不舒服，今天少辣。",
            expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
          },
        },
      ],
    });
    expect(dated.results[0]).toMatchObject({ status: "created", scope: "user:u1" });
    const noSession = await memoryWrite(
      handle.db,
      agentContext(t, { defaults: { user: { type: "user", id: "u1" } } }),
      {
        operations: [
          {
            op: "create",
            kind: "custom_fact",
            itemKey: "pet",
            node: { title: "Pet", content: "Seems to own a cat.", valueJson: "cat" },
          },
        ],
      },
    );
    expect(noSession.results[0]).toMatchObject({ status: "rejected", reason: "explicit_intent_required" });
    // Says where the flag goes: inside `node` it is not read (a new user's first try put it there).
    expect(noSession.results[0]!.message).toContain(
      'explicitUserIntent: true on the operation, beside "op", not inside "node"',
    );
  });

  it("normalizes Chinese and English itemKeys and synonym kinds to stable keys", async () => {
    const t = await createTenant(handle.db);
    const ctx = agentContext(t);
    const write = (kind: string, itemKey: string, content: string, valueJson: unknown) =>
      memoryWrite(handle.db, ctx, {
        operations: [
          { op: "create", kind, itemKey, explicitUserIntent: true, node: { title: itemKey, content, valueJson } },
        ],
      });
    const a = await write("project_context", "Hermes Studio", "Desktop app in Electron.", { summary: "Electron app" });
    const b = await write("project_context", "hermes-studio", "Desktop app in Electron.", { summary: "Electron app" });
    const c = await write("project_context", "ＨＥＲＭＥＳ　ＳＴＵＤＩＯ", "Desktop app in Tauri.", {
      summary: "Tauri app",
    });
    expect(a.results[0]!.key).toMatch(/:hermes_studio$/);
    expect(b.results[0]).toMatchObject({ status: "noop", key: a.results[0]!.key });
    expect(c.results[0]).toMatchObject({ status: "superseded", key: a.results[0]!.key });
    const cn1 = await write("avoid_ingredient", " 香 菜 ", "不吃香菜。", "香菜");
    const cn2 = await write("disliked_ingredient", "香菜", "不吃香菜。", "香菜");
    expect(cn1.results[0]!.key).toBe("cooking.avoid_ingredient:香菜");
    expect(cn2.results[0]).toMatchObject({ status: "noop", key: "cooking.avoid_ingredient:香菜" });
    const flavor = await memoryWrite(handle.db, ctx, {
      operations: [
        {
          op: "create",
          kind: "flavor_profile",
          explicitUserIntent: true,
          node: { title: "口味", content: "少油少辣", valueJson: "少辣" },
        },
      ],
    });
    const [row] = await handle.db.select().from(memoryNodes).where(eq(memoryNodes.id, flavor.results[0]!.nodeId!));
    expect(row?.valueJson).toEqual({ spicy: "low" });
    const sentence = await write(
      "project_context",
      "the project we talked about yesterday afternoon with the team",
      "x",
      { summary: "x" },
    );
    expect(sentence.results[0]).toMatchObject({ status: "rejected" });
    expect(sentence.results[0]!.message).toMatch(/Send a short, stable itemKey/);
    // A single slot given an itemKey is told to leave it out, not how to write a better one.
    const slot = await write("home_location", "home_city", "Lives in Beijing.", { city: "Beijing" });
    expect(slot.results[0]).toMatchObject({ status: "rejected", reason: "item_key_not_allowed" });
    expect(slot.results[0]!.message).toMatch(/leave itemKey out/);
    expect(slot.results[0]!.message).not.toMatch(/Send a short, stable itemKey/);
  });

  it("rejects a whole batch when any operation is invalid, reporting each problem by index", async () => {
    const t = await createTenant(handle.db);
    const result = await memoryWrite(handle.db, agentContext(t), {
      operations: [
        {
          op: "create",
          kind: "profile_name",
          explicitUserIntent: true,
          node: { title: "Name", content: "Ada.", valueJson: "Ada" },
        },
        {
          op: "create",
          kind: "favourite_colour",
          explicitUserIntent: true,
          node: { title: "Colour", content: "Blue." },
        },
        {
          op: "create",
          kind: "home_location",
          explicitUserIntent: true,
          node: { title: "Home", content: "Somewhere.", valueJson: { country: "?" } },
        },
      ],
    });
    expect(result.done).toBe(false);
    expect(result.results.map((r) => [r.index, r.status, r.reason])).toEqual([
      [0, "rejected", "batch_aborted"],
      [1, "rejected", "unknown_kind"],
      [2, "rejected", "invalid_value"],
    ]);
    expect(await cardsOf(t)).toHaveLength(0);
    const audit = await auditOf(t);
    expect(audit.map((a) => a.eventType)).toEqual(["rejected", "rejected"]);
  });

  it("leaves no trace when the database fails in the middle of a batch", async () => {
    const t = await createTenant(handle.db);
    await handle.db.execute(
      sql.raw(
        `create or replace function fail_on_explode() returns trigger language plpgsql as $$ begin if new.title = 'explode' then raise exception 'injected failure'; end if; return new; end $$`,
      ),
    );
    await handle.db.execute(
      sql.raw(
        `create trigger explode_${t} before insert on memory_nodes for each row execute function fail_on_explode()`,
      ),
    );
    try {
      const write = memoryWrite(handle.db, agentContext(t), {
        operations: [
          {
            op: "create",
            kind: "profile_name",
            explicitUserIntent: true,
            node: { title: "Name", content: "Ada.", valueJson: "Ada" },
          },
          {
            op: "create",
            kind: "occupation",
            explicitUserIntent: true,
            node: { title: "explode", content: "Boom.", valueJson: "x" },
          },
        ],
      });
      const error = await write.catch((e: unknown) => e);
      expect(String((error as Error).cause ?? error)).toMatch(/injected failure/);
      expect(await cardsOf(t)).toHaveLength(0);
      expect(await auditOf(t)).toHaveLength(0);
    } finally {
      await handle.db.execute(sql.raw(`drop trigger explode_${t} on memory_nodes`));
    }
  });

  it("returns the first result for a retried idempotency key without writing twice", async () => {
    const t = await createTenant(handle.db);
    const input = {
      idempotencyKey: "turn-42-write-1",
      operations: [
        {
          op: "create",
          kind: "language_preference",
          explicitUserIntent: true,
          node: { title: "Language", content: "Prefers Chinese.", valueJson: "zh-CN" },
        },
      ],
    };
    const first = await memoryWrite(handle.db, agentContext(t), input);
    const retry = await memoryWrite(handle.db, agentContext(t), input);
    expect(retry).toMatchObject({ done: true, replayed: true, results: first.results });
    expect(await cardsOf(t)).toHaveLength(1);
    await expect(
      memoryWrite(handle.db, agentContext(t), {
        ...input,
        operations: [{ ...input.operations[0]!, node: { ...input.operations[0]!.node, valueJson: "en" } }],
      }),
    ).rejects.toMatchObject({
      reason: "idempotency_key_reused",
    });
  });

  it("answers twins of a failing call sent at once with one stored answer, never an internal error", async () => {
    const t = await createTenant(handle.db);
    const ctx = agentContext(t);
    const [created] = (
      await memoryWrite(handle.db, ctx, {
        operations: [
          {
            op: "create",
            kind: "long_term_goal",
            explicitUserIntent: true,
            node: { title: "Goal", content: "Learn Go.", valueJson: "go" },
          },
        ],
      })
    ).results;
    // A stale revision: every twin fails the same way, and each stores (or replays) that failure.
    const input = {
      idempotencyKey: "turn-7-write-stale",
      operations: [
        {
          op: "update",
          targetId: created!.nodeId!,
          expectedRevision: 5,
          explicitUserIntent: true,
          node: { content: "Learn Rust.", valueJson: "rust" },
        },
      ],
    };
    const answers = await Promise.all(Array.from({ length: 6 }, () => memoryWrite(handle.db, ctx, input)));
    for (const answer of answers)
      expect(answer).toMatchObject({ done: false, results: [{ status: "conflict", reason: "revision_mismatch" }] });
    expect(answers.filter((a) => !a.replayed).length).toBeGreaterThanOrEqual(1);
    expect((await memoryWrite(handle.db, ctx, input)).replayed).toBe(true);
  });

  it("rejects secrets by default and redacts them under the redact policy", async () => {
    const t = await createTenant(handle.db);
    const secret = "sk-proj-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6";
    const op = {
      op: "create" as const,
      kind: "custom_fact",
      itemKey: "openai",
      explicitUserIntent: true,
      node: { title: "OpenAI key", content: `My key is ${secret}` },
    };
    const rejected = await memoryWrite(handle.db, agentContext(t), { operations: [op] });
    expect(rejected.results[0]).toMatchObject({ status: "rejected", reason: "sensitive_content" });
    expect(JSON.stringify(await auditOf(t))).not.toContain(secret);
    await handle.db.update(tenants).set({ sensitivePolicy: "redact" }).where(eq(tenants.id, t));
    const redacted = await memoryWrite(handle.db, agentContext(t), { operations: [op] });
    expect(redacted.results[0]!.status).toBe("created");
    const [row] = await cardsOf(t);
    expect(row?.content).toContain("[REDACTED:");
    expect(row?.content).not.toContain(secret);
    expect(row?.redacted).toBe(true);
    // A reason quoting the secret is the caller's words, kept in the audit: redacted there too.
    await memoryWrite(handle.db, agentContext(t), {
      operations: [
        {
          ...op,
          itemKey: "openai_2",
          reason: `user pasted ${secret}`,
          node: { title: "Key note", content: "The user keeps an OpenAI key." },
        },
      ],
    });
    expect(JSON.stringify(await auditOf(t))).not.toContain(secret);
  });

  it("never lets an agent write the global scope, nor a scope it was not granted", async () => {
    const t = await createTenant(handle.db);
    const global = await memoryWrite(handle.db, agentContext(t), {
      operations: [
        {
          op: "create",
          kind: "custom_fact",
          itemKey: "office",
          scope: "global",
          explicitUserIntent: true,
          node: { title: "Office", content: "Office is in Berlin." },
        },
      ],
    });
    expect(global.results[0]).toMatchObject({ status: "rejected" });
    const other = await memoryWrite(handle.db, agentContext(t), {
      operations: [
        {
          op: "create",
          kind: "custom_fact",
          itemKey: "office",
          scope: "user:u2",
          explicitUserIntent: true,
          node: { title: "Office", content: "Office is in Berlin." },
        },
      ],
    });
    expect(other.results[0]).toMatchObject({ status: "rejected", reason: "scope_not_writable" });
    const admin = await memoryWrite(handle.db, personContext(t, { writeScopes: [parseScopePattern("global")] }), {
      operations: [
        {
          op: "create",
          kind: "custom_fact",
          itemKey: "office",
          scope: "global",
          explicitUserIntent: true,
          node: { title: "Office", content: "Office is in Berlin." },
        },
      ],
    });
    expect(admin.results[0]).toMatchObject({ status: "created", scope: "global" });
  });

  it("never touches another tenant's cards", async () => {
    const a = await createTenant(handle.db);
    const b = await createTenant(handle.db);
    const created = await memoryWrite(handle.db, agentContext(a), {
      operations: [
        {
          op: "create",
          kind: "profile_name",
          explicitUserIntent: true,
          node: { title: "Name", content: "Ada.", valueJson: "Ada" },
        },
      ],
    });
    const attack = await memoryWrite(handle.db, agentContext(b), {
      operations: [{ op: "expire", targetId: created.results[0]!.nodeId!, expectedRevision: 1 }],
    });
    expect(attack.results[0]).toMatchObject({ status: "rejected", reason: "not_found" });
    const [row] = await cardsOf(a);
    expect(row?.status).toBe("active");
  });

  it("answers asOf reads with what memory said at that moment", async () => {
    const t = await createTenant(handle.db);
    const ctx = agentContext(t);
    const clock = steppingClock();
    const writeNow = (input: unknown) => memoryWrite(handle.db, ctx, input, { now: clock() });
    await writeNow({
      operations: [
        {
          op: "create",
          kind: "occupation",
          explicitUserIntent: true,
          node: { title: "Job", content: "Teacher.", valueJson: "teacher" },
        },
      ],
    });
    const between = clock();
    const second = await writeNow({
      operations: [
        {
          op: "create",
          kind: "occupation",
          explicitUserIntent: true,
          node: { title: "Job", content: "Pilot.", valueJson: "pilot" },
        },
      ],
    });
    const afterSecond = clock();
    await writeNow({
      operations: [{ op: "expire", targetId: second.results[0]!.nodeId!, expectedRevision: 2 }],
    });
    const at = async (asOf: Date) =>
      (await readMemoryAsOf(handle.db, { tenantId: t, scopes: ctx.readScopes, asOf })).map((n) => n.valueJson);
    expect(await at(between)).toEqual(["teacher"]);
    expect(await at(afterSecond)).toEqual(["pilot"]);
    expect(await at(new Date())).toEqual([]);
    expect(await at(new Date(Date.now() - 3_600_000))).toEqual([]);
    // A fact the user has since forgotten is not recalled from the past either (search's asOf reads this).
    const [pet] = (
      await writeNow({
        operations: [
          {
            op: "create",
            kind: "custom_fact",
            itemKey: "pet",
            explicitUserIntent: true,
            node: { title: "Pet", content: "Has a cat named Miso.", valueJson: "cat" },
          },
        ],
      })
    ).results;
    const beforeForget = clock();
    expect(await at(beforeForget)).toEqual(["cat"]);
    await memoryForget(
      handle.db,
      personContext(t),
      { id: pet!.nodeId, expectedRevision: 1, reason: "user asked" },
      { now: clock() },
    );
    expect(await at(beforeForget)).toEqual([]);
    expect(
      (
        await memorySearch(
          handle.db,
          ctx,
          { queryText: "cat Miso", asOf: beforeForget.toISOString() },
          { embeddings: null },
        )
      ).relevant,
    ).toEqual([]);
  });

  it("validates input shape with an actionable error", async () => {
    const t = await createTenant(handle.db);
    const error = await memoryWrite(handle.db, agentContext(t), {
      operations: [{ op: "create", kind: "profile_name" }],
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).message).toMatch(/operations\.0\.node/);
    const rows = await handle.db
      .select()
      .from(memoryNodes)
      .where(and(eq(memoryNodes.tenantId, t)));
    expect(rows).toHaveLength(0);
  });

  it("refuses unknown or misplaced keys instead of dropping them, and writes nothing of the batch", async () => {
    const t = await createTenant(handle.db);
    const ctx = agentContext(t);
    const good = {
      op: "create",
      kind: "custom_fact",
      itemKey: "editor",
      explicitUserIntent: true,
      node: { title: "Editor", content: "Uses vim." },
    };
    const refusal = async (op: Record<string, unknown>) => {
      const error = await memoryWrite(handle.db, ctx, { operations: [good, op] }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServiceError);
      return (error as ServiceError).message;
    };
    // A scope inside node would have been dropped and the card written to the default scope.
    const misplaced = await refusal({
      ...good,
      itemKey: "pet",
      node: { title: "Pet", content: "Has a cat.", scope: "user:u1" },
    });
    expect(misplaced).toContain('operations.1.node: node does not take "scope"');
    expect(misplaced).toMatch(/kind, itemKey, scope and explicitUserIntent go on the operation/);
    // A misspelt operation key, and a card read back and sent whole.
    expect(await refusal({ ...good, itemKey: "pet", scopes: "user:u1" })).toMatch(
      /operations\.1: a create operation does not take "scopes"\. It takes op, kind, itemKey, scope/,
    );
    const [card] = await memoryWrite(handle.db, ctx, { operations: [good] }).then((r) => r.results);
    const readBack = await refusal({
      op: "update",
      targetId: card!.nodeId,
      expectedRevision: 1,
      node: { id: card!.nodeId, revision: 1, title: "Editor", content: "Uses neovim." },
    });
    expect(readBack).toContain('node does not take "id", "revision"');
    expect((await cardsOf(t)).map((n) => n.content)).toEqual(["Uses vim."]);
  });
});
