import net from "node:net";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { attachReadReplicas } from "~/db/client";
import { queryRows } from "~/db/raw";
import { ReadReplicas, registerReadReplicas, unregisterReadReplicas } from "~/db/replicas";
import { routeWork } from "~/server/db-routing";
import { getHealth } from "~/server/health";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { createKey, createOrg, trpcHttp } from "../support/agents";

/**
 * A replica that accepts connections and never answers (a hung standby, a black-holed network): it
 * must leave rotation within the probe timeout, and reads must not wait on it. The "replica" is a TCP
 * server in this process; only the primary is a real Postgres, so no standby is needed.
 */
describe.runIf(TEST_BACKEND === "postgres")("a replica that stops answering", () => {
  let handle: TestDatabase;
  let server: net.Server;
  const sockets = new Set<net.Socket>();
  let hungUrl: string;

  beforeAll(async () => {
    server = net.createServer((socket) => {
      sockets.add(socket);
      socket.on("error", () => {});
      socket.on("close", () => sockets.delete(socket));
      // Reads whatever the client sends, answers nothing, closes nothing.
      socket.resume();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    hungUrl = `postgres://postgres@127.0.0.1:${(server.address() as net.AddressInfo).port}/hung`;
    handle = await openTestDatabase();
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
    await handle?.destroy();
  });

  it("is marked down within the probe timeout, shows down in health, and reads go to the primary", async () => {
    const opened = await openTestDatabase();
    const started = Date.now();
    const replicas = await attachReadReplicas(opened, [hungUrl], {
      maxLagMs: 5000,
      checkMs: 200,
      timeoutMs: 500,
      poolMax: 2,
    });
    try {
      // attach probes once and waits for it: bounded by the timeout, not by the standby.
      expect(Date.now() - started).toBeLessThan(3000);
      expect(replicas.statuses()[0]).toMatchObject({ state: "down", reachable: false, lagMs: null });
      expect(replicas.statuses()[0]!.error).toMatch(/no answer within 500 ms/);
      const health = await getHealth(opened);
      // Public: state and lag only, nothing of the host or the driver's error.
      expect(health.replicas).toEqual([{ replica: 1, state: "down", reachable: false, lagMs: null }]);
      expect(JSON.stringify(health)).not.toContain("127.0.0.1");

      const org = await createOrg(opened.db);
      const key = await createKey(opened.db, { tenantId: org.tenantId, ownerUserId: org.adminId });
      const readStarted = Date.now();
      const res = await trpcHttp(opened.db, "tools.memory_search", {
        bearer: key.secret,
        body: { queryText: "anything", turn: { sessionId: "hung" } },
      });
      expect(res.status).toBe(200);
      expect(Date.now() - readStarted).toBeLessThan(3000);

      // Later probe rounds settle too (one per checkMs), and the replica stays down.
      const probeStarted = Date.now();
      await replicas.probe();
      expect(Date.now() - probeStarted).toBeLessThan(2000);
      expect(replicas.statuses()[0]!.state).toBe("down");
    } finally {
      const closing = Date.now();
      unregisterReadReplicas(replicas);
      await replicas.close();
      // close() waits for the running probe (bounded) and ends the pools (postgres.js ends a stuck one after 5 s).
      expect(Date.now() - closing).toBeLessThan(8000);
      await opened.destroy();
    }
  }, 20_000);

  it("runs a read on the primary when a replica taken as up stops answering mid-read, and takes it out of rotation", async () => {
    const opened = await openTestDatabase();
    const hung = await attachReadReplicas(opened, [hungUrl], {
      maxLagMs: 5000,
      checkMs: 60_000,
      timeoutMs: 500,
      poolMax: 1,
    });
    unregisterReadReplicas(hung);
    // The same hung pool, seen as up (as it was before the standby stopped answering), taking reads for handle's primary.
    const replicas = new ReadReplicas(handle.db, [{ name: "hung", db: hung.replicas[0]!.db, close: async () => {} }], {
      maxLagMs: 5000,
      checkMs: 60_000,
      timeoutMs: 500,
      readTimeoutMs: 300,
    });
    replicas.replicas[0]!.status = {
      name: "hung",
      state: "up",
      reachable: true,
      lagMs: 0,
      replayLsn: null,
      error: null,
    };
    registerReadReplicas(replicas);
    try {
      const started = Date.now();
      const routed = await routeWork(handle.db, { kind: "read", principal: null }, async (db) =>
        queryRows<{ one: number }>(db, sql`select 1 as one`),
      );
      expect(routed.value[0]?.one).toBe(1);
      expect(routed.db).toBe(handle.db);
      // The read timeout (300 ms) plus routing's 2 s grace, not postgres.js's 10 s connect timeout or forever.
      expect(Date.now() - started).toBeLessThan(4000);
      expect(replicas.statuses()[0]).toMatchObject({ state: "down", reachable: false });
      expect(await replicas.pick(null)).toBeNull();
    } finally {
      unregisterReadReplicas(replicas);
      await replicas.close();
      await hung.close();
      await opened.destroy();
    }
  }, 20_000);
});
