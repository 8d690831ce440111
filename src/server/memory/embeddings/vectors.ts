import { createHash } from "node:crypto";
import type { DbOrTx } from "~/db/types";
import { isZeroVector, type EmbeddingProvider } from "~/server/providers/embeddings/types";
import {
  enqueueEmbedJobs,
  findCardEmbedSources,
  findCardsWithoutVector,
  findEvidenceEmbedSources,
  storedHashes,
  upsertEmbeddings,
  type EmbedTarget,
  type EmbedTargetKind,
} from "../store/embeddings";

/**
 * Vectors for cards, evidence messages and memory-tree chunks, stored per (owner, model) in
 * memory_embeddings with the hash of the text they were made from. Writes never wait on a provider:
 * they enqueue an `embed` job (see embeddings/jobs.ts); search works without any vector.
 */

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

/** The text of each target that still exists (hard-deleted owners are simply absent). */
async function loadTexts(
  db: DbOrTx,
  tenantId: string,
  kind: EmbedTargetKind,
  ids: string[],
): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  if (kind === "node") {
    const rows = await findCardEmbedSources(db, { tenantId, ids });
    return new Map(rows.map((row) => [row.id, cardEmbeddingText(row)]));
  }
  const rows = await findEvidenceEmbedSources(db, { tenantId, kind, ids });
  return new Map(rows.map((row) => [row.id, evidenceEmbeddingText(row.content)]));
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
      storedHashes(db, {
        tenantId: params.tenantId,
        model: provider.model,
        dimensions: provider.dimensions,
        kind,
        ids,
      }),
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

/**
 * Queues embed jobs for current cards without a vector for `model` at `dimensions` — after switching models or sizes, or
 * for cards written before the queue existed. Returns how many were queued (at most `limit`).
 */
export async function enqueueMissingEmbeddings(
  db: DbOrTx,
  params: { tenantId: string; model: string; dimensions: number; limit?: number },
): Promise<number> {
  const rows = await findCardsWithoutVector(db, params);
  await enqueueEmbedJobs(db, {
    tenantId: params.tenantId,
    targets: rows.map((row) => ({ kind: "node" as const, id: row.id })),
  });
  return rows.length;
}
