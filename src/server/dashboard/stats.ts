import { and, desc, eq, sql } from "drizzle-orm";
import { queryRows } from "~/db/raw";
import type { DbOrTx } from "~/db/types";
import { apiKeys, memoryAuditEvents, memoryNodes } from "~/db/schema";
import { type ScopePattern, scopePatternsCondition } from "~/server/memory";

export type CountBy<K extends string> = { [P in K]: string } & { count: number };

export type DashboardStats = {
  days: number;
  timeZone: string;
  byKind: CountBy<"kind">[];
  byScopeType: CountBy<"scopeType">[];
  byStatus: CountBy<"status">[];
  /** One row per day in the window (zero-filled), writes split by event type. */
  writesPerDay: {
    day: string;
    create: number;
    update: number;
    supersede: number;
    expire: number;
    delete: number;
    rejected: number;
    total: number;
  }[];
  /** Searches and context builds per day, with that day's latency percentiles (ms). */
  searchesPerDay: { day: string; count: number; p50: number | null; p95: number | null }[];
  latency: {
    count: number;
    p50: number | null;
    p95: number | null;
    byOperation: { operation: string; count: number; p50: number | null; p95: number | null }[];
  };
};

const WRITE_EVENTS = ["create", "update", "supersede", "expire", "delete", "rejected"] as const;
const round = (v: unknown) => (v === null || v === undefined ? null : Math.round(Number(v) * 10) / 10);

/** The window's days as `YYYY-MM-DD` in `timeZone`, oldest first. */
export function dayRange(days: number, timeZone: string, now = new Date()): string[] {
  const format = new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" });
  const out: string[] = [];
  for (let i = days - 1; i >= 0; i--) out.push(format.format(new Date(now.getTime() - i * 86_400_000)));
  return [...new Set(out)];
}

/**
 * Query-log rows of one person: their own searches in the dashboard and their keys' calls. The log
 * names the caller, not the scopes searched, so this is what a member may see of it.
 */
function searchesBy(tenantId: string, userId: string | undefined) {
  if (userId === undefined) return sql``;
  return sql`and ((actor_type = 'user' and actor_id = ${userId})
              or (actor_type = 'api_key' and actor_id in (select ${apiKeys.id} from ${apiKeys} where ${apiKeys.tenantId} = ${tenantId} and ${apiKeys.ownerUserId} = ${userId})))`;
}

/**
 * Stats for the dashboard: cards by kind / scope type / status over the viewer's readable scopes;
 * writes (audit events) and searches (query log) per day in the viewer's time zone; search latency
 * percentiles. Admins count the organisation's writes and searches; members the writes in scopes they
 * may read and the searches they and their keys ran.
 */
export async function getDashboardStats(
  db: DbOrTx,
  params: {
    tenantId: string;
    readScopes: readonly ScopePattern[];
    days?: number;
    timeZone?: string;
    now?: Date;
    /** Admins count every audit event; members those of scopes they may read (as the audit page lists them). */ allEvents?: boolean;
    /** Count only this person's searches (theirs and their keys'); admins leave it out to count everyone's. */ searchesOf?: string;
  },
): Promise<DashboardStats> {
  const days = Math.min(Math.max(Math.trunc(params.days ?? 30), 1), 366);
  const timeZone = params.timeZone ?? "UTC";
  const now = params.now ?? new Date();
  const sinceText = new Date(now.getTime() - days * 86_400_000).toISOString();
  const n = sql<number>`count(*)`.mapWith(Number);
  const readable = and(eq(memoryNodes.tenantId, params.tenantId), scopePatternsCondition(params.readScopes));
  const active = and(readable, eq(memoryNodes.status, "active"));
  const searchLog = sql`tenant_id = ${params.tenantId} and created_at >= ${sinceText}::timestamptz ${searchesBy(params.tenantId, params.searchesOf)}`;

  const [byKind, byScopeType, byStatus, writes, searches, latency, byOperation] = await Promise.all([
    db
      .select({ kind: memoryNodes.kind, count: n })
      .from(memoryNodes)
      .where(active)
      .groupBy(memoryNodes.kind)
      .orderBy(desc(n))
      .limit(30),
    db
      .select({ scopeType: memoryNodes.scopeType, count: n })
      .from(memoryNodes)
      .where(active)
      .groupBy(memoryNodes.scopeType)
      .orderBy(desc(n)),
    db
      .select({ status: memoryNodes.status, count: n })
      .from(memoryNodes)
      .where(readable)
      .groupBy(memoryNodes.status)
      .orderBy(desc(n)),
    queryRows<{ day: string; event_type: string; n: number }>(
      db,
      sql`select to_char(created_at at time zone ${timeZone}, 'YYYY-MM-DD') as day, event_type, count(*)::int as n
            from memory_audit_events
           where tenant_id = ${params.tenantId} and created_at >= ${sinceText}::timestamptz
             ${params.allEvents ? sql`` : sql`and ${scopePatternsCondition(params.readScopes, memoryAuditEvents)}`}
           group by 1, 2`,
    ),
    queryRows<{ day: string; n: number; p50: number | null; p95: number | null }>(
      db,
      sql`select to_char(created_at at time zone ${timeZone}, 'YYYY-MM-DD') as day, count(*)::int as n,
                 percentile_cont(0.5) within group (order by latency_ms) as p50,
                 percentile_cont(0.95) within group (order by latency_ms) as p95
            from memory_query_log
           where ${searchLog}
           group by 1`,
    ),
    queryRows<{ n: number; p50: number | null; p95: number | null }>(
      db,
      sql`select count(*)::int as n,
                 percentile_cont(0.5) within group (order by latency_ms) as p50,
                 percentile_cont(0.95) within group (order by latency_ms) as p95
            from memory_query_log
           where ${searchLog}`,
    ),
    queryRows<{ operation: string; n: number; p50: number | null; p95: number | null }>(
      db,
      sql`select operation, count(*)::int as n,
                 percentile_cont(0.5) within group (order by latency_ms) as p50,
                 percentile_cont(0.95) within group (order by latency_ms) as p95
            from memory_query_log
           where ${searchLog}
           group by operation order by 2 desc`,
    ),
  ]);

  const range = dayRange(days, timeZone, now);
  const writesByDay = new Map(
    range.map((day) => [day, { day, create: 0, update: 0, supersede: 0, expire: 0, delete: 0, rejected: 0, total: 0 }]),
  );
  for (const row of writes) {
    const entry = writesByDay.get(row.day);
    const type = row.event_type === "hard_delete" ? "delete" : row.event_type;
    if (!entry || !(WRITE_EVENTS as readonly string[]).includes(type)) continue;
    entry[type as (typeof WRITE_EVENTS)[number]] += Number(row.n);
    entry.total += Number(row.n);
  }
  const searchesByDay = new Map(searches.map((row) => [row.day, row]));
  const overall = latency[0];
  return {
    days,
    timeZone,
    byKind,
    byScopeType,
    byStatus,
    writesPerDay: [...writesByDay.values()],
    searchesPerDay: range.map((day) => {
      const row = searchesByDay.get(day);
      return { day, count: Number(row?.n ?? 0), p50: round(row?.p50), p95: round(row?.p95) };
    }),
    latency: {
      count: Number(overall?.n ?? 0),
      p50: round(overall?.p50),
      p95: round(overall?.p95),
      byOperation: byOperation.map((row) => ({
        operation: row.operation,
        count: Number(row.n),
        p50: round(row.p50),
        p95: round(row.p95),
      })),
    },
  };
}
