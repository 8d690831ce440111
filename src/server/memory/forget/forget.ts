import { and, eq, inArray, sql } from "drizzle-orm";
import type { Database, Transaction } from "~/db/types";
import { memoryMessages, memoryNodes, type MemoryCardRow } from "~/db/schema";
import { recordAudit } from "../store/audit";
import { commitWith } from "~/db/pipelined";
import { isAgent, type CallTime, type MemoryCallContext } from "../call-context";
import { BUILT_IN_KIND_REGISTRY, loadKindRegistry, type KindRegistry } from "../kinds/custom";
import { eraseLineages } from "./erase";
import { canEraseSession } from "./erase-session";
import { memoryForgetInputSchema, type ForgetCandidate, type MemoryForgetResult } from "./schema";
import {
  claimIdempotencyKey,
  findIdempotentResponse,
  requestHash,
  storeIdempotentResponse,
} from "../write/idempotency";
import { currentRevisionOf } from "../retrieval/history";
import { auditSnapshot } from "../store/card-view";
import { structuredFilterConditions } from "../store/card-filter";
import { endActiveRevision, getCardRow } from "../store/card-revisions";
import { formatScope, parseScope, scopeAllowed } from "../scope";
import { retryOnContention } from "~/db/pg-errors";
import { turnScopes } from "../retrieval/read-scopes";
import { scopePatternsCondition } from "../store/scope-sql";
import { parseInput } from "~/server/validation";
import { unknownKindsNotice } from "../kinds/unknown";

type Input = ReturnType<typeof memoryForgetInputSchema.parse>;

const candidate = (row: MemoryCardRow): ForgetCandidate => ({
  id: row.id,
  revision: row.revision,
  scope: formatScope({ type: row.scopeType, id: row.scopeId }),
  key: row.key,
  title: row.title,
  status: row.status,
});

const refused = (
  mode: Input["mode"],
  reason: string,
  message: string,
  extra: Partial<MemoryForgetResult> = {},
): MemoryForgetResult => ({
  done: false,
  mode,
  deletedIds: [],
  reason,
  message: `${message} Nothing was deleted; do not tell the user it was forgotten.`,
  ...extra,
});

/** Cards the call names, all locked; conflicts reported instead of guessed around. */
async function resolveTargets(
  tx: Transaction,
  registry: KindRegistry,
  ctx: MemoryCallContext,
  input: Input,
): Promise<MemoryForgetResult | MemoryCardRow[]> {
  const hard = input.mode === "hard";
  if (input.all || input.selector) {
    // An agent forgets in its own conversation, not in every session a `session:*` grant reaches
    // (other people's): "clear all my memory" must not empty a colleague's session, nor a selector
    // list their cards as candidates. Search reads the same way; a scope the call names is taken as named.
    const named = input.all ? input.scope : input.selector?.scope;
    const reach = isAgent(ctx) && !named ? turnScopes(ctx.writeScopes, ctx.defaults.session?.id) : ctx.writeScopes;
    const conditions = [eq(memoryNodes.tenantId, ctx.tenantId), scopePatternsCondition(reach)];
    if (!hard) conditions.push(eq(memoryNodes.status, "active"));
    if (input.selector) {
      const { kind, type, ...rest } = input.selector;
      conditions.push(
        ...structuredFilterConditions(
          { ...rest, kinds: kind ? [kind] : undefined, types: type ? [type] : undefined },
          registry,
        ),
      );
    }
    if (input.all && input.scope) {
      const scope = parseScope(input.scope);
      conditions.push(eq(memoryNodes.scopeType, scope.type), eq(memoryNodes.scopeId, scope.id));
    }
    // Locked in id order, like targets below, so concurrent forgets never wait on each other in a cycle.
    let rows = await tx
      .select()
      .from(memoryNodes)
      .where(and(...conditions))
      .orderBy(memoryNodes.id)
      .for("update");
    // A hard delete of a selector is about the facts, one per chain: the head of each (the revision
    // nothing followed: active, or forgotten / expired before, since "彻底删除" after a soft forget
    // must still find it); the chains go with them.
    if (hard && input.selector) rows = rows.filter((r) => !r.supersededById);
    if (input.selector && rows.length === 0) {
      const unknown = unknownKindsNotice(registry, input.selector.kind ? [input.selector.kind] : undefined);
      return refused(
        input.mode,
        "no_match",
        `No memory you can delete matches that selector.${unknown ? ` ${unknown}` : ""}`,
      );
    }
    if (input.selector && rows.length > 1) {
      return refused(
        input.mode,
        "requires_confirmation",
        `${rows.length} memories match that selector. Confirm with the user which ones, then forget them with targets (id + expectedRevision).`,
        {
          requiresConfirmation: true,
          candidates: rows.map(candidate),
        },
      );
    }
    return rows;
  }
  const targets = [...(input.targets ?? [{ id: input.id!, expectedRevision: input.expectedRevision! }])].sort((a, b) =>
    a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
  );
  const rows: MemoryCardRow[] = [];
  const conflicts: NonNullable<MemoryForgetResult["conflicts"]> = [];
  for (const target of targets) {
    const row = await getCardRow(tx, { tenantId: ctx.tenantId, id: target.id, forUpdate: true });
    const scope = row && { type: row.scopeType, id: row.scopeId };
    if (!row || !scope || !scopeAllowed(scope, ctx.readScopes)) {
      return refused(input.mode, "not_found", `No memory ${target.id} in scopes you can read.`);
    }
    if (!scopeAllowed(scope, ctx.writeScopes))
      return refused(input.mode, "scope_not_writable", `You may not delete from scope ${formatScope(scope)}.`);
    // Hard mode erases the whole chain: an old revision's id must not reach a newer one the caller never saw.
    const stale =
      row.revision !== target.expectedRevision || (hard ? row.supersededById !== null : row.status !== "active");
    if (!stale) {
      rows.push(row);
      continue;
    }
    // An id from before an update: name the card that is current now, the one to forget.
    const current =
      row.status === "active"
        ? undefined
        : await currentRevisionOf(tx, { tenantId: ctx.tenantId, lineageId: row.lineageId });
    conflicts.push({
      id: row.id,
      expectedRevision: target.expectedRevision,
      currentRevision: row.revision,
      currentStatus: row.status,
      ...(current ? { currentId: current.id, currentIdRevision: current.revision } : {}),
    });
  }
  if (conflicts.length) {
    const replaced = conflicts
      .filter((c) => c.currentId)
      .map((c) => `${c.id} was replaced by ${c.currentId} (revision ${c.currentIdRevision})`);
    const hint = replaced.length
      ? ` ${replaced.join("; ")}: forget that card with its revision.`
      : " Re-read them with memory_get and retry.";
    return refused(input.mode, "conflict", `Some memories changed since you read them (see conflicts).${hint}`, {
      conflicts,
    });
  }
  return rows;
}

/**
 * The conversations whose cited messages this caller may not erase: erasing evidence deletes messages,
 * which takes what erasing their conversation takes (write access to the session and to the profile of
 * the person they were captured for), not only write access to the card citing them. Otherwise a member
 * who may write a workspace card could erase a colleague's conversation through it.
 */
async function evidenceNotErasable(
  tx: Transaction,
  ctx: MemoryCallContext,
  lineageIds: readonly string[],
): Promise<string[]> {
  const cited = tx
    .select({ id: sql<string>`unnest(${memoryNodes.sourceMessageIds})`.as("id") })
    .from(memoryNodes)
    .where(and(eq(memoryNodes.tenantId, ctx.tenantId), inArray(memoryNodes.lineageId, [...lineageIds])))
    .as("cited");
  const messages = await tx
    .selectDistinct({ sessionId: memoryMessages.sessionId, owner: memoryMessages.userScopeId })
    .from(memoryMessages)
    .where(
      and(
        eq(memoryMessages.tenantId, ctx.tenantId),
        inArray(memoryMessages.id, tx.select({ id: cited.id }).from(cited)),
      ),
    );
  const blocked = messages.filter((m) => !canEraseSession(ctx.writeScopes, m.sessionId, m.owner ? [m.owner] : []));
  return [...new Set(blocked.map((m) => m.sessionId))].sort();
}

/**
 * `memory_forget`: soft (status deleted, history kept) or hard (chains physically removed, audit
 * scrubbed, erasure receipt). A selector matching several cards deletes nothing and asks for
 * confirmation; `all` needs the user's forget-all intent. One transaction.
 */
export async function memoryForget(
  db: Database,
  ctx: MemoryCallContext,
  rawInput: unknown,
  time: CallTime = {},
): Promise<MemoryForgetResult> {
  const input = parseInput(memoryForgetInputSchema, rawInput, "memory_forget input");
  if (isAgent(ctx) && !ctx.forgetIntent) {
    return refused(
      input.mode,
      "forget_intent_required",
      "Forgetting needs the user's explicit request in this turn (the host sets forgetIntent).",
    );
  }
  if (input.all && !ctx.forgetAllIntent) {
    return refused(
      input.mode,
      "forget_all_intent_required",
      "Forgetting everything needs the user's explicit request to clear all memory (the host sets forgetAllIntent).",
    );
  }
  const idem = input.idempotencyKey
    ? {
        tenantId: ctx.tenantId,
        principalId: `${ctx.actor.type}:${ctx.actor.id ?? "system"}`,
        key: input.idempotencyKey,
        hash: requestHash(rawInput),
      }
    : null;
  if (idem) {
    const stored = await findIdempotentResponse<MemoryForgetResult>(db, idem);
    if (stored) return { ...stored, replayed: true };
  }

  // Loaded before the transaction (PGlite has one connection, so nothing may query `db` inside it),
  // and only when a selector names a kind or key: the registry resolves kind names, nothing else.
  const registry =
    input.selector?.kind || input.selector?.key ? await loadKindRegistry(db, ctx.tenantId) : BUILT_IN_KIND_REGISTRY;
  return retryOnContention(() =>
    commitWith(db, async (tx, audits) => {
      // A twin still running holds the key: its answer, once committed, is this call's too.
      const stored = idem ? await claimIdempotencyKey<MemoryForgetResult>(tx, idem) : undefined;
      if (stored) return { ...stored, replayed: true };
      const now = time.now ?? new Date();
      const resolved = await resolveTargets(tx, registry, ctx, input);
      if (!Array.isArray(resolved)) return resolved;
      let result: MemoryForgetResult;
      if (input.mode === "soft") {
        const deletedIds: string[] = [];
        try {
          for (const row of resolved) {
            const ended = await endActiveRevision(tx, {
              tenantId: ctx.tenantId,
              id: row.id,
              expectedRevision: row.revision,
              status: "deleted",
              actor: ctx.actor,
              at: now,
            });
            if (!ended) continue;
            deletedIds.push(ended.id);
            audits.send(
              recordAudit(tx, ctx, {
                eventType: "delete",
                nodeId: row.id,
                lineageId: row.lineageId,
                scope: { type: row.scopeType, id: row.scopeId },
                reason: input.reason,
                before: auditSnapshot(row),
              }),
            );
          }
        } catch (error) {
          // A failed audit insert is the cause of whatever failed after it.
          await audits.settle();
          throw error;
        }
        result = {
          done: true,
          mode: "soft",
          deletedIds,
          message: deletedIds.length
            ? `Forgot ${deletedIds.length} memor${deletedIds.length === 1 ? "y" : "ies"}; they will not be recalled again. This is done.`
            : "There was nothing active to forget.",
        };
      } else {
        const lineageIds = [...new Set(resolved.map((r) => r.lineageId))];
        const blocked = input.eraseEvidence ? await evidenceNotErasable(tx, ctx, lineageIds) : [];
        if (blocked.length) {
          return refused(
            input.mode,
            "evidence_not_erasable",
            `The evidence of ${lineageIds.length === 1 ? "this memory" : "these memories"} includes messages of conversations you may not erase (${blocked.map((id) => `session:${id}`).join(", ")}): erasing messages needs write access to their conversation and to the profile of the person they were captured for. Send the hard delete without eraseEvidence to erase the memory and keep those messages, or ask an admin.`,
          );
        }
        const receipt = await eraseLineages(tx, {
          tenantId: ctx.tenantId,
          lineageIds,
          eraseEvidence: input.eraseEvidence,
          now,
        });
        audits.send(recordAudit(tx, ctx, { eventType: "hard_delete", reason: input.reason, metadata: { receipt } }));
        result = {
          done: true,
          mode: "hard",
          deletedIds: resolved.map((r) => r.id),
          receipt,
          message: `Erased ${lineageIds.length} memor${lineageIds.length === 1 ? "y" : "ies"} (${receipt.revisionsRemoved} revisions${input.eraseEvidence ? `, ${receipt.messagesRemoved} evidence messages` : ""}) permanently. This is done.`,
        };
      }
      // The audit rows and the idempotent reply go out with the COMMIT.
      if (idem) audits.send(storeIdempotentResponse(tx, { ...idem, response: result }));
      return result;
    }),
  );
}
