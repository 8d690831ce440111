import { createHash } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { memoryChunks, memoryEmbeddings, memoryJobs, memoryMessages, memoryNodes } from "~/db/schema";
import { startNow } from "~/db/start-now";
import type { DbOrTx } from "~/db/types";
import { newId } from "~/server/ids";
import { isZeroVector, type EmbeddingProvider } from "~/server/providers/embeddings/types";
import { anyOf } from "~/db/any-of";

/**
 * Vectors for cards, evidence messages and memory-tree chunks, stored per (owner, model) in
 * memory_embeddings with the hash of the text they were made from. Writes never wait on a provider:
 * they enqueue an `embed` job (see embeddings/jobs.ts); search works without any vector.
 */

export type EmbedTargetKind = "node" | "message" | "chunk";
export type EmbedTarget = { kind: EmbedTargetKind; id: string };

/** Characters of text sent to a provider per item (models cut off far sooner anyway). */
const MAX_EMBED_CHARS = 8000;

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

function valueText(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return [String(value)];
  if (Array.isArray(value)) return value.flatMap(valueText);
  if (typeof value === "object") return Object.entries(value).flatMap(([k, v]) => [k, ...valueText(v)]);
  return [];
}

/** What a card's vector is made of: what it says, not its bookkeeping. */
export function cardEmbeddingText(card: {
  title: string;
  content: string;
  tags: readonly string[];
  entities: readonly string[];
  valueJson: unknown;
}): string {
  const extra = [...card.entities, ...card.tags, ...valueText(card.valueJson)].join(" ");
  return [card.title, card.content, extra].filter(Boolean).join("\n").slice(0, MAX_EMBED_CHARS);
}

export const evidenceEmbeddingText = (content: string) => content.slice(0, MAX_EMBED_CHARS);

export const embeddingContentHash = (text: string) => sha256(text);

const ownerColumn = {
  node: memoryEmbeddings.nodeId,
  message: memoryEmbeddings.messageId,
  chunk: memoryEmbeddings.chunkId,
} as const;

/** The text of each target that still exists (hard-deleted owners are simply absent). */
async function loadTexts(
  db: DbOrTx,
  tenantId: string,
  kind: EmbedTargetKind,
  ids: string[],
): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  if (kind === "node") {
    const rows = await db
      .select({
        id: memoryNodes.id,
        title: memoryNodes.title,
        content: memoryNodes.content,
        tags: memoryNodes.tags,
        entities: memoryNodes.entities,
        valueJson: memoryNodes.valueJson,
      })
      .from(memoryNodes)
      .where(and(eq(memoryNodes.tenantId, tenantId), anyOf(memoryNodes.id, ids)));
    return new Map(rows.map((row) => [row.id, cardEmbeddingText(row)]));
  }
  const table = kind === "message" ? memoryMessages : memoryChunks;
  const rows = await db
    .select({ id: table.id, content: table.content })
    .from(table)
    .where(and(eq(table.tenantId, tenantId), anyOf(table.id, ids)));
  return new Map(rows.map((row) => [row.id, evidenceEmbeddingText(row.content)]));
}

/** content_hash of the stored vector per owner, for this model at this dimension (a vector of another size is stale). */
async function storedHashes(
  db: DbOrTx,
  tenantId: string,
  model: string,
  dimensions: number,
  kind: EmbedTargetKind,
  ids: string[],
): Promise<Map<string, string>> {
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

export type EmbedOutcome = { embedded: number; unchanged: number; missing: number; empty: number };

/**
 * Embeds the targets with `provider` and upserts their vectors; a target whose text hash already
 * has a vector for this model is skipped. Pass a plain database handle, not a transaction, so no
 * lock is held while the provider answers (job processing does exactly that).
 */
export async function embedTargets(
  db: DbOrTx,
  provider: EmbeddingProvider,
  params: { tenantId: string; targets: readonly EmbedTarget[] },
): Promise<EmbedOutcome> {
  const outcome: EmbedOutcome = { embedded: 0, unchanged: 0, missing: 0, empty: 0 };
  for (const kind of ["node", "message", "chunk"] as const) {
    const ids = [...new Set(params.targets.filter((t) => t.kind === kind).map((t) => t.id))];
    if (ids.length === 0) continue;
    const [texts, hashes] = await Promise.all([
      loadTexts(db, params.tenantId, kind, ids),
      storedHashes(db, params.tenantId, provider.model, provider.dimensions, kind, ids),
    ]);
    outcome.missing += ids.length - texts.size;
    const todo: { id: string; text: string; hash: string }[] = [];
    for (const [id, text] of texts) {
      if (!text.trim()) {
        outcome.empty++;
        continue;
      }
      const hash = embeddingContentHash(text);
      if (hashes.get(id) === hash) outcome.unchanged++;
      else todo.push({ id, text, hash });
    }
    if (todo.length === 0) continue;
    const vectors = await provider.embed(todo.map((t) => t.text));
    const rows = todo
      .map((t, i) => ({ ...t, vector: vectors[i]! }))
      .filter((row) => {
        const usable = row.vector.length === provider.dimensions && !isZeroVector(row.vector);
        if (!usable) outcome.empty++;
        return usable;
      });
    await upsertEmbeddings(db, {
      tenantId: params.tenantId,
      model: provider.model,
      dimensions: provider.dimensions,
      kind,
      rows,
    });
    outcome.embedded += rows.length;
  }
  return outcome;
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

/**
 * Queues embed jobs for current cards without a vector for `model` at `dimensions` — after switching models or sizes, or
 * for cards written before the queue existed. Returns how many were queued (at most `limit`).
 */
export async function enqueueMissingEmbeddings(
  db: DbOrTx,
  params: { tenantId: string; model: string; dimensions: number; limit?: number },
): Promise<number> {
  const rows = await db
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
  await enqueueEmbedJobs(db, {
    tenantId: params.tenantId,
    targets: rows.map((row) => ({ kind: "node" as const, id: row.id })),
  });
  return rows.length;
}
