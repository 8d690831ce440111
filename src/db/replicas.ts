import { sql } from "drizzle-orm";
import { queryRows } from "./raw";
import type { Database, DbOrTx } from "./types";

/**
 * Read replicas of a server-mode database: hot standbys fed by Postgres' own streaming replication
 * (DATABASE_READ_URL). This module knows where each replica's replay stands and whether it may take
 * reads; which work is a read is decided by the caller's kind (src/server/db-routing.ts), never here.
 *
 * A replica is `up` (reads may go there), `lagging` (reachable, but its replay is further behind the
 * primary than maxLagMs) or `down` (refused or lost a connection). A monitor probes every replica
 * and the primary's WAL position every `checkMs`, so a down or lagging replica comes back by itself.
 */

export type ReplicaState = "up" | "lagging" | "down";

export type ReplicaStatus = {
  /** host:port/database of the replica (no user or password). */
  name: string;
  state: ReplicaState;
  reachable: boolean;
  /** How far its replay is behind the primary, in ms (null until measured or while down). */
  lagMs: number | null;
  /** pg_last_wal_replay_lsn() at the last probe. */
  replayLsn: string | null;
  /** Why it is down (the last error), else null. */
  error: string | null;
};

export type ReplicaOptions = {
  /** A replica further behind than this takes no reads (DATABASE_READ_MAX_LAG_MS). */
  maxLagMs: number;
  /** Probe interval. */
  checkMs?: number;
  /**
   * How long a probe, or pick()'s replay check, may wait for an answer before the replica counts as
   * down (default max(checkMs, 2000)): a standby that stops answering without closing its connection
   * is taken out of rotation instead of holding reads.
   */
  timeoutMs?: number;
  /** How long one read on a replica may run (DATABASE_READ_TIMEOUT_MS): statement_timeout there, and routing's wait. */
  readTimeoutMs?: number;
  /** Told once per state change of a replica, and of its first probe (`previous` null), so a replica down from the start is reported too (the server logs it). */
  onStateChange?: (status: ReplicaStatus, previous: ReplicaState | null) => void;
};

export type Replica = {
  readonly name: string;
  readonly db: Database;
  status: ReplicaStatus;
  /** The replay position of the last probe, as a number (compare with parseLsn). */
  replay: bigint | null;
  /** Since when the oldest statement still unanswered was sent (a hung standby): past timeoutMs, no more are queued behind it. */
  pending?: { since: number };
  /** Whether a probe has set its state yet (before that it is "down", "not probed yet"). */
  probed?: boolean;
};

export type ReplicaHandle = { name: string; db: Database; close: () => Promise<void> };

/** A WAL position `X/Y` (two hex numbers) as one number; null for anything else. */
export function parseLsn(text: unknown): bigint | null {
  if (typeof text !== "string") return null;
  const match = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text.trim());
  if (!match) return null;
  return (BigInt(`0x${match[1]}`) << 32n) + BigInt(`0x${match[2]}`);
}

export function formatLsn(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

/** host:port/database of a postgres:// URL, for logs and /api/health. */
export function replicaName(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || "5432"}${parsed.pathname}`;
  } catch {
    return "replica";
  }
}

/** The error a replica that did not answer in time fails with (ETIMEDOUT: a lost connection to routing). */
export class ReplicaTimeoutError extends Error {
  readonly code = "ETIMEDOUT";
  constructor(what: string, ms: number) {
    super(`${what} got no answer within ${ms} ms (the standby accepts connections but does not answer)`);
  }
}

/** `promise`, or a ReplicaTimeoutError after `ms` (the statement itself is left to the driver). */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ReplicaTimeoutError(what, ms)), ms);
    timer.unref?.();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The innermost cause's message (a driver wraps "connection refused" in "Failed query: …", which quotes SQL). */
function describe(error: unknown): string {
  let e = error;
  for (let depth = 0; depth < 5 && e instanceof Error && e.cause !== undefined; depth++) e = e.cause;
  return (e instanceof Error ? e.message : String(e)).slice(0, 300);
}

export class ReadReplicas {
  readonly replicas: Replica[];
  private readonly options: Required<Omit<ReplicaOptions, "onStateChange" | "timeoutMs" | "readTimeoutMs">> &
    Pick<ReplicaOptions, "onStateChange">;
  /** How long routing waits for one read on a replica before running it on the primary (ReplicaOptions.readTimeoutMs). */
  readonly readTimeoutMs: number | undefined;
  /** How long one probe or replay check may take (ReplicaOptions.timeoutMs). */
  readonly timeoutMs: number;
  /** Primary WAL positions seen by the monitor, oldest first: how lag is measured. */
  private samples: { lsn: bigint; at: number }[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private probing: Promise<void> | undefined;
  private closed = false;
  private next = 0;

  constructor(
    readonly primary: Database,
    private readonly handles: ReplicaHandle[],
    options: ReplicaOptions,
  ) {
    this.options = { checkMs: 1000, ...options };
    this.timeoutMs = options.timeoutMs ?? Math.max(this.options.checkMs, 2000);
    this.readTimeoutMs = options.readTimeoutMs;
    this.replicas = handles.map((h) => ({
      name: h.name,
      db: h.db,
      replay: null,
      status: { name: h.name, state: "down", reachable: false, lagMs: null, replayLsn: null, error: "not probed yet" },
    }));
  }

  /** Probes once now, then every checkMs in the background (the timer does not keep a process alive). */
  async start(): Promise<void> {
    await this.probe();
    this.schedule();
  }

  private schedule() {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      void this.probe().finally(() => this.schedule());
    }, this.options.checkMs);
    this.timer.unref?.();
  }

  /** One round of probes: the primary's position, then each replica's replay. Never throws. */
  probe(): Promise<void> {
    this.probing ??= this.probeAll().finally(() => {
      this.probing = undefined;
    });
    return this.probing;
  }

  private async probeAll() {
    const now = Date.now();
    try {
      const [row] = await withTimeout(
        queryRows<{ lsn: string }>(this.primary, sql`select pg_current_wal_lsn()::text as lsn`),
        this.timeoutMs,
        "the primary's WAL position",
      );
      const lsn = parseLsn(row?.lsn);
      if (lsn !== null && (this.samples.at(-1)?.lsn ?? -1n) < lsn) this.samples.push({ lsn, at: now });
    } catch {
      // The primary being away is the primary's problem; the replicas' replay is still measured.
    }
    // Samples older than needed to tell "behind by more than maxLag" are dropped, keeping one older.
    const horizon = now - 4 * this.options.maxLagMs - 10 * this.options.checkMs;
    while (this.samples.length > 1 && this.samples[1]!.at < horizon) this.samples.shift();
    // Each replica on its own, each bounded: one that does not answer delays neither the others nor this round.
    await Promise.all(this.replicas.map((replica) => this.probeReplica(replica)));
  }

  /** A statement on a replica, bounded by timeoutMs; while one is unanswered, the next fails at once instead of queueing. */
  private ask<T>(replica: Replica, what: string, query: () => Promise<T>): Promise<T> {
    if (replica.pending && Date.now() - replica.pending.since > this.timeoutMs) {
      return Promise.reject(
        new ReplicaTimeoutError(`${what} (an earlier statement is still unanswered)`, this.timeoutMs),
      );
    }
    const running = query();
    replica.pending ??= { since: Date.now() };
    // Any answer (or error) shows the standby talks again.
    const answered = () => {
      replica.pending = undefined;
    };
    void running.then(answered, answered);
    return withTimeout(running, this.timeoutMs, what);
  }

  private async probeReplica(replica: Replica) {
    try {
      const [row] = await this.ask(replica, `probe of replica ${replica.name}`, () =>
        queryRows<{ recovery: boolean; lsn: string | null }>(
          replica.db,
          sql`select pg_is_in_recovery() as recovery, pg_last_wal_replay_lsn()::text as lsn`,
        ),
      );
      if (!row?.recovery)
        throw new Error(
          "not a standby (pg_is_in_recovery() is false): reads there would miss nothing, but writes could go to it by mistake; point DATABASE_READ_URL at a hot standby",
        );
      const replay = parseLsn(row.lsn);
      replica.replay = replay;
      const lagMs = this.lagOf(replay, Date.now());
      this.setStatus(replica, {
        state: lagMs !== null && lagMs > this.options.maxLagMs ? "lagging" : "up",
        reachable: true,
        lagMs,
        replayLsn: row.lsn,
        error: null,
      });
    } catch (error) {
      this.setStatus(replica, {
        state: "down",
        reachable: false,
        lagMs: null,
        replayLsn: replica.status.replayLsn,
        error: describe(error),
      });
    }
  }

  /** How long ago the primary first stood past `replay` (0: the replica has replayed all it saw). */
  private lagOf(replay: bigint | null, now: number): number | null {
    if (replay === null) return null;
    const ahead = this.samples.find((s) => s.lsn > replay);
    return ahead ? now - ahead.at : 0;
  }

  private setStatus(replica: Replica, next: Omit<ReplicaStatus, "name">) {
    const previous = replica.probed ? replica.status.state : null;
    replica.probed = true;
    replica.status = { name: replica.name, ...next };
    if (previous !== next.state) {
      this.options.onStateChange?.(replica.status, previous);
      for (const listener of stateListeners) listener(replica.status, previous);
    }
  }

  /** A read on this replica failed with a database or connection error: no reads there until a probe says it is back. */
  markDown(replica: Replica, error: unknown) {
    if (replica.status.state === "down") return;
    this.setStatus(replica, {
      state: "down",
      reachable: false,
      lagMs: null,
      replayLsn: replica.status.replayLsn,
      error: describe(error),
    });
  }

  /**
   * A replica that may take a read needing WAL position `atLeast` (null: any up replica), round-robin;
   * null when none can (then the read goes to the primary). A replica whose last probe is behind
   * `atLeast` is asked once more for its replay position before it is passed over.
   */
  async pick(atLeast: bigint | null): Promise<Replica | null> {
    const count = this.replicas.length;
    for (let i = 0; i < count; i++) {
      const replica = this.replicas[(this.next + i) % count]!;
      if (replica.status.state !== "up") continue;
      if (atLeast !== null && (replica.replay === null || replica.replay < atLeast)) {
        try {
          const [row] = await this.ask(replica, `replay check of replica ${replica.name}`, () =>
            queryRows<{ lsn: string | null }>(replica.db, sql`select pg_last_wal_replay_lsn()::text as lsn`),
          );
          const replay = parseLsn(row?.lsn);
          if (replay !== null && (replica.replay === null || replay > replica.replay)) replica.replay = replay;
        } catch (error) {
          this.markDown(replica, error);
          continue;
        }
        if (replica.replay === null || replica.replay < atLeast) continue;
      }
      this.next = (this.next + i + 1) % count;
      return replica;
    }
    return null;
  }

  /** The primary's WAL position now: every transaction committed before this call is at or before it. */
  async primaryLsn(): Promise<bigint | null> {
    const [row] = await queryRows<{ lsn: string }>(this.primary, sql`select pg_current_wal_lsn()::text as lsn`);
    return parseLsn(row?.lsn);
  }

  statuses(): ReplicaStatus[] {
    return this.replicas.map((r) => ({ ...r.status }));
  }

  async close() {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    // Probes are bounded by timeoutMs, so this wait is too (a hung standby's sockets are then ended by close()).
    await this.probing;
    await Promise.all(this.handles.map((h) => h.close().catch(() => {})));
  }
}

type StateListener = (status: ReplicaStatus, previous: ReplicaState | null) => void;
// Next.js bundles route handlers apart from start-up code; the database handle is shared on globalThis,
// so what belongs to it is too.
type Shared = {
  listeners: Set<StateListener>;
  replicasOfPrimary: WeakMap<object, ReadReplicas>;
  primaryOfReplica: WeakMap<object, Database>;
};
const shared = ((globalThis as Record<symbol, unknown>)[Symbol.for("agent-memory.readReplicas")] ??= {
  listeners: new Set(),
  replicasOfPrimary: new WeakMap(),
  primaryOfReplica: new WeakMap(),
}) as Shared;
const stateListeners = shared.listeners;
/** Called on every state change of every replica in this process (the server's log subscribes). */
export function onReplicaStateChange(listener: StateListener): () => void {
  stateListeners.add(listener);
  return () => stateListeners.delete(listener);
}

// ---- which handle belongs to which ----------------------------------------------------------------

const { replicasOfPrimary, primaryOfReplica } = shared;

/** Makes `replicas` the read replicas of their primary handle (and each replica's handle lead back to it). */
export function registerReadReplicas(replicas: ReadReplicas) {
  replicasOfPrimary.set(replicas.primary, replicas);
  for (const replica of replicas.replicas) primaryOfReplica.set(replica.db, replicas.primary);
}

export function unregisterReadReplicas(replicas: ReadReplicas) {
  if (replicasOfPrimary.get(replicas.primary) === replicas) replicasOfPrimary.delete(replicas.primary);
}

/** The read replicas of a primary handle; undefined in embedded mode and without DATABASE_READ_URL. */
export const readReplicasOf = (db: DbOrTx): ReadReplicas | undefined => replicasOfPrimary.get(db);

/**
 * Where a write meant for `db` must go: the primary when `db` is a replica's handle (bookkeeping rows
 * a read leaves behind, such as the query log), else `db` itself.
 */
export const writeTargetOf = <D extends DbOrTx>(db: D): D | Database => primaryOfReplica.get(db) ?? db;

/** Whether `db` is a read replica's handle. */
export const isReplicaHandle = (db: DbOrTx): boolean => primaryOfReplica.has(db);
