import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "~/db/client";
import { DEFAULT_MIGRATIONS_FOLDER, runMigrations } from "~/db/migrate";
import { queryRows } from "~/db/raw";
import { SCOPE_TYPES } from "~/db/schema";
import type { MemoryCallContext } from "~/server/memory/call-context";
import { memoryForget } from "~/server/memory/forget/forget";
import { restoreCard } from "~/server/memory/forget/restore";
import { eraseSession } from "~/server/memory/forget/erase-session";
import { EVERYTHING } from "~/server/auth/permissions";
import { parseScopePattern, SCOPE_PRIORITY } from "~/server/memory/scope";
import { createEmptyServerDatabase, openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { agentContext, createOp as create, createTenant, personContext, type Op, writeCards } from "../support/memory";

/** The trigger memory_nodes_mark_shadowed (migration 0013) and the backfill of cards stored before it. */
describe(`shadowed cards (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  beforeAll(async () => {
    handle = await openTestDatabase();
  });
  afterAll(async () => handle?.destroy());

  const write = (ctx: MemoryCallContext, ...operations: Op[]) => writeCards(handle.db, ctx, ...operations);
  const shadowedOf = async (tenantId: string) => {
    const rows = await queryRows<{ id: string; shadowed: boolean }>(
      handle.db,
      sql`select id, shadowed from memory_nodes where tenant_id = ${tenantId} and status = 'active'`,
    );
    return new Map(rows.map((r) => [r.id, r.shadowed]));
  };
  // custom_fact: a kind every scope may hold.
  const tone = (scope: string, content: string, itemKey = "tone"): Op =>
    create("custom_fact", { title: "Tone", content, valueJson: content }, { scope, itemKey });

  it("has memory_scope_priority() order the scopes as SCOPE_PRIORITY does", async () => {
    for (const type of SCOPE_TYPES) {
      const [row] = await queryRows<{ p: number }>(handle.db, sql`select memory_scope_priority(${type}) as p`);
      expect(Number(row!.p), type).toBe(SCOPE_PRIORITY[type]);
    }
  });

  it("marks the broader card whichever of the two is written first, a new revision and a restored card too", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = personContext(tenantId, {
      writeScopes: ["user:u1", "session:*", "workspace:w1", "global"].map(parseScopePattern),
    });
    // Broader first: the session's card marks the user's.
    const [user] = await write(ctx, tone("user:u1", "Playful."));
    expect((await shadowedOf(tenantId)).get(user!)).toBe(false);
    const [session] = await write(ctx, tone("session:s1", "Terse."));
    let flags = await shadowedOf(tenantId);
    expect(flags.get(user!)).toBe(true);
    expect(flags.get(session!)).toBe(false);
    // Narrower first: the workspace's card exists, so the global card written after is marked at once.
    const [workspace] = await write(ctx, tone("workspace:w1", "Formal.", "voice"));
    const [global] = await write(ctx, tone("global", "Neutral.", "voice"));
    flags = await shadowedOf(tenantId);
    expect(flags.get(global!)).toBe(true);
    expect(flags.get(workspace!)).toBe(false);
    // In between: a workspace card under the session's is shadowed, and shadows the user's.
    const [between] = await write(ctx, tone("workspace:w1", "Formal."));
    expect((await shadowedOf(tenantId)).get(between!)).toBe(true);
    // A new revision of the user's card is marked again (the session's card still holds the slot).
    const updated = await write(ctx, {
      op: "update",
      targetId: user,
      expectedRevision: 1,
      explicitUserIntent: true,
      node: { content: "Very playful.", valueJson: "Very playful." },
    });
    flags = await shadowedOf(tenantId);
    expect(flags.get(updated[0]!)).toBe(true);

    // Only a more specific scope shadows: another kind's slot, or a card of the same scope type, does not.
    const [other] = await write(
      ctx,
      create(
        "custom_fact",
        { title: "Tone of the docs", content: "Playful." },
        { scope: "user:u1", itemKey: "docs_tone" },
      ),
    );
    expect((await shadowedOf(tenantId)).get(other!)).toBe(false);

    // Restored: a forgotten narrower card that comes back marks the broader one again.
    const t2 = await createTenant(handle.db);
    const ctx2 = personContext(t2);
    const [sessionCard] = await write(ctx2, tone("session:s1", "Terse."));
    await memoryForget(handle.db, ctx2, { id: sessionCard!, expectedRevision: 1, reason: "the user asked" });
    const [userCard] = await write(ctx2, tone("user:u1", "Playful."));
    expect((await shadowedOf(t2)).get(userCard!)).toBe(false);
    const restored = await restoreCard(handle.db, ctx2, {
      id: sessionCard!,
      expectedRevision: 1,
      reason: "the user changed their mind",
    });
    expect(restored.done).toBe(true);
    expect((await shadowedOf(t2)).get(userCard!)).toBe(true);
  });

  it("clears the mark when the override is erased, and only when no other override holds the slot", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = personContext(tenantId);
    const [user] = await write(ctx, tone("user:u1", "Playful."));
    const [workspace] = await write(ctx, tone("workspace:w1", "Formal."));
    const [session] = await write(ctx, tone("session:s1", "Terse."));
    expect((await shadowedOf(tenantId)).get(user!)).toBe(true);
    // The session's card erased: the workspace's still overrides the user's, and is no longer overridden.
    const erased = await memoryForget(handle.db, ctx, {
      id: session!,
      expectedRevision: 1,
      mode: "hard",
      reason: "erase it",
    });
    expect(erased.done).toBe(true);
    let flags = await shadowedOf(tenantId);
    expect(flags.get(user!)).toBe(true);
    expect(flags.get(workspace!)).toBe(false);
    // The last override erased: nothing says it was ever there.
    await memoryForget(handle.db, ctx, { id: workspace!, expectedRevision: 1, mode: "hard", reason: "erase it" });
    flags = await shadowedOf(tenantId);
    expect(flags.get(user!)).toBe(false);
    // A whole conversation erased takes its marks too.
    const [again] = await write(ctx, tone("session:s2", "Terse."));
    expect(again).toBeTruthy();
    expect((await shadowedOf(tenantId)).get(user!)).toBe(true);
    // (a conversation with no captured messages has no known owner: an admin's, who may write every profile)
    const admin = { ...ctx, readScopes: [...EVERYTHING], writeScopes: [...EVERYTHING] };
    expect(await eraseSession(handle.db, admin, { sessionId: "s2", reason: "erase the chat" })).toMatchObject({
      done: true,
    });
    expect((await shadowedOf(tenantId)).get(user!)).toBe(false);
  });

  it.runIf(TEST_BACKEND === "postgres")(
    "marks the broader card when the two are written at the same time in different scopes",
    async () => {
      const tenantId = await createTenant(handle.db);
      const ctx = agentContext(tenantId);
      for (let round = 0; round < 5; round++) {
        let release!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        let second: Promise<string[]> | undefined;
        // The session's card is written in an open transaction; the user's card is written meanwhile,
        // outside it, and commits after it. Neither could see the other's uncommitted card.
        const first = handle.db.transaction(async (tx) => {
          const ids = await writeCards(tx as never, ctx, tone(`session:race${round}`, "Terse."));
          second = write(ctx, tone("user:u1", `Playful ${round}.`));
          await Promise.race([held, new Promise((r) => setTimeout(r, 300))]);
          return ids;
        });
        await first;
        release();
        const [user] = await second!;
        expect((await shadowedOf(tenantId)).get(user!), `round ${round}`).toBe(true);
        const [row] = await queryRows<{ revision: number }>(
          handle.db,
          sql`select revision from memory_nodes where tenant_id = ${tenantId} and id = ${user!}`,
        );
        await memoryForget(
          handle.db,
          { ...ctx, forgetIntent: true },
          { id: user!, expectedRevision: Number(row!.revision), reason: "next round" },
        );
      }
    },
  );

  it("marks the cards stored before the migration", async () => {
    // The migrations up to 0012, cards written with raw SQL (the code of this release reads columns 0012 lacks), then 0013.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "memory-migrations-"));
    fs.cpSync(DEFAULT_MIGRATIONS_FOLDER, dir, { recursive: true });
    const journalPath = path.join(dir, "meta", "_journal.json");
    const journal = JSON.parse(fs.readFileSync(journalPath, "utf8")) as { entries: { tag: string }[] };
    const at = journal.entries.findIndex((e) => e.tag === "0013_slot_shadowed");
    expect(at).toBeGreaterThan(0);
    fs.writeFileSync(journalPath, JSON.stringify({ ...journal, entries: journal.entries.slice(0, at) }));
    const server = TEST_BACKEND === "postgres" ? await createEmptyServerDatabase() : undefined;
    const old = await openDatabase(
      server ? { url: server.url, migrate: false, poolMax: 2 } : { dataDir: null, migrate: false },
    );
    const db = old.db;
    try {
      await runMigrations(db, dir);
      await db.execute(sql`insert into tenants (id, name, slug) values ('t_old', 'Old', 'old')`);
      const card = (id: string, scopeType: string, scopeId: string, key: string, status = "active") =>
        db.execute(sql`insert into memory_nodes (tenant_id, id, scope_type, scope_id, kind, key, domain, type, title, content, status, lineage_id, confidence, importance, created_by_type, updated_by_type)
                        values ('t_old', ${id}, ${scopeType}, ${scopeId}, 'communication_preference', ${key}, 'communication', 'preference', 'Tone', 'x', ${status}, ${id}, 0.9, 0.5, 'user', 'user')`);
      await card("n_user", "user", "u1", "communication_preference:tone");
      await card("n_session", "session", "s1", "communication_preference:tone");
      await card("n_alone", "user", "u1", "communication_preference:other");
      await card("n_global", "global", "", "communication_preference:other2");
      await card("n_gone", "session", "s1", "communication_preference:other2", "deleted");
      await runMigrations(db);
      const rows = await queryRows<{ id: string; shadowed: boolean }>(
        db,
        sql`select id, shadowed from memory_nodes where tenant_id = 't_old' order by id`,
      );
      expect(Object.fromEntries(rows.map((r) => [r.id, r.shadowed]))).toEqual({
        n_alone: false,
        n_global: false,
        n_gone: false,
        n_session: false,
        n_user: true,
      });
    } finally {
      await old.close();
      await server?.drop();
    }
  });
});
