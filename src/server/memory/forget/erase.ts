import { and, eq, inArray, or, sql } from "drizzle-orm";
import type { Transaction } from "~/db/types";
import { idempotencyKeys, memoryAuditEvents, memoryEmbeddings, memoryMessages, memoryNodes } from "~/db/schema";
import { recordAudit } from "../store/audit";
import { shadowSlotLock, takeSlotLocks } from "../write/shadow-lock";
import type { Actor } from "../call-context";
import type { ErasureReceipt } from "./schema";
import type { MemoryScope } from "../scope";
import { TENANT_AUDIT_TABLE, TENANT_MEMORY_TABLES, type TenantMemoryTableName } from "./tenant-tables";
import { count, deleteJobsNaming } from "./erase-jobs";
import { eraseEvidence } from "./erase-evidence";

/** Kinds of cards erased (hard delete) that cited a message, kept on the message (names only, no content): the extractor does not propose them again. */
export const ERASED_KINDS_FIELD = "erasedMemoryKinds";

/**
 * An audit row with the content taken out: its snapshots, its reason (the caller's words, which may
 * quote the fact) and a refusal's message (content_required quotes the card's sentence).
 */
const SCRUBBED_AUDIT = {
  before: null,
  after: null,
  reason: null,
  metadata: sql`${memoryAuditEvents.metadata} - 'message' || '{"scrubbed": true}'::jsonb`,
};

/**
 * Removes all memory of a tenant (every table of TENANT_MEMORY_TABLES, in its order) and scrubs the
 * content out of its audit trail, keeping the events, then records the erasure itself. People, keys,
 * grants and custom kinds stay. Runs inside the caller's transaction; `onTable` reports progress.
 */
export async function eraseTenantMemory(
  tx: Transaction,
  params: { tenantId: string; actor: Actor; reason: string; onTable?: (done: number) => void },
): Promise<void> {
  const tables = Object.values(TENANT_MEMORY_TABLES);
  for (const [i, table] of tables.entries()) {
    await tx.delete(table).where(eq(table.tenantId, params.tenantId));
    params.onTable?.(i + 1);
  }
  // The audit keeps that it happened, not what was there (nor a reason or a refusal quoting it).
  await tx.update(TENANT_AUDIT_TABLE).set(SCRUBBED_AUDIT).where(eq(TENANT_AUDIT_TABLE.tenantId, params.tenantId));
  await recordAudit(
    tx,
    { tenantId: params.tenantId, actor: params.actor },
    { eventType: "hard_delete", reason: params.reason },
  );
}

/**
 * What eraseLineages does with each tenant memory table. Typed over TENANT_MEMORY_TABLES: a new
 * memory table does not compile until it is decided here (and, if it holds a card's content or
 * evidence, erased below).
 */
export const LINEAGE_ERASURE: Record<TenantMemoryTableName, string> = {
  memoryNodes:
    "deleted: every revision of the lineages; the shadowed marks their active cards set on broader cards of the slot are cleared",
  memoryEmbeddings: "deleted: the vectors of those revisions",
  memoryNodeUsage: "deleted: the recall counts of those revisions (foreign key cascade)",
  memoryJobs: "deleted: jobs whose payload names one of those revisions (with evidence: or an erased message or chunk)",
  idempotencyKeys:
    "replaced: stored replies that name one of those revisions become a tombstone (ERASED_REPLY), so a retry does not write again",
  memoryMessages: "with evidence: the source messages are deleted",
  memorySummaries:
    "with evidence: summaries covering an erased message, and every later one of that session, are deleted",
  memoryChunks: "with evidence: chunks of the erased messages are deleted",
  memoryChunkTopics: "with evidence: go with their chunks (foreign key cascade)",
  memoryTreeSummaries:
    "with evidence: L1 summaries sealing an erased chunk, and daily digests quoting one of them, are deleted",
  memoryTopics:
    "with evidence: summaries of topics an erased chunk fed are rebuilt from their other chunks; a topic with none left is deleted",
  memoryQueryLog: "kept: operation, latency and result counts only, no content",
};

/** What a retried call whose cards were erased since answers: done before, nothing written again. */
export const ERASED_REPLY = {
  done: true,
  erased: true,
  results: [],
  deletedIds: [],
  message:
    "This call was done before; the memory it named has since been erased permanently (hard delete), so nothing was done again. Send a new call with a new idempotency key to write it anew.",
};

/**
 * An erased override's slots: the broader cards it marked `shadowed` (0013) lose the mark unless another
 * active card of a more specific scope still holds the slot. Otherwise the mark would outlive the card
 * as a trace that it existed. Each slot is held as its writers hold it (the trigger's advisory lock), in
 * a fixed order, so a card overriding it that is written meanwhile marks it again after this.
 */
async function clearShadowMarksOf(
  tx: Transaction,
  tenantId: string,
  erased: readonly { domain: string; key: string }[],
) {
  const locks = takeSlotLocks(erased.map((slot) => shadowSlotLock(tenantId, slot.domain, slot.key)));
  if (!locks) return;
  await tx.execute(locks);
  await tx.execute(sql`update ${memoryNodes} m set shadowed = false
    from unnest(${sql.param(erased.map((slot) => slot.domain))}::text[], ${sql.param(erased.map((slot) => slot.key))}::text[]) as s(domain, key)
    where m.tenant_id = ${tenantId} and m.key = s.key and m.status = 'active' and m.domain = s.domain and m.shadowed
      and not exists (select 1 from ${memoryNodes} r
        where r.tenant_id = m.tenant_id and r.key = m.key and r.status = 'active' and r.domain = m.domain
          and memory_scope_priority(r.scope_type) > memory_scope_priority(m.scope_type))`);
}

/**
 * Physically removes whole revision chains and everything derived from them — embeddings (cascade),
 * queued jobs, idempotency replies that name them — and scrubs the content out of their audit rows,
 * keeping the events. With `eraseEvidence`, also the source messages, the summaries built on them
 * (and every later summary of that chain), chunks and tree summaries. Runs inside the caller's transaction.
 */
export async function eraseLineages(
  tx: Transaction,
  params: { tenantId: string; lineageIds: string[]; eraseEvidence: boolean; now: Date },
): Promise<ErasureReceipt> {
  const { tenantId, lineageIds } = params;
  const rows = await tx
    .select({
      id: memoryNodes.id,
      kind: memoryNodes.kind,
      sources: memoryNodes.sourceMessageIds,
      domain: memoryNodes.domain,
      key: memoryNodes.key,
      status: memoryNodes.status,
    })
    .from(memoryNodes)
    .where(and(eq(memoryNodes.tenantId, tenantId), inArray(memoryNodes.lineageId, lineageIds)));
  const cardIds = rows.map((r) => r.id);
  const receipt: ErasureReceipt = {
    erasedAt: params.now.toISOString(),
    nodeIds: cardIds,
    lineageIds,
    revisionsRemoved: cardIds.length,
    embeddingsRemoved: 0,
    messagesRemoved: 0,
    messageIds: [],
    summariesRemoved: 0,
    chunksRemoved: 0,
    treeSummariesRemoved: 0,
    topicsRebuilt: 0,
    topicsRemoved: 0,
    auditEventsScrubbed: 0,
    idempotencyRecordsRemoved: 0,
    jobsRemoved: 0,
  };
  if (cardIds.length === 0) return receipt;

  receipt.embeddingsRemoved = count(
    await tx
      .delete(memoryEmbeddings)
      .where(and(eq(memoryEmbeddings.tenantId, tenantId), inArray(memoryEmbeddings.nodeId, cardIds)))
      .returning({ id: memoryEmbeddings.id }),
  );
  await tx.delete(memoryNodes).where(and(eq(memoryNodes.tenantId, tenantId), inArray(memoryNodes.id, cardIds)));
  await clearShadowMarksOf(
    tx,
    tenantId,
    rows.filter((r) => r.status === "active"),
  );
  receipt.auditEventsScrubbed = count(
    await tx
      .update(memoryAuditEvents)
      .set(SCRUBBED_AUDIT)
      // A refused update's row names the card but no lineage.
      .where(
        and(
          eq(memoryAuditEvents.tenantId, tenantId),
          or(inArray(memoryAuditEvents.lineageId, lineageIds), inArray(memoryAuditEvents.nodeId, cardIds)),
        ),
      )
      .returning({ id: memoryAuditEvents.id }),
  );
  // A stored reply that names an erased card is replaced by a tombstone, not deleted: a late retry of
  // the call (the ambiguous-commit case idempotency keys exist for) would otherwise write the card again.
  const mentionsCard = sql`(${sql.join(
    cardIds.map((id) => sql`${idempotencyKeys.response}::text like ${`%${id}%`}`),
    sql` or `,
  )})`;
  receipt.idempotencyRecordsRemoved = count(
    await tx
      .update(idempotencyKeys)
      .set({ response: ERASED_REPLY })
      .where(and(eq(idempotencyKeys.tenantId, tenantId), mentionsCard))
      .returning({ key: idempotencyKeys.key }),
  );
  receipt.jobsRemoved = await deleteJobsNaming(tx, tenantId, "node", cardIds);

  const messageIds = [...new Set(rows.flatMap((r) => r.sources))];
  if (params.eraseEvidence) {
    if (messageIds.length) await eraseEvidence(tx, tenantId, messageIds, receipt);
  } else if (messageIds.length) {
    await markErasedKinds(tx, tenantId, rows);
  }
  return receipt;
}

/**
 * A message kept after the cards it was saved in are erased says which kinds they were (names, no
 * content), so that the background extractor does not make them again from it: with the cards gone,
 * nothing else would tell it the message was handled.
 */
async function markErasedKinds(
  tx: Transaction,
  tenantId: string,
  rows: readonly { kind: string; sources: string[] }[],
) {
  const kindsByMessage = new Map<string, Set<string>>();
  for (const row of rows)
    for (const source of row.sources)
      kindsByMessage.set(source, (kindsByMessage.get(source) ?? new Set()).add(row.kind));
  for (const [messageId, kinds] of kindsByMessage) {
    await tx.execute(sql`update ${memoryMessages} set metadata = jsonb_set(metadata, ${`{${ERASED_KINDS_FIELD}}`}::text[],
        (select coalesce(jsonb_agg(distinct k), '[]'::jsonb) from jsonb_array_elements_text(coalesce(metadata->${ERASED_KINDS_FIELD}, '[]'::jsonb) || ${JSON.stringify([...kinds])}::jsonb) as k))
      where tenant_id = ${tenantId} and id = ${messageId}`);
  }
}

/** Every card of one scope, all revisions, with what eraseLineages takes along (evidence stays). */
export async function eraseScopeCards(
  tx: Transaction,
  params: { tenantId: string; scope: MemoryScope; now: Date },
): Promise<ErasureReceipt> {
  const lineages = await tx
    .selectDistinct({ id: memoryNodes.lineageId })
    .from(memoryNodes)
    .where(
      and(
        eq(memoryNodes.tenantId, params.tenantId),
        eq(memoryNodes.scopeType, params.scope.type),
        eq(memoryNodes.scopeId, params.scope.id),
      ),
    );
  return eraseLineages(tx, {
    tenantId: params.tenantId,
    lineageIds: lineages.map((l) => l.id),
    eraseEvidence: false,
    now: params.now,
  });
}
