import { and, desc, eq, gte, inArray, isNull, lt, lte, or, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { DbOrTx } from "~/db/types";
import { ACTOR_TYPES, memoryAuditEvents, type TenantRole } from "~/db/schema";
import { parseScope, type ScopePattern, scopePatternsCondition } from "~/server/memory";
import { toAuditEntries, type AuditEntry } from "./audit-entries";
import { clampLimit, decodeCursor, encodeCursor } from "./cursor";

export const AUDIT_EVENT_TYPES = memoryAuditEvents.eventType.enumValues;
export const AUDIT_PAGE = { default: 50, max: 500 } as const;

export const auditFilterSchema = z.object({
  eventTypes: z.array(z.enum(AUDIT_EVENT_TYPES)).max(AUDIT_EVENT_TYPES.length).optional(),
  actorType: z.enum(ACTOR_TYPES).optional(),
  actorId: z.string().trim().min(1).max(200).optional(),
  /** A card id or its lineage id: the chain's whole history. */
  nodeId: z.string().trim().min(1).max(100).optional(),
  scope: z.string().trim().min(1).max(220).optional(),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
});
export type AuditFilter = z.infer<typeof auditFilterSchema>;

export type AuditViewer = { tenantId: string; role: TenantRole; readScopes: readonly ScopePattern[] };

/**
 * Which events a viewer may see: admins everything in the tenant; members only events about scopes
 * they can read (events without a scope — members, keys, grants, policy — are admin business).
 */
function visibleEvents(viewer: AuditViewer): SQL[] {
  const conditions: SQL[] = [eq(memoryAuditEvents.tenantId, viewer.tenantId)];
  if (viewer.role !== "admin") conditions.push(scopePatternsCondition(viewer.readScopes, memoryAuditEvents));
  return conditions;
}

export function auditFilterConditions(viewer: AuditViewer, filter: AuditFilter): SQL[] {
  const conditions = visibleEvents(viewer);
  if (filter.eventTypes?.length) conditions.push(inArray(memoryAuditEvents.eventType, filter.eventTypes));
  if (filter.actorType) conditions.push(eq(memoryAuditEvents.actorType, filter.actorType));
  if (filter.actorId) conditions.push(eq(memoryAuditEvents.actorId, filter.actorId));
  if (filter.nodeId)
    conditions.push(or(eq(memoryAuditEvents.nodeId, filter.nodeId), eq(memoryAuditEvents.lineageId, filter.nodeId))!);
  if (filter.scope) {
    const scope = parseScope(filter.scope);
    conditions.push(
      eq(memoryAuditEvents.scopeType, scope.type),
      scope.type === "global"
        ? or(eq(memoryAuditEvents.scopeId, ""), isNull(memoryAuditEvents.scopeId))!
        : eq(memoryAuditEvents.scopeId, scope.id),
    );
  }
  if (filter.from) conditions.push(gte(memoryAuditEvents.createdAt, new Date(filter.from)));
  if (filter.to) conditions.push(lte(memoryAuditEvents.createdAt, new Date(filter.to)));
  return conditions;
}

/** One page of the audit log, newest first, keyset on the event id (primary key: tenant_id, id). */
export async function listAuditEvents(
  db: DbOrTx,
  params: { viewer: AuditViewer; filter: AuditFilter; cursor?: string | null; limit?: number },
): Promise<{ events: AuditEntry[]; nextCursor: string | null }> {
  const limit = clampLimit(params.limit, AUDIT_PAGE.default, AUDIT_PAGE.max);
  const conditions = auditFilterConditions(params.viewer, params.filter);
  if (params.cursor) {
    const [beforeId] = decodeCursor<[number]>(params.cursor, ["integer"]);
    conditions.push(lt(memoryAuditEvents.id, beforeId));
  }
  const rows = await db
    .select()
    .from(memoryAuditEvents)
    .where(and(...conditions))
    .orderBy(desc(memoryAuditEvents.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  return {
    events: await toAuditEntries(db, params.viewer.tenantId, page),
    nextCursor: rows.length > limit ? encodeCursor([page.at(-1)!.id]) : null,
  };
}

/** Every matching event, page by page (for downloads): memory stays flat however long the log is. */
export async function* iterateAuditEvents(
  db: DbOrTx,
  params: { viewer: AuditViewer; filter: AuditFilter; pageSize?: number },
): AsyncGenerator<AuditEntry> {
  let cursor: string | null = null;
  do {
    const page = await listAuditEvents(db, { ...params, cursor, limit: params.pageSize ?? AUDIT_PAGE.max });
    yield* page.events;
    cursor = page.nextCursor;
  } while (cursor);
}

const CSV_COLUMNS = [
  "id",
  "createdAt",
  "eventType",
  "actorType",
  "actorId",
  "actor",
  "subject",
  "scope",
  "scopeName",
  "nodeId",
  "lineageId",
  "reason",
  "toolCallId",
  "before",
  "after",
  "metadata",
] as const;

function csvCell(value: unknown): string {
  const text = value === null || value === undefined ? "" : typeof value === "string" ? value : JSON.stringify(value);
  // Quote everything that could split a cell or start a spreadsheet formula.
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\n\r']/.test(safe) || safe !== text ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export const auditCsvHeader = () => `${CSV_COLUMNS.join(",")}\n`;

export function auditCsvLine(e: AuditEntry): string {
  const values: Record<(typeof CSV_COLUMNS)[number], unknown> = {
    id: e.id,
    createdAt: e.createdAt,
    eventType: e.eventType,
    actorType: e.actor.type,
    actorId: e.actor.id,
    actor: e.actor.label,
    subject: e.subject ? `${e.subject.label}${e.subject.owner ? ` (${e.subject.owner.label})` : ""}` : null,
    scope: e.scope,
    scopeName: e.scopeLabel?.name ?? null,
    nodeId: e.nodeId,
    lineageId: e.lineageId,
    reason: e.reason,
    toolCallId: e.toolCallId,
    before: e.before,
    after: e.after,
    metadata: e.metadata,
  };
  return `${CSV_COLUMNS.map((c) => csvCell(values[c])).join(",")}\n`;
}

export const auditJsonLine = (e: AuditEntry) => `${JSON.stringify(e)}\n`;

/** URL → audit filter (dropping malformed values), shared by the page and the download route. */
export function auditFilterFromSearchParams(
  params: Record<string, string | string[] | undefined> | URLSearchParams,
): AuditFilter {
  const get = (name: string) =>
    params instanceof URLSearchParams
      ? params.getAll(name)
      : [params[name]].flat().filter((v): v is string => typeof v === "string");
  const first = (name: string) => get(name)[0]?.trim() || undefined;
  const day = (name: string, end: boolean) => {
    const value = first(name);
    if (!value) return undefined;
    const iso = /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T${end ? "23:59:59.999" : "00:00:00.000"}Z` : value;
    return Number.isNaN(Date.parse(iso)) ? undefined : new Date(iso).toISOString();
  };
  const raw = {
    eventTypes: get("event")
      .flatMap((v) => v.split(","))
      .filter(Boolean),
    actorType: first("actorType"),
    actorId: first("actorId"),
    nodeId: first("node"),
    scope: first("scope"),
    from: day("from", false),
    to: day("to", true),
  };
  const cleaned = Object.fromEntries(
    Object.entries(raw).filter(([, v]) => v !== undefined && !(Array.isArray(v) && v.length === 0)),
  );
  const parsed = auditFilterSchema.safeParse(cleaned);
  return parsed.success ? parsed.data : {};
}
