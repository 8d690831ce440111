import { and, asc, eq, gt, inArray } from "drizzle-orm";
import { z } from "zod";
import type { Database, DbOrTx } from "~/db/types";
import { memoryNodes, CARD_STATUSES } from "~/db/schema";
import { knownServiceError } from "~/server/errors";
import { logServerError } from "~/server/log";
import {
  formatScope,
  getAllMessagesByIds,
  type MemoryCallContext,
  memoryWrite,
  parseScope,
  recordAudit,
  type ScopePattern,
  scopePatternsCondition,
  WRITE_LIMITS,
} from "~/server/memory";
import { unknownScopeRefusals } from "./scope-labels";
import { sessionReadable } from "./sessions";
import { clampLimit } from "./cursor";
import { requireReadableScopes } from "./scope-access";

/**
 * JSONL import/export of memory cards. One line = one card, in the shape `memory_write` creates take,
 * so an export of one organisation imports into another (or back after a reset) through the normal
 * write path: canonical keys, noop on identical content, audit rows, policy checks.
 */

export const TRANSFER_FORMAT = "memory-card/v1";

export type ExportedCard = {
  format: typeof TRANSFER_FORMAT;
  kind: string;
  itemKey: string | null;
  scope: string;
  title: string;
  content: string;
  valueJson: unknown;
  tags: string[];
  entities: string[];
  confidence: number;
  importance: number;
  expiresAt: string | null;
  /** Whether the user asked for it (false: inferred). Kept across a round trip: an inferred card must not come back explicit and win conflicts it would lose. */
  explicitUserIntent: boolean;
  /** Informational: secrets in the text were replaced by `[REDACTED:<type>]` marks (an import recognises the marks). */
  redacted: boolean;
  /** Informational: where it came from. Import ignores these. */
  source: { id: string; key: string; revision: number; status: string; updatedAt: string };
  /** With includeEvidence: the messages the card cites. */
  evidence?: { id: string; sessionId: string; role: string; content: string; createdAt: string }[];
};

export const EXPORT_PAGE = { default: 500, max: 1000 } as const;

export type ExportParams = {
  tenantId: string;
  readScopes: readonly ScopePattern[];
  scopes?: string[];
  statuses?: (typeof CARD_STATUSES)[number][];
  includeEvidence?: boolean;
};

/** One page of the export in id order (keyset on the primary key), evidence attached when asked. */
export async function exportCardsPage(
  db: DbOrTx,
  params: ExportParams & { after?: string | null; limit?: number },
): Promise<{ cards: ExportedCard[]; nextCursor: string | null }> {
  const scopes = requireReadableScopes(params.readScopes, params.scopes);
  const statuses = params.statuses?.length ? params.statuses : ["active" as const];
  const limit = clampLimit(params.limit, EXPORT_PAGE.default, EXPORT_PAGE.max);
  const rows = await db
    .select()
    .from(memoryNodes)
    .where(
      and(
        eq(memoryNodes.tenantId, params.tenantId),
        scopePatternsCondition(scopes),
        inArray(memoryNodes.status, statuses),
        gt(memoryNodes.id, params.after ?? ""),
      ),
    )
    .orderBy(asc(memoryNodes.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const evidence = params.includeEvidence
    ? new Map(
        (
          await getAllMessagesByIds(db, { tenantId: params.tenantId, ids: page.flatMap((r) => r.sourceMessageIds) })
        ).map((m) => [m.id, m]),
      )
    : null;
  const cards = page.map((row) => {
    const card: ExportedCard = {
      format: TRANSFER_FORMAT,
      kind: row.kind,
      itemKey: row.itemKey,
      scope: formatScope({ type: row.scopeType, id: row.scopeId }),
      title: row.title,
      content: row.content,
      valueJson: row.valueJson,
      tags: row.tags,
      entities: row.entities,
      confidence: row.confidence,
      importance: row.importance,
      expiresAt: row.expiresAt?.toISOString() ?? null,
      explicitUserIntent: row.explicitUserIntent,
      redacted: row.redacted,
      source: {
        id: row.id,
        key: row.key,
        revision: row.revision,
        status: row.status,
        updatedAt: row.updatedAt.toISOString(),
      },
    };
    if (evidence) {
      card.evidence = row.sourceMessageIds
        .map((id) => evidence.get(id))
        .filter((m) => m !== undefined)
        .filter((m) => sessionReadable(params.readScopes, m.sessionId))
        .map((m) => ({
          id: m.id,
          sessionId: m.sessionId,
          role: m.role,
          content: m.content,
          createdAt: m.createdAt.toISOString(),
        }));
    }
    return card;
  });
  return { cards, nextCursor: rows.length > limit ? page.at(-1)!.id : null };
}

/** Every card of the requested scopes (default: all readable) in the given statuses (default: active). */
export async function* exportCards(db: DbOrTx, params: ExportParams): AsyncGenerator<ExportedCard> {
  let after: string | null = null;
  do {
    const page = await exportCardsPage(db, { ...params, after });
    yield* page.cards;
    after = page.nextCursor;
  } while (after);
}

const importLineSchema = z.object({
  kind: z.string().min(1).max(64),
  itemKey: z.string().max(200).nullish(),
  scope: z.string().min(1).max(220),
  title: z.string(),
  content: z.string(),
  valueJson: z.unknown().optional(),
  tags: z.array(z.string()).optional(),
  entities: z.array(z.string()).optional(),
  confidence: z.number().optional(),
  importance: z.number().optional(),
  expiresAt: z.string().nullish(),
  explicitUserIntent: z.boolean().optional(),
});

export type ImportLineStatus = "created" | "noop" | "conflict" | "superseded" | "rejected" | "skipped";
export type ImportLineResult = {
  line: number;
  status: ImportLineStatus;
  message: string;
  nodeId?: string;
  key?: string;
  scope?: string;
};
export type ImportReport = { dryRun: boolean; results: ImportLineResult[]; counts: Record<ImportLineStatus, number> };

export const IMPORT_LIMITS = { linesPerCall: 200, lineChars: 40_000 } as const;

/** Thrown to undo a transaction on purpose (dry runs; a line that would overwrite under onConflict "skip"). */
class Rollback<T> extends Error {
  constructor(readonly value: T) {
    super("rollback");
  }
}

async function rollingBack<T>(db: Database, work: (tx: Database) => Promise<{ value: T; keep: boolean }>): Promise<T> {
  try {
    return await db.transaction(async (tx) => {
      const { value, keep } = await work(tx as unknown as Database);
      if (!keep) throw new Rollback(value);
      return value;
    });
  } catch (error) {
    if (error instanceof Rollback) return error.value as T;
    throw error;
  }
}

async function importLine(
  db: Database,
  ctx: MemoryCallContext,
  text: string,
  line: number,
  onConflict: "skip" | "supersede",
): Promise<ImportLineResult> {
  if (!text.trim()) return { line, status: "skipped", message: "empty line" };
  if (text.length > IMPORT_LIMITS.lineChars)
    return {
      line,
      status: "rejected",
      message: `line is ${text.length} characters; at most ${IMPORT_LIMITS.lineChars}`,
    };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { line, status: "rejected", message: "not valid JSON" };
  }
  const parsed = importLineSchema.safeParse(json);
  if (!parsed.success)
    return {
      line,
      status: "rejected",
      message: parsed.error.issues.map((i) => `${i.path.join(".") || "line"}: ${i.message}`).join("; "),
    };
  const card = parsed.data;
  const source = (json as { source?: { status?: string } }).source;
  if (source?.status && source.status !== "active")
    return { line, status: "skipped", message: `exported as ${source.status}; only active cards are imported` };
  try {
    parseScope(card.scope);
  } catch (error) {
    return { line, status: "rejected", message: error instanceof Error ? error.message : String(error) };
  }
  // As on the create form: a line naming nobody here (`user:<unknown>`) or no workspace is refused, not stored.
  const unknownScope = (await unknownScopeRefusals(db, { tenantId: ctx.tenantId, scopes: [card.scope] })).get(
    card.scope,
  );
  if (unknownScope) return { line, status: "rejected", message: unknownScope, scope: card.scope };
  const operation = {
    op: "create" as const,
    kind: card.kind,
    ...(card.itemKey ? { itemKey: card.itemKey } : {}),
    scope: card.scope,
    // Lines without it (hand-written, or exported before it was carried) are the importing person's own statement.
    explicitUserIntent: card.explicitUserIntent ?? true,
    reason: "imported from JSONL",
    node: {
      title: card.title.slice(0, WRITE_LIMITS.title),
      content: card.content,
      ...(card.valueJson !== undefined && card.valueJson !== null ? { valueJson: card.valueJson } : {}),
      ...(card.tags ? { tags: card.tags } : {}),
      ...(card.entities ? { entities: card.entities } : {}),
      ...(card.confidence !== undefined ? { confidence: card.confidence } : {}),
      ...(card.importance !== undefined ? { importance: card.importance } : {}),
      ...(card.expiresAt ? { expiresAt: card.expiresAt } : {}),
    },
  };
  // Each line commits alone (one bad line does not sink the file); a line that would replace a
  // different card in its slot is rolled back and reported as a conflict unless asked to supersede.
  return rollingBack<ImportLineResult>(db, async (tx) => {
    let result;
    try {
      result = await memoryWrite(tx, ctx, { operations: [operation] });
    } catch (error) {
      // Database errors carry the failed statement and its parameters: the line gets the reason only.
      const known = knownServiceError(error);
      if (known?.code === "SERVICE_UNAVAILABLE") throw known;
      if (!known) logServerError(`import line ${line}`, error);
      return {
        value: {
          line,
          status: "rejected",
          message:
            known?.message ??
            "This line could not be stored (a server error, logged for the operator); nothing of it was saved.",
        },
        keep: false,
      };
    }
    const r = result.results[0]!;
    const base = { line, nodeId: r.nodeId, key: r.key, scope: r.scope };
    if (r.status === "superseded" && onConflict === "skip") {
      return {
        value: {
          ...base,
          status: "conflict",
          message: `slot ${r.key} already holds a different card (${r.previousId}); not replaced`,
        },
        keep: false,
      };
    }
    const status: ImportLineStatus =
      r.status === "created" || r.status === "noop" || r.status === "superseded" || r.status === "conflict"
        ? r.status
        : "rejected";
    // Rejections keep memory_write's own `rejected` audit row.
    return { value: { ...base, status, message: r.message }, keep: true };
  });
}

/**
 * Imports JSONL lines through memory_write as the signed-in person. `dryRun` runs the very same writes
 * inside one transaction that is rolled back at the end: the report is exactly what a real run would
 * say (later lines see earlier ones), and nothing stays. A real run writes an `import` audit event.
 */
export async function importCards(
  db: Database,
  ctx: MemoryCallContext,
  params: { lines: readonly string[]; firstLineNumber?: number; dryRun: boolean; onConflict?: "skip" | "supersede" },
): Promise<ImportReport> {
  const first = params.firstLineNumber ?? 1;
  const onConflict = params.onConflict ?? "skip";
  const lines = params.lines.slice(0, IMPORT_LIMITS.linesPerCall);
  const run = async (target: Database) => {
    const results: ImportLineResult[] = [];
    for (const [i, text] of lines.entries()) results.push(await importLine(target, ctx, text, first + i, onConflict));
    return results;
  };
  const results = params.dryRun
    ? await rollingBack<ImportLineResult[]>(db, async (tx) => ({ value: await run(tx), keep: false }))
    : await run(db);
  const counts = { created: 0, noop: 0, conflict: 0, superseded: 0, rejected: 0, skipped: 0 } satisfies Record<
    ImportLineStatus,
    number
  >;
  for (const r of results) counts[r.status]++;
  if (!params.dryRun && (counts.created || counts.superseded)) {
    await recordAudit(db, ctx, {
      eventType: "import",
      reason: `JSONL import of lines ${first}–${first + lines.length - 1}`,
      metadata: { counts, onConflict },
    });
  }
  return { dryRun: params.dryRun, results, counts };
}
