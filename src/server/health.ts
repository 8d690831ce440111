import { sql } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client";
import { schemaVersion } from "~/db/migrate";
import { queryRows } from "~/db/raw";
import type { ReplicaState } from "~/db/replicas";
import { agentFrontDoor } from "~/server/http/front-door";

export type Health = {
  status: "ok";
  database: {
    mode: "embedded" | "server";
    schemaVersion: string | null;
    extensions: Record<string, string>;
    postgres: string;
  };
  /** `listener`: agent calls are answered in front of Next.js (scripts/server.mjs); `next-routes`: by its routes. */
  agentEndpoint: "listener" | "next-routes";
  /**
   * With DATABASE_READ_URL only: each read replica, whether it is reachable and how far behind it is.
   * Public (no sign-in), so no host, port, database or driver error: `replica` is its position in
   * DATABASE_READ_URL (1 = first); the log and /api/metrics name it.
   */
  replicas?: PublicReplicaStatus[];
};

export type PublicReplicaStatus = { replica: number; state: ReplicaState; reachable: boolean; lagMs: number | null };

export async function getHealth(handle: DatabaseHandle): Promise<Health> {
  const [extensions, version, [pg]] = await Promise.all([
    queryRows<{ extname: string; extversion: string }>(
      handle.db,
      sql`select extname, extversion from pg_extension order by extname`,
    ),
    schemaVersion(handle.db),
    queryRows<{ v: string }>(handle.db, sql`select current_setting('server_version') as v`),
  ]);
  return {
    status: "ok",
    database: {
      mode: handle.mode,
      schemaVersion: version,
      extensions: Object.fromEntries(extensions.map((e) => [e.extname, e.extversion])),
      postgres: pg?.v ?? "unknown",
    },
    agentEndpoint: agentFrontDoor(),
    ...(handle.readReplicas
      ? {
          replicas: handle.readReplicas
            .statuses()
            .map((s, i) => ({ replica: i + 1, state: s.state, reachable: s.reachable, lagMs: s.lagMs })),
        }
      : {}),
  };
}
