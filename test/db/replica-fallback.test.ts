import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { attachReadReplicas } from "~/db/client";
import { ReadReplicas, registerReadReplicas, unregisterReadReplicas } from "~/db/replicas";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { createKey, createOrg, trpcHttp } from "../support/agents";

/**
 * Reads that fail on a replica run again on the primary, whatever the tool does with errors of its
 * own. The "replica" is a port where nothing listens (a stopped standby: connection refused), taken
 * as up as it was a moment before; only the primary is a real Postgres, so no standby is needed.
 */
describe.runIf(TEST_BACKEND === "postgres")("reads on a replica that fails fast", () => {
  let handle: TestDatabase;
  let stopped: TestDatabase;
  let pool: ReadReplicas;
  let replicas: ReadReplicas;

  beforeAll(async () => {
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = probe.address() as net.AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    handle = await openTestDatabase();
    // A pool to the dead port (attachReadReplicas opens it; its own monitor is not used).
    stopped = await openTestDatabase();
    pool = await attachReadReplicas(stopped, [`postgres://postgres@127.0.0.1:${port.port}/gone`], {
      maxLagMs: 5000,
      checkMs: 60_000,
      poolMax: 1,
    });
    unregisterReadReplicas(pool);
  });
  afterAll(async () => {
    if (replicas) unregisterReadReplicas(replicas);
    await pool?.close();
    await stopped?.destroy();
    await handle?.destroy();
  });

  const asUp = () => {
    if (replicas) unregisterReadReplicas(replicas);
    replicas = new ReadReplicas(handle.db, [{ name: "stopped", db: pool.replicas[0]!.db, close: async () => {} }], {
      maxLagMs: 5000,
      checkMs: 60_000,
    });
    replicas.replicas[0]!.status = {
      name: "stopped",
      state: "up",
      reachable: true,
      lagMs: 0,
      replayLsn: null,
      error: null,
    };
    registerReadReplicas(replicas);
  };

  it("memory_context answers in full from the primary instead of a degraded context from the replica", async () => {
    const org = await createOrg(handle.db);
    const key = await createKey(handle.db, { tenantId: org.tenantId, ownerUserId: org.adminId });
    // Written before the replica is attached: on the primary, and no read-your-writes position to wait for.
    const written = await trpcHttp(handle.db, "tools.memory_write", {
      bearer: key.secret,
      body: {
        operations: [
          {
            op: "create",
            kind: "occupation",
            explicitUserIntent: true,
            scope: `user:${org.adminId}`,
            node: {
              title: "Lighthouse keeper",
              content: "Works as a lighthouse keeper on Skerryvore.",
              valueJson: "lighthouse keeper",
            },
          },
        ],
      },
    });
    expect(written.status).toBe(200);
    asUp();
    const res = await trpcHttp(handle.db, "tools.memory_context", {
      bearer: key.secret,
      body: { queryText: "what is my job", turn: { sessionId: "fallback" } },
    });
    expect(res.status).toBe(200);
    const context = res.json.result?.data as {
      prompt: string;
      diagnostics: { enabled: boolean; storeStatus: string; warnings: string[] };
    };
    expect(context.diagnostics).toMatchObject({ enabled: true, storeStatus: "ok" });
    expect(context.diagnostics.warnings.join(" ")).not.toMatch(/unavailable/);
    expect(context.prompt).toContain("Skerryvore");
    // The refused connection took the replica out of rotation.
    expect(replicas.statuses()[0]).toMatchObject({ state: "down", reachable: false });
  });
});
