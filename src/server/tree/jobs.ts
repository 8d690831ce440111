import { and, eq } from "drizzle-orm";
import type { Database } from "~/db/types";
import { memoryMessages, type MemoryJob } from "~/db/schema";
import type { JobHandlers } from "~/server/jobs/worker";
import { log } from "~/server/log";
import {
  appendSummary,
  coolRecallHotness,
  findActiveCards,
  getLatestSummary,
  loadTenantWithKinds,
  type MemoryCallContext,
  type MemoryScope,
  memoryWrite,
  scopeAllowed,
  type WriteOperation,
} from "~/server/memory";
import { countTokens } from "~/server/text/token-count";
import { createLlmClient, parseJsonObject, type LlmClient } from "~/server/providers/llm";
import { continueLater, lastProcessedSeq, messagesAfter, SESSION_BATCH } from "./cold-path";
import { decayTopicHotness, routeTopicsForSession } from "./topics";
import { deepScoreSession } from "./deep-score";
import { sealSession } from "./seal";
import { writeDailyDigest } from "./digest";
import { restatementAware } from "./extract-restated";
import { sessionCardCap } from "./extract-cap";
import { env } from "~/env";
import { capturerWriteScopes, type CapturerWriteScopes } from "./extract-authority";
import { capturedFromMessages, EXTRACTOR_ACTOR_ID, slotDecidedSince } from "./extract-coverage";
import {
  EXPLICIT_CUE,
  extractOperations,
  FORGET_CUE,
  forgetRequestNames,
  type ExtractedOperation,
} from "./extract-rules";
import { SUMMARY_EVERY_MESSAGES, SUMMARY_EVERY_TOKENS, summarizeIncrement } from "./summarize";
import { llmSummaryIncrement } from "./summarize-llm";

const sessionOf = (job: MemoryJob) => {
  const sessionId = job.payload.sessionId;
  if (typeof sessionId !== "string") throw new Error(`job ${job.id} has no sessionId`);
  return sessionId;
};

/**
 * The extractor acts as the system, on behalf of the session's owner, citing the messages it read —
 * in the message's session, user and workspace scopes, those of them its capturer may write.
 */
function extractorContext(
  tenantId: string,
  message: { sessionId: string; userScopeId: string | null; workspaceId: string | null },
  allowed: CapturerWriteScopes,
  trusted: string[],
): MemoryCallContext | null {
  const permitted = (scope: MemoryScope | undefined) =>
    scope && (allowed === null || scopeAllowed(scope, allowed)) ? scope : undefined;
  const session = permitted({ type: "session", id: message.sessionId });
  const user = permitted(message.userScopeId ? { type: "user", id: message.userScopeId } : undefined);
  const workspace = permitted(message.workspaceId ? { type: "workspace", id: message.workspaceId } : undefined);
  if (!session) return null;
  const scopes = [session, user, workspace].filter((s): s is MemoryScope => s !== undefined);
  return {
    tenantId,
    actor: { type: "system", id: EXTRACTOR_ACTOR_ID },
    readScopes: scopes,
    writeScopes: scopes,
    defaults: { session, user, workspace },
    trustedMessageIds: trusted,
  };
}

async function llmOperations(llm: LlmClient, text: string): Promise<ExtractedOperation[]> {
  const answer = parseJsonObject(
    await llm.complete(
      [
        {
          role: "system",
          content:
            'Extract durable facts about the user from their message as JSON {"operations":[{"kind":string,"itemKey"?:string,"title":string,"content":string,"valueJson"?:any}]}. ' +
            "Kinds: profile_name, home_location, occupation, timezone_preference, language_preference, hard_constraint, long_term_goal, custom_fact (needs itemKey), avoid_ingredient (itemKey = the ingredient or food), flavor_profile, communication_preference (itemKey). Return an empty list when nothing is worth keeping.",
        },
        { role: "user", content: text.slice(0, 6000) },
      ],
      { json: true },
    ),
  ) as {
    operations?: { kind?: unknown; itemKey?: unknown; title?: unknown; content?: unknown; valueJson?: unknown }[];
  };
  // Explicitness is decided by the user's words, never by the model's claim.
  const explicit = EXPLICIT_CUE.test(text);
  return (answer.operations ?? [])
    .filter((o) => typeof o.kind === "string" && typeof o.title === "string" && typeof o.content === "string")
    .map((o) => ({
      op: "create" as const,
      kind: o.kind as string,
      itemKey: typeof o.itemKey === "string" ? o.itemKey : undefined,
      explicit,
      node: { title: o.title as string, content: o.content as string, valueJson: o.valueJson },
    }));
}

/** Extraction (docs/memory-tree.md): propose operations from new user messages, write them through the normal rules. */
export async function extractFromSession(
  db: Database,
  params: { tenantId: string; sessionId: string; llm: LlmClient | null; maxCardsPerHour?: number },
) {
  const after = await lastProcessedSeq(db, { tenantId: params.tenantId, sessionId: params.sessionId, type: "extract" });
  const messages = await messagesAfter(db, {
    tenantId: params.tenantId,
    sessionId: params.sessionId,
    afterSeq: after,
    limit: SESSION_BATCH.messages,
  });
  const { tenant, registry } = await loadTenantWithKinds(db, params.tenantId);
  const userMessages = messages.filter((m) => m.role === "user");
  const captured = await capturedFromMessages(db, { tenantId: params.tenantId, messages: userMessages, registry });
  const allowedFor = capturerWriteScopes(db, params.tenantId);
  // "忘掉我不吃香菜" after "我不吃香菜": what a later request forgets is not extracted from before it.
  const forgetRequests = userMessages.filter((m) => FORGET_CUE.test(m.content));
  const forgottenLater = (message: { seq: number }, candidate: ExtractedOperation) =>
    forgetRequests.some((request) => request.seq > message.seq && forgetRequestNames(request.content, candidate));
  const cap = await sessionCardCap(db, {
    tenantId: params.tenantId,
    sessionId: params.sessionId,
    from: userMessages[0]?.createdAt,
    limit: params.maxCardsPerHour ?? env.EXTRACT_MAX_CARDS_PER_SESSION_HOUR,
  });
  let written = 0;
  let capped = 0;
  let restated = 0;
  let rejected = 0;
  for (const message of userMessages) {
    const ctx = extractorContext(params.tenantId, message, await allowedFor(message), [message.id]);
    if (!ctx) continue;
    let candidates = extractOperations(message.content);
    if (params.llm && !forgetRequests.includes(message)) {
      try {
        const fromModel = await llmOperations(params.llm, message.content);
        const seen = new Set(candidates.map((c) => `${c.kind}:${c.itemKey ?? ""}`));
        candidates = [...candidates, ...fromModel.filter((c) => !seen.has(`${c.kind}:${c.itemKey ?? ""}`))];
      } catch (error) {
        log("warn", `LLM extraction failed, rules only: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    for (const candidate of candidates.filter(
      (c) => !captured(message, c, candidates) && !forgottenLater(message, c),
    )) {
      if (!cap.allows(message.createdAt)) {
        capped++;
        continue;
      }
      if (
        await slotDecidedSince(db, {
          tenantId: params.tenantId,
          scopes: ctx.writeScopes,
          registry,
          candidate,
          since: message.createdAt,
        })
      )
        continue;
      const card = { ...candidate.node, sourceMessageIds: [message.id] };
      const scope =
        candidate.scopeHint === "workspace"
          ? (ctx.defaults.workspace ?? ctx.defaults.session)
          : candidate.scopeHint === "session"
            ? ctx.defaults.session
            : undefined;
      let operation: WriteOperation = {
        op: "create",
        kind: candidate.kind,
        itemKey: candidate.itemKey,
        explicitUserIntent: candidate.explicit,
        ...(scope ? { scope: `${scope.type}:${scope.id}` } : {}),
        node: card,
        reason: candidate.correction ? "user corrected an earlier statement" : "extracted from conversation",
      };
      if (candidate.target) {
        const [current] = await findActiveCards(db, {
          tenantId: params.tenantId,
          scopes: ctx.readScopes,
          registry,
          filter: { kinds: [candidate.target.kind], itemKey: candidate.target.itemKey },
          limit: 1,
        });
        if (current) {
          operation = {
            op: "supersede",
            targetId: current.id,
            expectedRevision: current.revision,
            kind: candidate.kind,
            itemKey: candidate.itemKey,
            explicitUserIntent: candidate.explicit,
            node: card,
            reason: "user corrected an earlier preference",
          };
        } else if (candidate.requiresTarget) continue;
      }
      // "预算5万" said again in other words is no new revision: memoryWrite answers noop.
      if (operation.op === "create")
        operation = await restatementAware(db, { tenant, registry, now: new Date() }, ctx, operation);
      // One candidate per call: a bad guess must not sink the good ones.
      const result = await memoryWrite(db, ctx, { operations: [operation] }).catch((error: unknown) => {
        log("warn", `extraction write failed: ${error instanceof Error ? error.message : String(error)}`);
        return null;
      });
      if (result?.results[0]?.status === "noop") restated++;
      else if (result?.done) {
        written++;
        cap.wrote(message.createdAt);
      } else rejected++;
    }
  }
  if (messages.length === SESSION_BATCH.messages)
    await continueLater(db, { tenantId: params.tenantId, type: "extract", sessionId: params.sessionId });
  return { lastSeq: messages.at(-1)?.seq ?? after, messages: messages.length, written, restated, capped, rejected };
}

/**
 * Appends the next summary of the chain when enough new messages (or tokens) piled up since the last
 * one: written by the model when one is configured, by the extractive rules otherwise or when it fails.
 */
export async function summarizeSession(
  db: Database,
  params: { tenantId: string; sessionId: string; llm?: LlmClient | null; closing?: boolean },
) {
  const latest = await getLatestSummary(db, params);
  let afterSeq = 0;
  if (latest) {
    const [to] = await db
      .select({ seq: memoryMessages.seq })
      .from(memoryMessages)
      .where(and(eq(memoryMessages.tenantId, params.tenantId), eq(memoryMessages.id, latest.toMessageId)));
    afterSeq = to?.seq ?? 0;
  }
  const fresh = await messagesAfter(db, { ...params, afterSeq, limit: SESSION_BATCH.messages });
  const tokens = fresh.reduce((sum, m) => sum + countTokens(m.content), 0);
  // A closing session (`closing`) gets its last summary from what is left, however little.
  const due =
    fresh.length >= SUMMARY_EVERY_MESSAGES ||
    tokens >= SUMMARY_EVERY_TOKENS ||
    (params.closing === true && fresh.length > 0);
  if (!due) return { appended: false, pending: fresh.length };
  let next: ReturnType<typeof summarizeIncrement> & { generator?: string } = summarizeIncrement(latest, fresh);
  if (params.llm) {
    try {
      next = { ...(await llmSummaryIncrement(params.llm, latest, fresh)), generator: params.llm.model };
    } catch (error) {
      log(
        "warn",
        `LLM summary failed, extractive summary kept: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  const summary = await appendSummary(
    db,
    { tenantId: params.tenantId, actor: { type: "system", id: "summarizer" } },
    {
      sessionId: params.sessionId,
      parentSummaryId: latest?.id ?? null,
      fromMessageId: fresh[0]!.id,
      toMessageId: fresh.at(-1)!.id,
      expectedMessageCount: fresh.length,
      ...next,
    },
  );
  if (fresh.length === SESSION_BATCH.messages)
    await continueLater(db, { tenantId: params.tenantId, type: "summarize", sessionId: params.sessionId });
  return { appended: true, summaryId: summary.id, lastSeq: fresh.at(-1)!.seq };
}

/** Every memory-tree job type, wired to its handler. Embedding jobs are added by the embeddings module. */
export function treeJobHandlers(llm: LlmClient | null = createLlmClient()): JobHandlers {
  return {
    deep_score: (db, job) => deepScoreSession(db, { tenantId: job.tenantId, sessionId: sessionOf(job), llm }),
    entities: (db, job) => routeTopicsForSession(db, { tenantId: job.tenantId, sessionId: sessionOf(job) }),
    topics: (db, job) => routeTopicsForSession(db, { tenantId: job.tenantId, sessionId: sessionOf(job) }),
    seal: (db, job) => sealSession(db, { tenantId: job.tenantId, sessionId: sessionOf(job), llm }),
    extract: (db, job) => extractFromSession(db, { tenantId: job.tenantId, sessionId: sessionOf(job), llm }),
    summarize: (db, job) => summarizeSession(db, { tenantId: job.tenantId, sessionId: sessionOf(job), llm }),
    digest: (db, job) =>
      writeDailyDigest(db, {
        tenantId: job.tenantId,
        day: typeof job.payload.day === "string" ? job.payload.day : new Date().toISOString().slice(0, 10),
      }),
    hotness_decay: async (db, job) => ({
      ...(await decayTopicHotness(db, { tenantId: job.tenantId })),
      ...(await coolRecallHotness(db, { tenantId: job.tenantId })),
    }),
  };
}
