import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryEmbeddings, memoryJobs } from "~/db/schema";
import { embedJobKey } from "~/server/memory/store/embeddings";
import { embedTargets, enqueueMissingEmbeddings } from "~/server/memory/embeddings/vectors";
import { handleEmbedJob, processEmbedJobs } from "~/server/memory/embeddings/jobs";
import { appendMessages } from "~/server/memory/evidence/messages";
import { memorySearch } from "~/server/memory/retrieval/search";
import { memoryWrite } from "~/server/memory/write/write";
import { createLocalEmbeddingProvider } from "~/server/providers/embeddings/local";
import { EmbeddingProviderError } from "~/server/providers/embeddings/openai";
import type { EmbeddingProvider } from "~/server/providers/embeddings/types";
import { openTestDatabase, recordingDb, TEST_BACKEND, type TestDatabase } from "../support/db";
import { agentContext, createTenant } from "../support/memory";

/** The local provider with its vectors counting fully, so a test can see the vector signal. */
const local: EmbeddingProvider = {
  ...createLocalEmbeddingProvider({ model: "test-hash", dimensions: 64 }),
  signalWeight: 1,
};
const failing: EmbeddingProvider = {
  ...local,
  embed: async () => {
    throw new Error("embedding endpoint answered HTTP 503");
  },
};

const card = (itemKey: string, content: string) => ({
  op: "create",
  kind: "custom_fact",
  itemKey,
  explicitUserIntent: true,
  node: { title: itemKey, content, valueJson: itemKey },
});

describe(`embeddings through the job queue (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  beforeAll(async () => {
    handle = await openTestDatabase();
  });
  afterAll(async () => handle?.destroy());

  const jobsOf = (tenantId: string) =>
    handle.db
      .select()
      .from(memoryJobs)
      .where(and(eq(memoryJobs.tenantId, tenantId), eq(memoryJobs.type, "embed")));
  const vectorsOf = (tenantId: string) =>
    handle.db.select().from(memoryEmbeddings).where(eq(memoryEmbeddings.tenantId, tenantId));
  /** Other tenants' jobs stay out of these tests: only this tenant's become due. */
  const isolate = (tenantId: string) =>
    handle.db
      .update(memoryJobs)
      .set({ runAt: sql`now() + interval '1 day'` })
      .where(sql`${memoryJobs.tenantId} <> ${tenantId} and ${memoryJobs.status} = 'queued'`);

  it("queues one embed job per new revision in the write's transaction, none for a noop or a failed batch", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId);
    const first = await memoryWrite(handle.db, ctx, {
      operations: [card("garden", "Grows tomatoes."), card("bike", "Rides a red bike.")],
    });
    const jobs = await jobsOf(tenantId);
    expect(jobs.map((j) => j.dedupeKey).sort()).toEqual(
      first.results.map((r) => embedJobKey({ kind: "node", id: r.nodeId! })).sort(),
    );
    expect(jobs.every((j) => j.status === "queued" && (j.payload as { kind: string }).kind === "node")).toBe(true);
    await memoryWrite(handle.db, ctx, { operations: [card("garden", "Grows tomatoes.")] });
    const failed = await memoryWrite(handle.db, ctx, {
      operations: [
        card("car", "Drives a car."),
        { op: "create", kind: "no_such_kind", node: { title: "x", content: "y" } },
      ],
    });
    expect(failed.done).toBe(false);
    expect(await jobsOf(tenantId)).toHaveLength(2);
  });

  it("processes due jobs: embeds, stores model/dimensions/content hash, marks them done; search then uses vectors", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId);
    const written = await memoryWrite(handle.db, ctx, {
      operations: [card("herbs", "Avoids cilantro and parsley in every dish."), card("rust", "Writes Rust at work.")],
    });
    await isolate(tenantId);
    const run = await processEmbedJobs(handle.db, { provider: local, limit: 50 });
    expect(run).toMatchObject({ leased: 2, succeeded: 2, retried: 0, dead: 0, embedded: 2 });
    const vectors = await vectorsOf(tenantId);
    expect(vectors).toHaveLength(2);
    expect(vectors[0]).toMatchObject({ model: "test-hash", dimensions: 64 });
    expect(vectors[0]!.embedding).toHaveLength(64);
    expect(vectors[0]!.contentHash).toMatch(/^[0-9a-f]{64}$/);
    expect((await jobsOf(tenantId)).every((j) => j.status === "succeeded" && j.finishedAt !== null)).toBe(true);
    expect(await processEmbedJobs(handle.db, { provider: local })).toMatchObject({ leased: 0 });

    const result = await memorySearch(handle.db, ctx, { queryText: "cilantro parsley" }, { embeddings: local });
    expect(result.relevant[0]?.id).toBe(written.results[0]!.nodeId);
    expect(result.relevant[0]?.matchedBy).toEqual(expect.arrayContaining(["full_text", "vector"]));
    expect(result.relevant[0]?.score?.vector).toBeGreaterThan(0.2);

    // Switching models or sizes: cards without a vector for the new one are queued again.
    expect(await enqueueMissingEmbeddings(handle.db, { tenantId, model: "test-hash", dimensions: 64 })).toBe(0);
    expect(await enqueueMissingEmbeddings(handle.db, { tenantId, model: "test-hash", dimensions: 128 })).toBe(2);
    await handle.db
      .update(memoryJobs)
      .set({ status: "succeeded" })
      .where(and(eq(memoryJobs.tenantId, tenantId), eq(memoryJobs.status, "queued")));
    expect(await enqueueMissingEmbeddings(handle.db, { tenantId, model: "another-model", dimensions: 64 })).toBe(2);
    expect((await jobsOf(tenantId)).filter((j) => j.status === "queued")).toHaveLength(2);
    // Re-embedding unchanged text is skipped by its content hash.
    expect(
      await embedTargets(handle.db, local, {
        tenantId,
        targets: written.results.map((r) => ({ kind: "node" as const, id: r.nodeId! })),
      }),
    ).toMatchObject({ embedded: 0, unchanged: 2 });
  });

  it("searches without any vector stored, and without a provider", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId);
    const written = await memoryWrite(handle.db, ctx, { operations: [card("tea", "Drinks green tea every morning.")] });
    for (const embeddings of [local, null]) {
      const result = await memorySearch(handle.db, ctx, { queryText: "green tea" }, { embeddings });
      expect(result.relevant.map((n) => n.id)).toEqual([written.results[0]!.nodeId]);
      expect(result.relevant[0]!.matchedBy).not.toContain("vector");
    }
  });

  it("keeps a batch's leases while a slow provider embeds it: no second worker embeds the same cards", async () => {
    const tenantId = await createTenant(handle.db);
    await memoryWrite(handle.db, agentContext(tenantId), {
      operations: [card("kiln", "Fires pottery in a kiln."), card("loom", "Weaves on a loom.")],
    });
    await isolate(tenantId);
    const slow: EmbeddingProvider = {
      ...local,
      embed: async (texts) => new Promise((resolve) => setTimeout(() => resolve(local.embed(texts)), 3500)),
    };
    // Lease 1.5 s, renewed every 0.5 s (a loaded CI machine may stall a renewal for a while).
    const first = processEmbedJobs(handle.db, { provider: slow, leaseMs: 1500, workerId: "slow-embedder" });
    await new Promise((r) => setTimeout(r, 2500)); // past the first lease
    const second = await processEmbedJobs(handle.db, { provider: local, workerId: "eager-embedder" });
    expect(second.leased).toBe(0);
    expect(await first).toMatchObject({ leased: 2, succeeded: 2 });
    expect((await jobsOf(tenantId)).map((j) => [j.status, j.attempts])).toEqual([
      ["succeeded", 1],
      ["succeeded", 1],
    ]);
  });

  it("retries a failing provider with backoff and gives up after max_attempts", async () => {
    const tenantId = await createTenant(handle.db);
    await memoryWrite(handle.db, agentContext(tenantId), { operations: [card("piano", "Plays the piano.")] });
    await isolate(tenantId);
    await handle.db.update(memoryJobs).set({ maxAttempts: 2 }).where(eq(memoryJobs.tenantId, tenantId));
    const first = await processEmbedJobs(handle.db, { provider: failing });
    expect(first).toMatchObject({ leased: 1, succeeded: 0, retried: 1, dead: 0 });
    const [queued] = await jobsOf(tenantId);
    expect(queued).toMatchObject({
      status: "queued",
      attempts: 1,
      leasedBy: null,
      lastError: expect.stringContaining("503"),
    });
    expect(queued!.runAt.getTime()).toBeGreaterThan(Date.now() + 2000);
    expect(await processEmbedJobs(handle.db, { provider: failing })).toMatchObject({ leased: 0 });

    await handle.db
      .update(memoryJobs)
      .set({ runAt: sql`now()` })
      .where(eq(memoryJobs.tenantId, tenantId));
    expect(await processEmbedJobs(handle.db, { provider: failing })).toMatchObject({ leased: 1, dead: 1 });
    const [dead] = await jobsOf(tenantId);
    expect(dead).toMatchObject({ status: "dead", attempts: 2 });
    expect(await vectorsOf(tenantId)).toHaveLength(0);
  });

  it("embeds the rest of a batch when the provider refuses one input for good, and dead-letters only that one", async () => {
    const tenantId = await createTenant(handle.db);
    await memoryWrite(handle.db, agentContext(tenantId), {
      operations: [
        card("violin", "Plays the violin."),
        card("novel", `Writing a novel: ${"长文".repeat(50)}`),
        card("chess", "Plays chess."),
      ],
    });
    await isolate(tenantId);
    // An endpoint that refuses one input as too long (HTTP 400: not retryable), and so every batch holding it.
    const picky: EmbeddingProvider = {
      ...local,
      embed: async (texts) => {
        if (texts.some((t) => t.includes("长文")))
          throw new EmbeddingProviderError(
            "embedding_http_error",
            "The embedding endpoint answered HTTP 400: input too long.",
            false,
          );
        return local.embed(texts);
      },
    };
    expect(await processEmbedJobs(handle.db, { provider: picky })).toMatchObject({
      leased: 3,
      succeeded: 2,
      dead: 1,
      retried: 0,
    });
    const jobs = await jobsOf(tenantId);
    expect(jobs.map((j) => j.status).sort()).toEqual(["dead", "succeeded", "succeeded"]);
    expect(jobs.find((j) => j.status === "dead")).toMatchObject({
      attempts: 1,
      lastError: expect.stringContaining("HTTP 400"),
    });
    expect(await vectorsOf(tenantId)).toHaveLength(2);
  });

  it("takes over a job whose lease ran out, and never gives one job to two workers", async () => {
    const tenantId = await createTenant(handle.db);
    const written = await memoryWrite(handle.db, agentContext(tenantId), {
      operations: ["a", "b", "c", "d", "e", "f"].map((k) => card(`item_${k}`, `Item ${k}.`)),
    });
    await isolate(tenantId);
    const [stale] = await jobsOf(tenantId);
    await handle.db
      .update(memoryJobs)
      .set({ status: "running", leasedBy: "dead-worker", leasedUntil: sql`now() - interval '1 minute'`, attempts: 1 })
      .where(eq(memoryJobs.id, stale!.id));
    const [one, two] = await Promise.all([
      processEmbedJobs(handle.db, { provider: local, limit: 4, workerId: "w1" }),
      processEmbedJobs(handle.db, { provider: local, limit: 4, workerId: "w2" }),
    ]);
    expect(one.leased + two.leased).toBe(6);
    expect(one.succeeded + two.succeeded).toBe(6);
    expect(await vectorsOf(tenantId)).toHaveLength(written.results.length);
    expect((await jobsOf(tenantId)).every((j) => j.status === "succeeded")).toBe(true);
  });

  it("embeds one job for a general worker, and evidence messages too", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId);
    const { messages } = await appendMessages(handle.db, ctx, {
      sessionId: "s1",
      userScopeId: "u1",
      messages: [
        { role: "user", content: "My cat Miso loves sardines." },
        { role: "user", content: "The weather is grey." },
      ],
    });
    const outcome = await handleEmbedJob(
      handle.db,
      { tenantId, payload: { kind: "message", id: messages[0]!.id } },
      local,
    );
    expect(outcome).toMatchObject({ model: "test-hash", embedded: 1 });
    await embedTargets(handle.db, local, {
      tenantId,
      targets: messages.map((m) => ({ kind: "message" as const, id: m.id })),
    });
    const result = await memorySearch(
      handle.db,
      ctx,
      { queryText: "sardines cat", includeEvidence: true },
      { embeddings: local },
    );
    expect(result.evidence?.[0]?.id).toBe(messages[0]!.id);
    expect(result.evidence?.[0]?.components?.vector).toBeGreaterThan(0);
    await expect(handleEmbedJob(handle.db, { tenantId, payload: {} }, local)).rejects.toThrow(/names no node/);
  });
});

describe(`signals over an empty scope (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  beforeAll(async () => {
    handle = await openTestDatabase();
  });
  afterAll(async () => handle?.destroy());

  it("asks no vector or trigram question of a scope with no cards, and finds the first card written there", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId);
    const { db: logged, statements } = await recordingDb(handle);
    // One misspelt word: the card side would rescue it by trigrams, and look by vector.
    const question = { queryText: "cilantor" };
    const cardSignals = () =>
      statements.filter((s) => s.includes("memory_nodes") && (s.includes("%>") || s.includes("<=>")));
    expect((await memorySearch(logged, ctx, question, { embeddings: local, reranker: null })).relevant).toEqual([]);
    expect(cardSignals()).toEqual([]);
    const written = await memoryWrite(handle.db, ctx, { operations: [card("herbs", "The user avoids cilantro.")] });
    await processEmbedJobs(handle.db, { provider: local, limit: 10 });
    const found = await memorySearch(logged, ctx, question, { embeddings: local, reranker: null });
    expect(found.relevant.map((c) => c.id)).toEqual([written.results[0]!.nodeId]);
    expect(cardSignals().length).toBeGreaterThan(0);
  });
});
