import { and, eq, sql } from "drizzle-orm";
import { anyOf } from "~/db/any-of";
import { memoryChunks, memoryEmbeddings, memoryJobs, memoryMessages, memoryNodes } from "~/db/schema";
import { startNow } from "~/db/start-now";
import type { DbOrTx } from "~/db/types";
import { newId } from "~/server/ids";

// The SQL of vectors (`memory_embeddings`) and their `embed` jobs. What text a vector is made from,
// and when to make one, is decided in embeddings/vectors.ts.

export type EmbedTargetKind = "node" | "message" | "chunk";
export type EmbedTarget = { kind: EmbedTargetKind; id: string };

/** Characters of text sent to a provider per item (models cut off far sooner anyway). */
const ownerColumn = {
  node: memoryEmbeddings.nodeId,
  message: memoryEmbeddings.messageId,
  chunk: memoryEmbeddings.chunkId,
} as const;

/** What a card's vector is made from, for the cards that still exist. */
export function findCardEmbedSources(db: DbOrTx, params: { tenantId: string; ids: readonly string[] }) {
  return db
    .select({
      id: memoryNodes.id,
      title: memoryNodes.title,
      content: memoryNodes.content,
      tags: memoryNodes.tags,
      entities: memoryNodes.entities,
      valueJson: memoryNodes.valueJson,
    })
    .from(memoryNodes)
    .where(and(eq(memoryNodes.tenantId, params.tenantId), anyOf(memoryNodes.id, [...params.ids])));
}

/** The content of messages or chunks that still exist. */
export function findEvidenceEmbedSources(
  db: DbOrTx,
  params: { tenantId: string; kind: "message" | "chunk"; ids: readonly string[] },
) {
  const table = params.kind === "message" ? memoryMessages : memoryChunks;
  return db
    .select({ id: table.id, content: table.content })
    .from(table)
    .where(and(eq(table.tenantId, params.tenantId), anyOf(table.id, [...params.ids])));
}

/** content_hash of the stored vector per owner, for this model at this dimension (a vector of another size is stale). */
export async function storedHashes(
  db: DbOrTx,
  params: { tenantId: string; model: string; dimensions: number; kind: EmbedTargetKind; ids: readonly string[] },
): Promise<Map<string, string>> {
  const { tenantId, model, dimensions, kind, ids } = params;
  if (ids.length === 0) return new Map();
  const owner = ownerColumn[kind];
  const rows = await db
    .select({ owner, hash: memoryEmbeddings.contentHash })
    .from(memoryEmbeddings)
    .where(
      and(
        eq(memoryEmbeddings.tenantId, tenantId),
        eq(memoryEmbeddings.model, model),
        eq(memoryEmbeddings.dimensions, dimensions),
        anyOf(owner, ids),
      ),
    );
  return new Map(rows.filter((r) => r.owner !== null).map((r) => [r.owner!, r.hash]));
}

/** Inserts or replaces the vectors of one owner kind for one model. */
export async function upsertEmbeddings(
  db: DbOrTx,
  params: {
    tenantId: string;
    model: string;
    dimensions: number;
    kind: EmbedTargetKind;
    rows: readonly { id: string; vector: number[]; hash: string }[];
  },
): Promise<void> {
  const owner = ownerColumn[params.kind];
  // Batches keep each statement's parameter count far below Postgres' 65,535.
  for (let i = 0; i < params.rows.length; i += 200) {
    const batch = params.rows.slice(i, i + 200);
    await db
      .insert(memoryEmbeddings)
      .values(
        batch.map((row) => ({
          tenantId: params.tenantId,
          id: newId("emb"),
          nodeId: params.kind === "node" ? row.id : null,
          messageId: params.kind === "message" ? row.id : null,
          chunkId: params.kind === "chunk" ? row.id : null,
          model: params.model,
          dimensions: params.dimensions,
          embedding: row.vector,
          contentHash: row.hash,
        })),
      )
      .onConflictDoUpdate({
        target: [memoryEmbeddings.tenantId, owner, memoryEmbeddings.model],
        targetWhere: sql`${owner} is not null`,
        set: {
          embedding: sql`excluded.embedding`,
          dimensions: sql`excluded.dimensions`,
          contentHash: sql`excluded.content_hash`,
          createdAt: sql`now()`,
        },
      });
  }
}

/** Dedupe key of a target's embed job: one queued job per target at a time. */
export const embedJobKey = (target: EmbedTarget) => `embed:${target.kind}:${target.id}`;

/**
 * Queues an `embed` job per target, in the caller's transaction (so a rolled-back write queues
 * nothing). A target that already has a queued job is skipped by the dedupe index. Started at once
 * (not at the caller's await): it may travel with the COMMIT (pipelined.ts).
 */
export function enqueueEmbedJobs(
  db: DbOrTx,
  params: { tenantId: string; targets: readonly EmbedTarget[] },
): Promise<unknown> {
  if (params.targets.length === 0) return Promise.resolve();
  return startNow(
    db
      .insert(memoryJobs)
      .values(
        params.targets.map((target) => ({
          tenantId: params.tenantId,
          type: "embed" as const,
          payload: { kind: target.kind, id: target.id },
          dedupeKey: embedJobKey(target),
        })),
      )
      .onConflictDoNothing(),
  );
}

/** Current cards without a vector for `model` at `dimensions`, at most `limit` (1 to 10,000; 1,000 by default). */
export function findCardsWithoutVector(
  db: DbOrTx,
  params: { tenantId: string; model: string; dimensions: number; limit?: number },
) {
  return db
    .select({ id: memoryNodes.id })
    .from(memoryNodes)
    .where(
      and(
        eq(memoryNodes.tenantId, params.tenantId),
        eq(memoryNodes.status, "active"),
        sql`not exists (select 1 from ${memoryEmbeddings} e where e.tenant_id = ${memoryNodes.tenantId} and e.node_id = ${memoryNodes.id} and e.model = ${params.model} and e.dimensions = ${params.dimensions})`,
      ),
    )
    .limit(Math.min(Math.max(Math.trunc(params.limit ?? 1000), 1), 10_000));
}
