import http from "node:http";
import type { AddressInfo } from "node:net";
import { and, desc, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  memoryChunks,
  memoryChunkTopics,
  memoryJobs,
  memoryMessages,
  memoryNodes,
  memorySummaries,
  memoryTopics,
  memoryTreeSummaries,
} from "~/db/schema";
import { revokeApiKey } from "~/server/auth/api-keys";
import { setGrant } from "~/server/auth/scope-grants";
import { completeJob, enqueueJob, leaseJobs } from "~/server/jobs/queue";
import { processJobsOnce, type JobHandlers } from "~/server/jobs/worker";
import { appendMessages } from "~/server/memory/evidence/messages";
import { memoryForget } from "~/server/memory/forget/forget";
import { parseScopePattern } from "~/server/memory/scope";
import { getLatestSummary } from "~/server/memory/store/summaries";
import { createLlmClient } from "~/server/providers/llm";
import { decayTopicHotness, routeTopicsForSession } from "~/server/tree/topics";
import { SEAL_THRESHOLD, SESSION_BATCH } from "~/server/tree/cold-path";
import { sealSession } from "~/server/tree/seal";
import { EXTRACT_DELAY_MS } from "~/server/tree/ingest";
import { extractFromSession, summarizeSession, treeJobHandlers } from "~/server/tree/jobs";
import { eraseConversation } from "~/server/memory/forget/erase-conversation";
import type { LlmClient } from "~/server/providers/llm";
import { drainJobs } from "../support/jobs";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { createKey, createOrg } from "../support/agents";
import { agentContext, createOp, createTenant, writeCards } from "../support/memory";

const actor = (tenantId: string) => ({ tenantId, actor: { type: "api_key" as const, id: "key_test" } });

/**
 * A member and their agent's key (read, write, messages:write on their profile and any session): the
 * extractor writes only where the key that captured the messages may write.
 */
async function capturingAgent(db: TestDatabase["db"], scopes?: string[]) {
  const org = await createOrg(db);
  const { apiKey } = await createKey(db, { tenantId: org.tenantId, ownerUserId: org.memberId, scopes });
  const by = { tenantId: org.tenantId, actor: { type: "api_key" as const, id: apiKey.id } };
  const ctx = agentContext(org.tenantId, {
    actor: by.actor,
    readScopes: [`user:${org.memberId}`, "session:*"].map(parseScopePattern),
    writeScopes: [`user:${org.memberId}`, "session:*"].map(parseScopePattern),
    defaults: { user: { type: "user", id: org.memberId }, session: { type: "session", id: "s1" } },
  });
  return { ...org, t: org.tenantId, u: org.memberId, key: apiKey, by, ctx };
}

type StandInRequest = { path: string; body: { model: string; messages: { role: string; content: string }[] } };

/** A local OpenAI-compatible chat endpoint answering by the system prompt (no network, no real model). */
async function withStandInModel(
  answer: (system: string) => string,
  run: (llm: NonNullable<ReturnType<typeof createLlmClient>>, requests: StandInRequest[]) => Promise<void>,
) {
  const requests: StandInRequest[] = [];
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString()));
    req.on("end", () => {
      const body = JSON.parse(raw) as StandInRequest["body"];
      requests.push({ path: req.url ?? "", body });
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({
          choices: [{ message: { role: "assistant", content: answer(body.messages[0]?.content ?? "") } }],
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  try {
    const llm = createLlmClient({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
      model: "stand-in",
      apiKey: "test",
    });
    if (!llm) throw new Error("the stand-in model was not configured");
    await run(llm, requests);
  } finally {
    server.close();
  }
}

const activeCards = (db: TestDatabase["db"], tenantId: string) =>
  db
    .select()
    .from(memoryNodes)
    .where(and(eq(memoryNodes.tenantId, tenantId), eq(memoryNodes.status, "active")));

describe(`memory tree (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  beforeAll(async () => {
    handle = await openTestDatabase();
  });
  afterAll(async () => handle?.destroy());

  it("chunks and fast-scores captured messages in the same transaction, de-duplicating re-sends", async () => {
    const t = await createTenant(handle.db);
    const input = {
      sessionId: "s1",
      messages: [{ role: "user" as const, content: "记住：项目预算 5 万，9 月 15 日前完成。", clientMessageId: "m1" }],
    };
    await appendMessages(handle.db, actor(t), input);
    await appendMessages(handle.db, actor(t), input);
    const chunks = await handle.db.select().from(memoryChunks).where(eq(memoryChunks.tenantId, t));
    expect(chunks).toHaveLength(1);
    expect(chunks[0]!.content).toMatch(/^\[role: user\] \[source: chat\] \[time: .*\]/);
    expect(chunks[0]!.scoreReasons.map((r) => r.rule)).toEqual(
      expect.arrayContaining(["explicit_remember", "money", "time"]),
    );
    const jobs = await handle.db.select().from(memoryJobs).where(eq(memoryJobs.tenantId, t));
    expect(jobs.map((j) => j.type).sort()).toEqual(["deep_score", "embed", "extract", "summarize"]);
    // The message's vector comes from the queue, as a card's does.
    const [stored] = (await appendMessages(handle.db, actor(t), input)).messages;
    expect(jobs.find((j) => j.type === "embed")?.dedupeKey).toBe(`embed:message:${stored!.id}`);
    // Extraction waits for the agent's own writes of the turn; the rest runs at once.
    const runIn = (type: string) => jobs.find((j) => j.type === type)!.runAt.getTime() - Date.now();
    expect(runIn("extract")).toBeGreaterThan(EXTRACT_DELAY_MS - 10_000);
    expect(runIn("deep_score")).toBeLessThanOrEqual(0);
  });

  it("never gives the same job to two workers", async () => {
    const t = await createTenant(handle.db);
    for (let i = 0; i < 40; i++) await enqueueJob(handle.db, { tenantId: t, type: "digest", payload: { i } });
    const seen: number[] = [];
    const handlers: JobHandlers = { digest: async (_db, job) => void seen.push(job.id) };
    const worker = async (id: string) => {
      for (let round = 0; round < 20; round++) await processJobsOnce(handle.db, handlers, { workerId: id, limit: 3 });
    };
    await Promise.all([worker("a"), worker("b"), worker("c")]);
    expect(seen).toHaveLength(40);
    expect(new Set(seen).size).toBe(40);
  });

  it("retries a job once when its worker dies mid-job and the lease expires", async () => {
    const t = await createTenant(handle.db);
    await enqueueJob(handle.db, { tenantId: t, type: "hotness_decay", dedupeKey: `decay:${t}` });
    const [first] = await leaseJobs(handle.db, { workerId: "dies", limit: 1, leaseMs: 200, types: ["hotness_decay"] });
    expect(first?.attempts).toBe(1);
    expect(
      await leaseJobs(handle.db, { workerId: "other", limit: 1, leaseMs: 60_000, types: ["hotness_decay"] }),
    ).toEqual([]);
    await new Promise((r) => setTimeout(r, 350));
    const [again] = await leaseJobs(handle.db, {
      workerId: "survivor",
      limit: 1,
      leaseMs: 60_000,
      types: ["hotness_decay"],
    });
    expect(again).toMatchObject({ id: first!.id, attempts: 2, leasedBy: "survivor" });
    expect(await completeJob(handle.db, first!, "dies")).toBe(false);
    expect(await completeJob(handle.db, again!, "survivor")).toBe(true);
  });

  it("seals a set of chunks once and counts each mention once when two runs of a session's job overlap", async () => {
    const { t, u, ctx } = await capturingAgent(handle.db);
    const messages = Array.from({ length: SEAL_THRESHOLD }, (_, i) => ({
      role: "user" as const,
      content: `Review ${i + 1} of https://github.com/acme/hermes: the release slipped again.`,
    }));
    await appendMessages(handle.db, ctx, { sessionId: "s-twins", userScopeId: u, messages });
    await handle.db
      .update(memoryChunks)
      .set({ admission: "admitted" })
      .where(and(eq(memoryChunks.tenantId, t), eq(memoryChunks.sessionId, "s-twins")));
    const [routedA, routedB] = await Promise.all([
      routeTopicsForSession(handle.db, { tenantId: t, sessionId: "s-twins" }),
      routeTopicsForSession(handle.db, { tenantId: t, sessionId: "s-twins" }),
    ]);
    const links = await handle.db.select().from(memoryChunkTopics).where(eq(memoryChunkTopics.tenantId, t));
    expect(links).toHaveLength(SEAL_THRESHOLD);
    expect(routedA.links + routedB.links).toBe(links.length);
    const topics = await handle.db.select().from(memoryTopics).where(eq(memoryTopics.tenantId, t));
    for (const topic of topics)
      expect(topic.mentionCount, topic.name).toBe(links.filter((l) => l.topicId === topic.id).length);
    const [sealA, sealB] = await Promise.all([
      sealSession(handle.db, { tenantId: t, sessionId: "s-twins", llm: null }),
      sealSession(handle.db, { tenantId: t, sessionId: "s-twins", llm: null }),
    ]);
    expect([sealA.sealed, sealB.sealed].sort()).toEqual([0, SEAL_THRESHOLD]);
    const l1 = await handle.db
      .select()
      .from(memoryTreeSummaries)
      .where(and(eq(memoryTreeSummaries.tenantId, t), eq(memoryTreeSummaries.level, 1)));
    expect(l1).toHaveLength(1);
    const chunks = await handle.db
      .select()
      .from(memoryChunks)
      .where(and(eq(memoryChunks.tenantId, t), eq(memoryChunks.sessionId, "s-twins")));
    expect(chunks.every((c) => c.admission === "sealed" && c.sealedIntoId === l1[0]!.id)).toBe(true);
  });

  it("moves a job whose worker died on every attempt to dead instead of leasing it forever", async () => {
    const t = await createTenant(handle.db);
    await enqueueJob(handle.db, { tenantId: t, type: "hotness_decay", dedupeKey: `decay-crash:${t}`, maxAttempts: 2 });
    for (const worker of ["crash-1", "crash-2"]) {
      const [leased] = await leaseJobs(handle.db, {
        workerId: worker,
        limit: 1,
        leaseMs: 100,
        types: ["hotness_decay"],
      });
      expect(leased, worker).toMatchObject({ leasedBy: worker });
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(
      await leaseJobs(handle.db, { workerId: "crash-3", limit: 1, leaseMs: 100, types: ["hotness_decay"] }),
    ).toEqual([]);
    const [job] = await handle.db.select().from(memoryJobs).where(eq(memoryJobs.tenantId, t));
    expect(job).toMatchObject({ status: "dead", attempts: 2, leasedUntil: null });
    expect(job!.lastError).toMatch(/lease expired/);
    // Its dedupe key is free again: the next day's job can be queued.
    expect(
      await enqueueJob(handle.db, { tenantId: t, type: "hotness_decay", dedupeKey: `decay-crash:${t}` }),
    ).not.toBeNull();
  });

  it("moves a job that keeps failing to dead after its attempts", async () => {
    const t = await createTenant(handle.db);
    await enqueueJob(handle.db, { tenantId: t, type: "digest", maxAttempts: 2 });
    const failing: JobHandlers = { digest: async () => Promise.reject(new Error("boom")) };
    await processJobsOnce(handle.db, failing, { workerId: "w" });
    await handle.db
      .update(memoryJobs)
      .set({ runAt: new Date(0) })
      .where(eq(memoryJobs.tenantId, t));
    await processJobsOnce(handle.db, failing, { workerId: "w" });
    const [job] = await handle.db.select().from(memoryJobs).where(eq(memoryJobs.tenantId, t));
    expect(job).toMatchObject({ status: "dead", attempts: 2, lastError: "boom" });
  });

  /** Two digest jobs of a new tenant, and handlers that record which ran and then do `work`. */
  async function twoDigestJobs(work: (db: TestDatabase["db"]) => Promise<void>) {
    const t = await createTenant(handle.db);
    const ids: number[] = [];
    for (const day of ["2026-01-01", "2026-01-02"])
      ids.push(
        (await enqueueJob(handle.db, { tenantId: t, type: "digest", dedupeKey: `two:${t}:${day}`, payload: { day } }))!,
      );
    const ran: number[] = [];
    const handlers: JobHandlers = {
      digest: async (db, job) => {
        if (job.tenantId !== t) return null;
        ran.push(job.id);
        await work(db);
        return null;
      },
    };
    return { t, ids, ran, handlers };
  }

  it("renews a batch's leases while it runs: a job waiting behind a slow one is not run by a second worker", async () => {
    // Lease 1.5 s, renewed every 0.5 s; the first job runs 3.5 s (a loaded CI machine may stall a renewal for a while).
    const {
      t,
      ids,
      ran,
      handlers: slow,
    } = await twoDigestJobs(async () => {
      await new Promise((r) => setTimeout(r, 3500));
    });
    // Every due digest job in one batch: other test files share the Postgres database and queue theirs too.
    const batch = processJobsOnce(handle.db, slow, { workerId: "slow", leaseMs: 1500, limit: 1000 });
    // The second worker starts once the first holds both jobs: on Postgres its first lease could
    // otherwise come before the first worker's (two connections), and that would be no renewal's fault.
    for (let waited = 0; waited < 5000; waited += 20) {
      const holders = await handle.db
        .select({ leasedBy: memoryJobs.leasedBy })
        .from(memoryJobs)
        .where(inArray(memoryJobs.id, ids));
      if (holders.every((h) => h.leasedBy === "slow")) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    // Without renewal the second job's lease runs out 1.5 s in, while the first still runs.
    const taken: number[] = [];
    const end = Date.now() + 4000;
    while (Date.now() < end) {
      for (const job of await leaseJobs(handle.db, {
        workerId: "eager",
        limit: 10,
        leaseMs: 60_000,
        types: ["digest"],
      }))
        taken.push(job.id);
      await new Promise((r) => setTimeout(r, 50));
    }
    const outcome = await batch;
    expect(taken.filter((id) => ids.includes(id))).toEqual([]);
    expect(ran).toEqual(ids);
    expect(outcome).toMatchObject({ succeeded: 2, lost: 0 });
    const jobs = await handle.db
      .select({ status: memoryJobs.status, attempts: memoryJobs.attempts })
      .from(memoryJobs)
      .where(eq(memoryJobs.tenantId, t));
    expect(jobs).toEqual([
      { status: "succeeded", attempts: 1 },
      { status: "succeeded", attempts: 1 },
    ]);
  });

  it("skips a job of its batch that another worker took over, instead of running it beside the new holder", async () => {
    const {
      ids,
      ran,
      handlers: stalling,
    } = await twoDigestJobs(async (db) => {
      // As if this worker had stalled past its lease and another one had leased the next job.
      await db.update(memoryJobs).set({ leasedBy: "thief" }).where(eq(memoryJobs.id, ids[1]!));
      await new Promise((r) => setTimeout(r, 1200));
    });
    const outcome = await processJobsOnce(handle.db, stalling, { workerId: "stalls", leaseMs: 1500, limit: 1000 });
    expect(ran).toEqual([ids[0]]);
    expect(outcome).toMatchObject({ succeeded: 1, lost: 1 });
    const [second] = await handle.db.select().from(memoryJobs).where(eq(memoryJobs.id, ids[1]!));
    expect(second).toMatchObject({ status: "running", leasedBy: "thief" });
  });

  it("does not bring back a conversation erased while the extractor or the summarizer was working on it", async () => {
    const { t, u, by } = await capturingAgent(handle.db);
    const erase = (sessionId: string) =>
      handle.db.transaction((tx) => eraseConversation(tx, { tenantId: t, sessionId, now: new Date() }));
    // The extractor read 我不吃香菜, then the user erased the conversation while the model was asked.
    await appendMessages(handle.db, by, {
      sessionId: "s-gone",
      userScopeId: u,
      messages: [{ role: "user", content: "我不吃香菜。" }],
    });
    const erasingModel = (sessionId: string, answer: string): LlmClient => ({
      model: "stand-in",
      complete: async () => {
        await erase(sessionId);
        return answer;
      },
    });
    const extracted = await extractFromSession(handle.db, {
      tenantId: t,
      sessionId: "s-gone",
      llm: erasingModel("s-gone", JSON.stringify({ operations: [] })),
    });
    expect(extracted.written).toBe(0);
    expect(await handle.db.select({ id: memoryNodes.id }).from(memoryNodes).where(eq(memoryNodes.tenantId, t))).toEqual(
      [],
    );
    // The summarizer read twelve turns, one of them erased (a hard forget's evidence) while it wrote.
    const turns = Array.from({ length: 12 }, (_, i) => ({
      role: "user" as const,
      content: i === 4 ? "My locker code is Flurbington." : `Turn ${i} about the garden.`,
    }));
    const { messages } = await appendMessages(handle.db, by, { sessionId: "s-sum", userScopeId: u, messages: turns });
    const summarizing: LlmClient = {
      model: "stand-in",
      complete: async () => {
        await handle.db.delete(memoryMessages).where(eq(memoryMessages.id, messages[4]!.id));
        return JSON.stringify({ summary: "The locker code is Flurbington." });
      },
    };
    await expect(
      summarizeSession(handle.db, { tenantId: t, sessionId: "s-sum", llm: summarizing }),
    ).rejects.toMatchObject({ reason: "summary_messages_erased" });
    expect(
      await handle.db.select({ id: memorySummaries.id }).from(memorySummaries).where(eq(memorySummaries.tenantId, t)),
    ).toEqual([]);
  });

  it("extracts two cooking preference cards with the message as source, and supersedes on correction", async () => {
    const { t, u, by } = await capturingAgent(handle.db);
    const first = await appendMessages(handle.db, by, {
      sessionId: "cook",
      userScopeId: u,
      messages: [{ role: "user", content: "以后做饭别给我推荐香菜，我喜欢少油少辣。" }],
    });
    await drainJobs(handle.db);
    const cards = await activeCards(handle.db, t);
    expect(cards.map((c) => [c.key, c.scopeType, c.scopeId, c.explicitUserIntent]).sort()).toEqual([
      ["cooking.avoid_ingredient:香菜", "user", u, true],
      ["cooking.flavor_profile", "user", u, true],
    ]);
    expect(cards.every((c) => c.sourceMessageIds.includes(first.messages[0]!.id))).toBe(true);
    expect(cards.find((c) => c.kind === "flavor_profile")?.valueJson).toEqual({ oil: "low", spicy: "low" });

    await appendMessages(handle.db, by, {
      sessionId: "cook",
      userScopeId: u,
      messages: [{ role: "user", content: "香菜现在可以接受一点，但不要太多。" }],
    });
    await drainJobs(handle.db);
    const rows = await handle.db
      .select()
      .from(memoryNodes)
      .where(and(eq(memoryNodes.tenantId, t), eq(memoryNodes.kind, "avoid_ingredient")));
    expect(rows.map((r) => [r.revision, r.status]).sort()).toEqual([
      [1, "superseded"],
      [2, "active"],
    ]);
    expect(rows.find((r) => r.status === "active")?.title).toBe("用户可接受少量香菜");
  });

  it("does not propose again what the agent already saved from the same message", async () => {
    const { t, u, ctx } = await capturingAgent(handle.db);
    const turn = await appendMessages(handle.db, ctx, {
      sessionId: "s1",
      userScopeId: u,
      messages: [{ role: "user", content: "记住：我对花生过敏，以后做饭别放香菜。" }],
    });
    const said = turn.messages[0]!.id;
    // The agent saved the peanut allergy in its turn, under its own kind; not the coriander.
    await writeCards(
      handle.db,
      { ...ctx, trustedMessageIds: [said] },
      createOp(
        "food_avoidance",
        {
          title: "花生过敏",
          content: "用户对花生过敏。",
          valueJson: { food: "花生", reason: "allergy" },
          sourceMessageIds: [said],
        },
        { itemKey: "花生" },
      ),
    );
    await drainJobs(handle.db);
    const cards = await handle.db
      .select()
      .from(memoryNodes)
      .where(and(eq(memoryNodes.tenantId, t), eq(memoryNodes.status, "active")));
    // food_avoidance is a synonym of avoid_ingredient now: the agent's card is avoid_ingredient:花生, and
    // the extractor still adds the coriander the same message names.
    expect(cards.map((c) => c.key).sort()).toEqual(["cooking.avoid_ingredient:花生", "cooking.avoid_ingredient:香菜"]);
    expect(cards.every((c) => c.sourceMessageIds.includes(said))).toBe(true);
  });

  it("keeps inferred extractions out of user scope", async () => {
    const { t, u, by } = await capturingAgent(handle.db);
    await appendMessages(handle.db, by, {
      sessionId: "s-inf",
      userScopeId: u,
      messages: [{ role: "user", content: "这道菜别放葱，今天的晚饭少辣一点。" }],
    });
    await drainJobs(handle.db);
    const cards = await handle.db.select().from(memoryNodes).where(eq(memoryNodes.tenantId, t));
    expect(cards.length).toBeGreaterThan(0);
    expect(cards.every((c) => c.scopeType === "session" && !c.explicitUserIntent)).toBe(true);
  });

  it("does not bring back a card the user forgot from the message it was saved from", async () => {
    const { t, u, ctx } = await capturingAgent(handle.db);
    const turn = await appendMessages(handle.db, ctx, {
      sessionId: "s1",
      userScopeId: u,
      messages: [{ role: "user", content: "记住：以后做饭别给我推荐香菜。" }],
    });
    const said = turn.messages[0]!.id;
    const [id] = await writeCards(
      handle.db,
      { ...ctx, trustedMessageIds: [said] },
      createOp(
        "avoid_ingredient",
        { title: "不吃香菜", content: "推荐菜谱时避免香菜。", valueJson: "香菜", sourceMessageIds: [said] },
        { itemKey: "香菜" },
      ),
    );
    const forgot = await memoryForget(
      handle.db,
      { ...ctx, forgetIntent: true },
      { id, expectedRevision: 1, reason: "用户说忘掉这条" },
    );
    expect(forgot.done).toBe(true);
    await drainJobs(handle.db);
    expect(await activeCards(handle.db, t)).toEqual([]);
  });

  it("does not bring back a forgotten fact the agent saved without citing the message, nor one erased (hard) with its citation", async () => {
    const { t, u, ctx } = await capturingAgent(handle.db);
    const forgetting = { ...ctx, forgetIntent: true };
    // Soft forget of a card written in the agent's words, no sourceMessageIds.
    await appendMessages(handle.db, ctx, {
      sessionId: "s1",
      userScopeId: u,
      messages: [{ role: "user", content: "记住：以后做饭别给我推荐香菜。" }],
    });
    const [uncited] = await writeCards(
      handle.db,
      ctx,
      createOp(
        "avoid_ingredient",
        { title: "不吃香菜", content: "推荐菜谱时避免香菜。", valueJson: "香菜" },
        { itemKey: "香菜" },
      ),
    );
    expect(
      (await memoryForget(handle.db, forgetting, { id: uncited, expectedRevision: 1, reason: "算了，别记这个了" }))
        .done,
    ).toBe(true);
    // Hard forget of a card that cited its message (the message stays: no eraseEvidence).
    const turn = await appendMessages(handle.db, ctx, {
      sessionId: "s1",
      userScopeId: u,
      messages: [{ role: "user", content: "记住：我对花生过敏。" }],
    });
    const said = turn.messages[0]!.id;
    const [cited] = await writeCards(
      handle.db,
      { ...ctx, trustedMessageIds: [said] },
      createOp(
        "food_avoidance",
        { title: "花生过敏", content: "对花生过敏。", valueJson: "花生", sourceMessageIds: [said] },
        { itemKey: "花生" },
      ),
    );
    expect(
      (await memoryForget(handle.db, forgetting, { id: cited, expectedRevision: 1, mode: "hard", reason: "彻底删除" }))
        .done,
    ).toBe(true);
    await drainJobs(handle.db);
    expect(await activeCards(handle.db, t)).toEqual([]);
  });

  it("leaves a fact the agent saved in its own words, uncited, as the agent wrote it", async () => {
    const { t, u, ctx } = await capturingAgent(handle.db);
    await appendMessages(handle.db, ctx, {
      sessionId: "s1",
      userScopeId: u,
      messages: [{ role: "user", content: "记住：以后做饭别给我推荐香菜。" }],
    });
    const [id] = await writeCards(
      handle.db,
      ctx,
      createOp(
        "avoid_ingredient",
        { title: "Avoid cilantro", content: "Never suggest cilantro (香菜) in recipes.", valueJson: "香菜" },
        { itemKey: "香菜" },
      ),
    );
    await drainJobs(handle.db);
    const cards = await activeCards(handle.db, t);
    expect(cards.map((c) => [c.id, c.revision, c.title])).toEqual([[id, 1, "Avoid cilantro"]]);
  });

  it("works through a backfill larger than one batch: every message is extracted, summarized and scored", async () => {
    const { t, u, ctx } = await capturingAgent(handle.db);
    const total = SESSION_BATCH.messages + 30;
    const messages = Array.from({ length: total }, (_, i) => ({
      role: "user" as const,
      content:
        i === total - 1 ? "记住：以后做饭别给我推荐香菜。" : `Backfilled note number ${i + 1} about the garden shed.`,
    }));
    for (let i = 0; i < total; i += 100)
      await appendMessages(handle.db, ctx, {
        sessionId: "s-backfill",
        userScopeId: u,
        messages: messages.slice(i, i + 100),
      });
    await drainJobs(handle.db);
    // The last message of the backfill was read by the extractor (a card from it), and summaries reach it.
    const cards = await activeCards(handle.db, t);
    expect(cards.some((c) => c.itemKey === "香菜")).toBe(true);
    const pending = await handle.db
      .select()
      .from(memoryChunks)
      .where(and(eq(memoryChunks.tenantId, t), eq(memoryChunks.admission, "pending")));
    expect(pending).toEqual([]);
    const [latest] = await handle.db
      .select()
      .from(memorySummaries)
      .where(eq(memorySummaries.tenantId, t))
      .orderBy(desc(memorySummaries.createdAt))
      .limit(1);
    const [lastMessage] = await handle.db
      .select()
      .from(memoryMessages)
      .where(and(eq(memoryMessages.tenantId, t), eq(memoryMessages.sessionId, "s-backfill")))
      .orderBy(desc(memoryMessages.seq))
      .limit(1);
    expect(latest!.toMessageId).toBe(lastMessage!.id);
  });

  it("extracts nothing from a request to forget, nor what it names from the messages before it", async () => {
    const { t, u, by } = await capturingAgent(handle.db);
    await appendMessages(handle.db, by, {
      sessionId: "s-forget",
      userScopeId: u,
      messages: [
        { role: "user", content: "以后做饭别给我推荐香菜，也别放葱。" },
        { role: "user", content: "算了，忘掉我不吃香菜这件事。" },
        { role: "user", content: "Forget that I don't eat cilantro." },
        { role: "user", content: "以后别再记我不吃花生了。" },
        // "Don't forget" asks the opposite: kept.
        { role: "user", content: "别忘了，以后做饭也别放蒜。" },
      ],
    });
    await drainJobs(handle.db);
    expect((await activeCards(handle.db, t)).map((c) => c.key).sort()).toEqual([
      "cooking.avoid_ingredient:葱",
      "cooking.avoid_ingredient:蒜",
    ]);
  });

  it("reads 'no longer dislikes' as a correction of an avoidance, never as one", async () => {
    const { t, u, by } = await capturingAgent(handle.db);
    const say = (content: string) =>
      appendMessages(handle.db, by, { sessionId: "s-neg", userScopeId: u, messages: [{ role: "user", content }] });
    await say("我现在不讨厌香菜了。");
    await drainJobs(handle.db);
    expect(await activeCards(handle.db, t)).toEqual([]);
    await say("记住：以后做饭别给我推荐香菜。");
    await drainJobs(handle.db);
    expect((await activeCards(handle.db, t)).map((c) => [c.key, c.revision])).toEqual([
      ["cooking.avoid_ingredient:香菜", 1],
    ]);
    await say("其实我不再讨厌香菜了。");
    await drainJobs(handle.db);
    expect((await activeCards(handle.db, t)).map((c) => [c.key, c.revision, c.title])).toEqual([
      ["cooking.avoid_ingredient:香菜", 2, "用户不再忌口香菜"],
    ]);
  });

  it("writes only where the key that captured the messages may write now", async () => {
    const org = await createOrg(handle.db);
    const t = org.tenantId;
    // The admin took the member's write access to their own profile away; a second key was revoked.
    await setGrant(handle.db, {
      tenantId: t,
      actorUserId: org.adminId,
      input: {
        principalType: "user",
        principalId: org.memberId,
        scope: `user:${org.memberId}`,
        canRead: true,
        canWrite: false,
      },
    });
    const { apiKey } = await createKey(handle.db, { tenantId: t, ownerUserId: org.memberId });
    const { apiKey: revoked } = await createKey(handle.db, { tenantId: t, ownerUserId: org.memberId });
    await revokeApiKey(handle.db, { tenantId: t, keyId: revoked.id, actorUserId: org.adminId });
    const by = (id: string) => ({ tenantId: t, actor: { type: "api_key" as const, id } });
    await appendMessages(handle.db, by(apiKey.id), {
      sessionId: "s-key",
      userScopeId: org.memberId,
      workspaceId: "w-not-granted",
      messages: [{ role: "user", content: "记住：以后做饭别给我推荐香菜。项目预算是 5 万元。" }],
    });
    await appendMessages(handle.db, by(revoked.id), {
      sessionId: "s-revoked",
      userScopeId: org.memberId,
      messages: [{ role: "user", content: "记住：以后做饭别给我推荐花生。" }],
    });
    await drainJobs(handle.db);
    // Not the profile (no write), not the workspace (never granted): the budget lands in the session.
    expect((await activeCards(handle.db, t)).map((c) => [c.key, c.scopeType, c.scopeId])).toEqual([
      ["custom.fact:budget", "session", "s-key"],
    ]);
  });

  it("routes entities to topics with hotness, seals L1 summaries, and appends the summary chain", async () => {
    const t = await createTenant(handle.db);
    const messages = Array.from({ length: SEAL_THRESHOLD + 2 }, (_, i) => ({
      role: "user" as const,
      content: `记住：github.com/acme/rocket 项目第 ${i + 1} 次评审通过了，预算 ${i + 1} 万，需要在 2026-06-${String(10 + i).padStart(2, "0")} 前完成。`,
    }));
    await appendMessages(handle.db, actor(t), { sessionId: "long", messages });
    await drainJobs(handle.db);
    const [topic] = await handle.db
      .select()
      .from(memoryTopics)
      .where(and(eq(memoryTopics.tenantId, t), eq(memoryTopics.normalizedName, "repo:acme/rocket")));
    expect(topic).toMatchObject({ mentionCount: SEAL_THRESHOLD + 2, status: "active" });
    expect(topic!.hotness).toBeCloseTo(0.05 * (SEAL_THRESHOLD + 2), 5);
    expect(topic!.summary).toBeTruthy();
    const sealed = await handle.db
      .select()
      .from(memoryChunks)
      .where(and(eq(memoryChunks.tenantId, t), eq(memoryChunks.admission, "sealed")));
    expect(sealed).toHaveLength(SEAL_THRESHOLD);
    const [l1] = await handle.db
      .select()
      .from(memoryTreeSummaries)
      .where(and(eq(memoryTreeSummaries.tenantId, t), eq(memoryTreeSummaries.level, 1)));
    expect(l1!.chunkIds.sort()).toEqual(sealed.map((c) => c.id).sort());
    expect(sealed.every((c) => c.sealedIntoId === l1!.id)).toBe(true);
    const summary = await getLatestSummary(handle.db, { tenantId: t, sessionId: "long" });
    // The summary covers all twelve messages, and of the twelve budgets states the latest only.
    expect(summary).toMatchObject({ messageCount: SEAL_THRESHOLD + 2 });
    expect(summary!.constraints.filter((c) => c.startsWith("预算"))).toEqual([`预算 ${SEAL_THRESHOLD + 2}万`]);
    expect(summary!.summary).toContain(`预算 ${SEAL_THRESHOLD + 2}万`);

    await decayTopicHotness(handle.db, { tenantId: t });
    const [decayed] = await handle.db.select().from(memoryTopics).where(eq(memoryTopics.id, topic!.id));
    expect(decayed!.hotness).toBeCloseTo(topic!.hotness * 0.95, 5);
  });

  it("uses an OpenAI-compatible model when configured (local stand-in server)", async () => {
    await withStandInModel(
      (system) =>
        system.includes("worth remembering")
          ? JSON.stringify({ admitted: true, score: 0.9 })
          : system.includes("Extract durable facts")
            ? JSON.stringify({
                operations: [
                  {
                    kind: "occupation",
                    title: "Job",
                    content: "Works as a lighthouse keeper.",
                    valueJson: "lighthouse keeper",
                  },
                ],
              })
            : "summary",
      async (llm, requests) => {
        const { t, u, by } = await capturingAgent(handle.db);
        await appendMessages(handle.db, by, {
          sessionId: "llm",
          userScopeId: u,
          messages: [{ role: "user", content: "Remember: I work as a lighthouse keeper on the north coast." }],
        });
        await drainJobs(handle.db, treeJobHandlers(llm));
        expect(requests.every((r) => r.path === "/v1/chat/completions" && r.body.model === "stand-in")).toBe(true);
        const [chunk] = await handle.db.select().from(memoryChunks).where(eq(memoryChunks.tenantId, t));
        expect(chunk).toMatchObject({ admission: "admitted", deepScore: 0.9 });
        const [card] = await handle.db
          .select()
          .from(memoryNodes)
          .where(and(eq(memoryNodes.tenantId, t), eq(memoryNodes.kind, "occupation")));
        // "Remember" is an explicit cue in the user's words, so the model's card may enter user scope.
        expect(card).toMatchObject({ valueJson: "lighthouse keeper", scopeType: "user", explicitUserIntent: true });
      },
    );
  });

  it("has the model write the session's summary chain when one is configured, and keeps the rules' summary when it answers out of shape", async () => {
    const chain = {
      summary: "用户在规划杭州三日游，预算 5000 元。",
      currentGoal: "规划杭州三日游",
      decisions: ["住西湖边"],
      pendingWork: ["订高铁票"],
      preferences: ["不吃辣"],
    };
    let shape: "good" | "bad" = "good";
    await withStandInModel(
      (system) =>
        system.includes("running summary")
          ? shape === "good"
            ? JSON.stringify(chain)
            : JSON.stringify({ summary: 42 })
          : "{}",
      async (llm, requests) => {
        const t = await createTenant(handle.db);
        const turn = (n: number) =>
          Array.from({ length: 10 }, (_, i) => ({
            role: "user" as const,
            content: `第 ${n}-${i + 1} 条：帮我规划杭州三日游，预算 5000 元，住西湖边，我不吃辣。`,
          }));
        await appendMessages(handle.db, actor(t), { sessionId: "trip", messages: turn(1) });
        await drainJobs(handle.db, treeJobHandlers(llm));
        const first = await getLatestSummary(handle.db, { tenantId: t, sessionId: "trip" });
        expect(first).toMatchObject({
          generator: "stand-in",
          summary: chain.summary,
          currentGoal: chain.currentGoal,
          decisions: chain.decisions,
          pendingWork: chain.pendingWork,
          preferences: chain.preferences,
          constraints: [],
        });
        // The next one is built from this one and the new messages only.
        const prompt = requests.filter((r) => r.body.messages[0]?.content.includes("running summary")).at(-1)!.body
          .messages[1]!.content;
        expect(prompt).toContain("Previous summary: none yet");
        shape = "bad";
        await appendMessages(handle.db, actor(t), { sessionId: "trip", messages: turn(2) });
        await drainJobs(handle.db, treeJobHandlers(llm));
        const second = await getLatestSummary(handle.db, { tenantId: t, sessionId: "trip" });
        expect(second).toMatchObject({ generator: "rules", parentSummaryId: first!.id });
        const secondPrompt = requests.filter((r) => r.body.messages[0]?.content.includes("running summary")).at(-1)!
          .body.messages[1]!.content;
        expect(secondPrompt).toContain(chain.summary);
        expect(secondPrompt).not.toContain("第 1-1 条");
      },
    );
  });
});
