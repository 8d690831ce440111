import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryAuditEvents, memoryKinds, memoryNodes, tenants } from "~/db/schema";
import type { Actor } from "~/server/memory/call-context";
import { deleteCustomKind, listCustomKinds, loadKindRegistry, saveCustomKind } from "~/server/memory/kinds/custom";
import { memoryForget } from "~/server/memory/forget/forget";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { agentContext, createOp, personContext, writeCards } from "../support/memory";

const admin: Actor = { type: "user", id: "usr_admin" };
const tenantA = "ten_kinds_a";
const tenantB = "ten_kinds_b";
const ctxA = { tenantId: tenantA, actor: admin };
const ctxB = { tenantId: tenantB, actor: admin };

const instrument = {
  kind: "instrument",
  key: "hobby.instrument",
  domain: "hobby",
  categoryPath: ["hobby", "music"],
  type: "preference",
  itemized: true,
  valueShape: "string",
  description: "An instrument the user plays.",
};

describe(`custom kinds (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;

  beforeAll(async () => {
    handle = await openTestDatabase();
    await handle.db.insert(tenants).values([
      { id: tenantA, name: "A", slug: "kinds-a" },
      { id: tenantB, name: "B", slug: "kinds-b" },
    ]);
  });
  afterAll(async () => handle?.destroy());

  const kindEvents = (tenantId: string) =>
    handle.db
      .select()
      .from(memoryAuditEvents)
      .where(and(eq(memoryAuditEvents.tenantId, tenantId), eq(memoryAuditEvents.eventType, "kind")))
      .orderBy(memoryAuditEvents.id);

  it("saves a kind, lists it, resolves it through the registry and audits the change", async () => {
    const saved = await saveCustomKind(handle.db, ctxA, instrument);
    expect(saved).toMatchObject({
      kind: "instrument",
      key: "hobby.instrument",
      source: "custom",
      itemized: true,
      defaultScope: "user",
    });

    const listed = await listCustomKinds(handle.db, tenantA);
    expect(listed.map((k) => k.kind)).toEqual(["instrument"]);
    expect(listed[0]!.valueSchema.safeParse("piano").success).toBe(true);

    const registry = await loadKindRegistry(handle.db, tenantA);
    expect(registry.resolve("instrument")?.source).toBe("custom");
    expect(registry.resolve("hobby.instrument:piano")?.kind).toBe("instrument");
    expect(registry.resolve("profile_name")?.source).toBe("builtin");
    expect(registry.all.some((k) => k.kind === "instrument")).toBe(true);

    const events = await kindEvents(tenantA);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      actorType: "user",
      actorId: "usr_admin",
      before: null,
      metadata: { kind: "instrument" },
    });
    expect(events[0]!.after).toMatchObject({ kind: "instrument", requiresExplicitIntent: true });
  });

  it("updates in place with before/after in the audit row", async () => {
    await saveCustomKind(handle.db, ctxA, {
      ...instrument,
      description: "Instruments the user plays or wants to learn.",
    });
    expect(await handle.db.select().from(memoryKinds).where(eq(memoryKinds.tenantId, tenantA))).toHaveLength(1);
    const events = await kindEvents(tenantA);
    expect(events).toHaveLength(2);
    expect(events[1]!.before).toMatchObject({ description: "An instrument the user plays." });
    expect(events[1]!.after).toMatchObject({ description: "Instruments the user plays or wants to learn." });
  });

  it("rejects shadowing a built-in, a duplicate key and an invalid definition, writing nothing", async () => {
    await expect(
      saveCustomKind(handle.db, ctxA, { ...instrument, kind: "profile_name", key: "profile.other" }),
    ).rejects.toMatchObject({
      code: "BAD_REQUEST",
      reason: "shadows_builtin",
    });
    await expect(
      saveCustomKind(handle.db, ctxA, { ...instrument, kind: "my_name", key: "profile.identity.name" }),
    ).rejects.toMatchObject({
      reason: "shadows_builtin",
    });
    await expect(saveCustomKind(handle.db, ctxA, { ...instrument, kind: "instrument_two" })).rejects.toMatchObject({
      reason: "duplicate",
    });
    await expect(saveCustomKind(handle.db, ctxA, { ...instrument, kind: "Bad Name" })).rejects.toMatchObject({
      reason: "invalid_definition",
    });
    expect((await listCustomKinds(handle.db, tenantA)).map((k) => k.kind)).toEqual(["instrument"]);
    expect(await kindEvents(tenantA)).toHaveLength(2);
  });

  it("skips a stored kind that no longer validates instead of failing the whole list", async () => {
    await handle.db.insert(memoryKinds).values({ tenantId: tenantA, kind: "broken", definition: { kind: "broken" } });
    const listed = await listCustomKinds(handle.db, tenantA);
    expect(listed.map((k) => k.kind)).toEqual(["instrument"]);
    await handle.db.delete(memoryKinds).where(and(eq(memoryKinds.tenantId, tenantA), eq(memoryKinds.kind, "broken")));
  });

  it("keeps kinds per tenant: B neither sees A's kind nor is blocked by its key", async () => {
    expect(await listCustomKinds(handle.db, tenantB)).toEqual([]);
    expect((await loadKindRegistry(handle.db, tenantB)).resolve("instrument")).toBeUndefined();
    await saveCustomKind(handle.db, ctxB, { ...instrument, kind: "instrument_b" });
    expect((await listCustomKinds(handle.db, tenantB)).map((k) => k.kind)).toEqual(["instrument_b"]);
    expect((await listCustomKinds(handle.db, tenantA)).map((k) => k.kind)).toEqual(["instrument"]);
    await expect(deleteCustomKind(handle.db, ctxB, "instrument")).rejects.toMatchObject({
      code: "NOT_FOUND",
      reason: "unknown_kind",
    });
  });

  it("writes and forgets cards of a custom kind (read with the tenant's policy for a write, and for a selector naming it)", async () => {
    const [id] = await writeCards(
      handle.db,
      agentContext(tenantA),
      createOp(
        "instrument",
        { title: "Plays cello", content: "The user plays the cello.", valueJson: "cello" },
        { itemKey: "cello" },
      ),
    );
    const forgot = await memoryForget(handle.db, personContext(tenantA), {
      selector: { kind: "hobby.instrument", valueJson: "cello" },
      reason: "the user asked",
    });
    expect(forgot).toMatchObject({ done: true, deletedIds: [id] });
  });

  it("refuses to delete a kind that active cards use, then deletes it with an audit row", async () => {
    const card = {
      tenantId: tenantA,
      id: "mem_instrument",
      scopeType: "user" as const,
      scopeId: "u1",
      kind: "instrument",
      key: "hobby.instrument:piano",
      domain: "hobby",
      type: "preference" as const,
      title: "Plays piano",
      content: "The user plays piano.",
      lineageId: "mem_instrument",
      confidence: 0.9,
      importance: 0.5,
      createdByType: "user" as const,
      updatedByType: "user" as const,
    };
    await handle.db.insert(memoryNodes).values(card);
    await expect(deleteCustomKind(handle.db, ctxA, "instrument")).rejects.toMatchObject({
      code: "CONFLICT",
      reason: "kind_in_use",
    });
    await handle.db
      .update(memoryNodes)
      .set({ status: "expired" })
      .where(and(eq(memoryNodes.tenantId, tenantA), eq(memoryNodes.id, card.id)));

    const removed = await deleteCustomKind(handle.db, ctxA, "instrument");
    expect(removed.kind).toBe("instrument");
    expect(await listCustomKinds(handle.db, tenantA)).toEqual([]);
    const events = await kindEvents(tenantA);
    expect(events.at(-1)).toMatchObject({
      reason: "custom kind deleted",
      after: null,
      metadata: { kind: "instrument" },
    });
    expect(events.at(-1)!.before).toMatchObject({ kind: "instrument" });
    expect(await kindEvents(tenantB)).toHaveLength(1);
  });
});
