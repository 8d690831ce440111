import { and, eq } from "drizzle-orm";
import type { Database } from "~/db/types";
import { memoryMessages } from "~/db/schema";
import { recordAudit } from "../store/audit";
import type { MemoryCallContext } from "../call-context";
import { eraseScopeCards } from "./erase";
import { eraseConversation } from "./erase-conversation";
import { mergeReceipts, receiptCounts } from "./receipts";
import type { ErasureReceipt } from "./schema";
import { retryOnContention } from "~/db/pg-errors";
import { formatScope, parseScope, scopeAllowed } from "../scope";

export type ScopeErasureReceipt = ErasureReceipt & { scope: string; sessionsErased: number };
export type ScopeErasureResult = { done: boolean; reason?: string; message: string; receipt?: ScopeErasureReceipt };

/**
 * Erase memory (docs/dashboard.md; "删除某个用户长期记忆 / 某个 workspace 记忆"): every card of one person's profile or of one
 * workspace, all revisions, erased for good in one transaction. For a person, `conversations` also
 * erases every conversation captured for them (messages, summaries, memory tree and their session
 * cards) — "彻底删除相关对话". Audited as one hard delete, with the receipt's counts.
 */
export async function eraseScopeMemory(
  db: Database,
  ctx: MemoryCallContext,
  input: { scope: string; conversations?: boolean; reason: string },
): Promise<ScopeErasureResult> {
  const scope = parseScope(input.scope);
  const refused = (reason: string, message: string): ScopeErasureResult => ({
    done: false,
    reason,
    message: `${message} Nothing was erased.`,
  });
  if (scope.type !== "user" && scope.type !== "workspace")
    return refused(
      "unsupported_scope",
      `Erase a person's (user:<id>) or a workspace's (workspace:<id>) memory here; a conversation from its session page.`,
    );
  if (!scopeAllowed(scope, ctx.writeScopes))
    return refused("scope_not_writable", `You may not write ${formatScope(scope)}.`);
  const conversations = input.conversations === true && scope.type === "user";
  // An erasure deletes rows writers lock: as their deadlock victim it is retried, as they are.
  return retryOnContention(() =>
    db.transaction(async (tx) => {
      const now = new Date();
      let receipt = await eraseScopeCards(tx, { tenantId: ctx.tenantId, scope, now });
      let sessionsErased = 0;
      if (conversations) {
        const sessions = await tx
          .selectDistinct({ id: memoryMessages.sessionId })
          .from(memoryMessages)
          .where(and(eq(memoryMessages.tenantId, ctx.tenantId), eq(memoryMessages.userScopeId, scope.id)));
        for (const { id } of sessions) {
          if (!scopeAllowed({ type: "session", id }, ctx.writeScopes)) continue;
          const erased = await eraseConversation(tx, { tenantId: ctx.tenantId, sessionId: id, now });
          if (!erased) continue;
          receipt = mergeReceipts(receipt, erased);
          sessionsErased++;
        }
      }
      const result: ScopeErasureReceipt = { ...receipt, scope: formatScope(scope), sessionsErased };
      await recordAudit(tx, ctx, {
        eventType: "hard_delete",
        scope,
        reason: input.reason,
        metadata: { erased: "scope", conversations, receipt: receiptCounts(result) },
      });
      return {
        done: true,
        receipt: result,
        message: `Erased ${formatScope(scope)}: ${result.revisionsRemoved} card revisions${conversations ? `, ${sessionsErased} conversations (${result.messagesRemoved} messages)` : ""}. This is done.`,
      };
    }),
  );
}
