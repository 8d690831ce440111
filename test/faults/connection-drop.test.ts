/**
 * Fault 4 (Postgres only: PGlite has no connections to lose): the app pool's connections are
 * terminated by the server (pg_terminate_backend: what a failover, a proxy restart or an idle
 * killer does) while a request runs on them. The caller gets an error, nothing of the write is
 * left, the process does not crash, and the same pool serves later requests on fresh connections.
 */
import { eq, sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, expect, it } from "vitest";
import { isConnectionLost, openDatabase, type DatabaseHandle } from "~/db/client";
import { memoryAuditEvents, memoryNodes } from "~/db/schema";
import { pgErrorCode } from "~/db/pg-errors";
import { memorySearch } from "~/server/memory/retrieval/search";
import { memoryWrite } from "~/server/memory/write/write";
import { createKey, createOrg, trpcHttp } from "../support/agents";
import { createEmptyServerDatabase } from "../support/db";
import { agentContext, createTenant } from "../support/memory";
import { describeServer, sleep, withApplicationName } from "./support";

const APP = "fault-app";

/**
 * The request after a mid-query kill. postgres.js 3.4.9 keeps the dead backend's FATAL and hands it
 * to the first plain query that reconnects that pool slot (porsager/postgres#1215); that query is
 * never sent, so one such failure is tolerated, nothing else: the retry must succeed.
 */
async function nextRequest<T>(run: () => Promise<T>): Promise<{ value: T; staleFailures: number }> {
  try {
    return { value: await run(), staleFailures: 0 };
  } catch (error) {
    expect(pgErrorCode(error)).toBe("57P01");
    return { value: await run(), staleFailures: 1 };
  }
}

describeServer("connection dropped mid-request (Postgres)", () => {
  let drop: () => Promise<void>;
  let app: DatabaseHandle;
  let admin: postgres.Sql;
  let tenantId: string;

  beforeAll(async () => {
    const created = await createEmptyServerDatabase();
    drop = created.drop;
    const setup = await openDatabase({ url: created.url, poolMax: 1 });
    tenantId = await createTenant(setup.db);
    await setup.close();
    // One connection in the app pool: every reconnect below is forced, none can hide behind a spare.
    app = await openDatabase({ url: withApplicationName(created.url, APP), poolMax: 1, migrate: false });
    admin = postgres(created.url, { max: 2, onnotice: () => {} });
  });
  afterAll(async () => {
    await app?.close();
    await admin?.end();
    await drop?.();
  });

  /** Runs `request` while the admin holds a lock it needs; once it waits on that lock, kills the app's backends. */
  async function killWhileBlocked<T>(lock: string, request: () => Promise<T>) {
    const holder = await admin.reserve();
    try {
      await holder`begin`;
      await holder.unsafe(lock);
      const pending = request().then(
        (value) => ({ value, error: null as unknown }),
        (error: unknown) => ({ value: null, error }),
      );
      let killed = 0;
      for (let i = 0; i < 400 && killed === 0; i++) {
        const waiting =
          await admin`select pid from pg_stat_activity where datname = current_database() and application_name = ${APP} and wait_event_type = 'Lock'`;
        if (waiting.length > 0)
          killed = (
            await admin`select pg_terminate_backend(pid) as ok from pg_stat_activity where datname = current_database() and application_name = ${APP}`
          ).filter((r) => r.ok).length;
        else await sleep(25);
      }
      expect(killed).toBe(1);
      return await pending;
    } finally {
      await holder`rollback`;
      holder.release();
    }
  }

  it("a batch write killed after its first insert fails cleanly, leaves nothing, and the pool writes again", async () => {
    const ctx = agentContext(tenantId);
    const existing = await memoryWrite(app.db, ctx, {
      operations: [
        {
          op: "create",
          kind: "custom_fact",
          itemKey: "locked",
          explicitUserIntent: true,
          node: { title: "Locked", content: "Held by the admin." },
        },
      ],
    });
    const lockedId = existing.results[0]!.nodeId!;
    const batch = (content: string) => ({
      operations: [
        {
          op: "create" as const,
          kind: "custom_fact",
          itemKey: "doomed",
          explicitUserIntent: true,
          node: { title: "Doomed", content },
        },
        {
          op: "update" as const,
          targetId: lockedId,
          expectedRevision: 1,
          explicitUserIntent: true,
          node: { content: "Changed." },
        },
      ],
    });

    // The batch's second operation must lock the row the admin holds: it stops there, its first create already inserted.
    const outcome = await killWhileBlocked(`select id from memory_nodes where id = '${lockedId}' for update`, () =>
      memoryWrite(app.db, ctx, batch("Must not survive the dropped connection.")),
    );
    // An error, never a result claiming success; nothing of the batch, not even its audit row.
    expect(outcome.value).toBeNull();
    expect(isConnectionLost(outcome.error)).toBe(true);
    expect(
      (
        await admin`select count(*)::int as n from memory_nodes where tenant_id = ${tenantId} and item_key = 'doomed'`
      )[0]!.n,
    ).toBe(0);
    expect(
      (await admin`select event_type from memory_audit_events where tenant_id = ${tenantId} order by id`).map(
        (a) => a.event_type,
      ),
    ).toEqual(["create"]);
    expect(
      (
        await admin`select count(*)::int as n from pg_stat_activity where datname = current_database() and state = 'idle in transaction'`
      )[0]!.n,
    ).toBe(0);

    // Same pool: reconnects and writes the whole batch.
    const again = await nextRequest(() => memoryWrite(app.db, ctx, batch("Written on a new connection.")));
    expect(again.value.done).toBe(true);
    expect(
      (await app.db.select().from(memoryNodes).where(eq(memoryNodes.tenantId, tenantId))).filter(
        (n) => n.status === "active",
      ),
    ).toHaveLength(2);
    expect(await app.db.select().from(memoryAuditEvents).where(eq(memoryAuditEvents.tenantId, tenantId))).toHaveLength(
      3,
    );
    // And keeps working without any further failure.
    expect(
      (await memorySearch(app.db, ctx, { queryText: "new connection" }, { embeddings: null, logQuery: false })).relevant
        .length,
    ).toBeGreaterThan(0);
  });

  it("an agent whose write lost its connection gets 503 database_unavailable saying how to retry safely, and the next call works", async () => {
    const org = await createOrg(app.db);
    const { secret } = await createKey(app.db, { tenantId: org.tenantId, ownerUserId: org.adminId });
    const write = (operations: unknown[]) =>
      trpcHttp(app.db, "tools.memory_write", { bearer: secret, body: { operations, turn: { sessionId: "drop" } } });
    const created = await write([
      {
        op: "create",
        kind: "custom_fact",
        itemKey: "held",
        explicitUserIntent: true,
        node: { title: "Held", content: "Held by the admin." },
      },
    ]);
    const id = (created.json.result?.data as { results: { nodeId: string }[] }).results[0]!.nodeId;
    const update = [
      {
        op: "update",
        targetId: id,
        expectedRevision: 1,
        explicitUserIntent: true,
        node: { content: "Changed while the connection dropped." },
      },
    ];
    const outcome = await killWhileBlocked(`select id from memory_nodes where id = '${id}' for update`, () =>
      write(update),
    );
    expect(outcome.error).toBeNull();
    expect(outcome.value!.status).toBe(503);
    expect(outcome.value!.json.error?.data.reason).toBe("database_unavailable");
    // Not "nothing changed": a COMMIT under way when a connection drops may have landed.
    expect(outcome.value!.json.error?.message).toMatch(/whether a write in it was saved is unknown.*idempotencyKey/);
    // The same pool answers the retry (once more past the stale FATAL postgres.js keeps, as above).
    let retry = await write(update);
    if (retry.status === 503) retry = await write(update);
    expect(retry.status).toBe(200);
    expect(retry.json.result?.data).toMatchObject({ done: true });
  });

  it("a search killed while it waits fails cleanly and the pool searches again", async () => {
    const ctx = agentContext(tenantId);
    const outcome = await killWhileBlocked("lock table memory_nodes in access exclusive mode", () =>
      memorySearch(app.db, ctx, { queryText: "connection" }, { embeddings: null, logQuery: false }),
    );
    expect(outcome.value).toBeNull();
    expect(isConnectionLost(outcome.error)).toBe(true);

    const found = await nextRequest(() =>
      memorySearch(app.db, ctx, { queryText: "written on a new connection" }, { embeddings: null, logQuery: false }),
    );
    expect([...found.value.exact, ...found.value.relevant].map((n) => n.title)).toContain("Doomed");
  });

  it("an idle pooled connection killed between requests is replaced without a single failed request", async () => {
    await app.db.execute(sql`select 1`);
    const killed =
      await admin`select pg_terminate_backend(pid) as ok from pg_stat_activity where datname = current_database() and application_name = ${APP}`;
    expect(killed.filter((r) => r.ok)).toHaveLength(1);
    await sleep(100);
    const written = await memoryWrite(app.db, agentContext(tenantId), {
      operations: [
        {
          op: "create",
          kind: "custom_fact",
          itemKey: "after-idle-kill",
          explicitUserIntent: true,
          node: { title: "After", content: "After the idle kill." },
        },
      ],
    });
    expect(written.done).toBe(true);
  });
});
