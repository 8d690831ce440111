import net from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { attachReadReplicas } from "~/db/client";
import { onReplicaStateChange, unregisterReadReplicas, type ReadReplicas, type ReplicaStatus } from "~/db/replicas";
import "~/server/db-routing"; // the server's log subscribes to replica states here
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";

/**
 * A replica that is down when the server starts is reported as an operator would want: one warning
 * with the reason, as for a replica that goes down later, and nothing more while it stays down. The
 * "replica" is a port where nothing listens; only the primary is a real Postgres.
 */
describe.runIf(TEST_BACKEND === "postgres")("a read replica down from the start", () => {
  let handle: TestDatabase;
  let replicas: ReadReplicas | undefined;
  let port: number;

  beforeAll(async () => {
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    port = (probe.address() as net.AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    handle = await openTestDatabase();
  });
  afterAll(async () => {
    if (replicas) {
      unregisterReadReplicas(replicas);
      await replicas.close();
    }
    await handle?.destroy();
  });

  it("logs one warning with the reason at the first probe, and none while it stays down", async () => {
    const seen: { status: ReplicaStatus; previous: string | null }[] = [];
    const stop = onReplicaStateChange((status, previous) => seen.push({ status: { ...status }, previous }));
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      replicas = await attachReadReplicas(handle, [`postgres://postgres@127.0.0.1:${port}/gone`], {
        maxLagMs: 5000,
        checkMs: 60_000,
        poolMax: 1,
      });
      expect(replicas.statuses()[0]).toMatchObject({ state: "down", reachable: false });
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({ previous: null, status: { state: "down", reachable: false } });
      expect(seen[0]!.status.error).toMatch(/ECONNREFUSED|connect/i);
      const warned = errors.mock.calls.map(([line]) => String(line)).filter((line) => line.includes("is down"));
      expect(warned).toHaveLength(1);
      expect(warned[0]).toMatch(/WARN read replica .* is down \(.+\): its reads go to the primary/);

      await replicas.probe();
      await replicas.probe();
      expect(seen).toHaveLength(1);
      expect(errors.mock.calls.filter(([line]) => String(line).includes("is down"))).toHaveLength(1);
    } finally {
      stop();
      errors.mockRestore();
    }
  });
});
