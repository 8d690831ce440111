import { createHash } from "node:crypto";
import { and, desc, eq, sql } from "drizzle-orm";
import { memoryMessages } from "~/db/schema";
import type { Database, DbOrTx } from "~/db/types";
import { badRequest, forbidden } from "~/server/errors";
import type { MemoryCallContext } from "../call-context";
import {
  MAX_ID_CHARS,
  MESSAGE_ROLES,
  resolveTrustedMessageIds,
  type MessageRole,
  type StoredMessage,
} from "../store/messages";
import { enqueueEmbedJobs } from "../store/embeddings";
import { memorySubscriber, type CapturedMessage } from "../events";
import { segmentForSearch } from "~/server/text/segment";
import { redactSensitive, redactSensitiveJson } from "../../text/sensitive";

/**
 * The message log (docs/memory-model.md): trusted evidence the host captured, append-only. Ids are
 * deterministic so a retried append lands on the same rows instead of duplicating the conversation.
 */

export const MAX_MESSAGES_PER_APPEND = 100;
export const MAX_MESSAGE_CHARS = 100_000;
const MAX_METADATA_CHARS = 32_000;

export type AppendMessageInput = {
  role: MessageRole;
  content: string;
  /** The host's own id for the message: makes the stored id independent of position and content. */
  clientMessageId?: string;
  /** Defaults to the previous message of the batch, or the latest message already stored in the session. */
  parentId?: string;
  createdAt?: Date;
  metadata?: Record<string, unknown>;
};

export type AppendMessagesInput = {
  sessionId: string;
  userScopeId?: string | null;
  workspaceId?: string | null;
  messages: AppendMessageInput[];
};

export type AppendedMessage = { id: string; role: MessageRole; sessionId: string; createdAt: Date; duplicate: boolean };

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
export const messageContentHash = (content: string) => sha256(content);

/** `msg_` + 24 hex of sha256 over a JSON array, so no field can run into the next one. */
export function deterministicMessageId(
  tenantId: string,
  sessionId: string,
  message: { clientMessageId?: string; parentId: string | null; role: MessageRole; content: string },
): string {
  const parts = message.clientMessageId
    ? ["client", tenantId, sessionId, message.clientMessageId]
    : ["turn", tenantId, sessionId, message.parentId ?? "", message.role, message.content];
  return `msg_${sha256(JSON.stringify(parts)).slice(0, 24)}`;
}

/** Serialises appends to one session so "the latest message" (the default parent) has one answer. */
export const lockSessionMessages = (db: DbOrTx, tenantId: string, sessionId: string) =>
  db.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`memory_messages:${tenantId}:${sessionId}`}, 0))`);

function checkId(value: unknown, field: string): asserts value is string {
  if (typeof value !== "string" || value.trim() === "" || value.length > MAX_ID_CHARS) {
    throw badRequest("invalid_message", `${field} must be a non-empty string of at most ${MAX_ID_CHARS} characters.`);
  }
}

function validateAppend(input: AppendMessagesInput): void {
  checkId(input.sessionId, "sessionId");
  if (input.userScopeId != null) checkId(input.userScopeId, "userScopeId");
  if (input.workspaceId != null) checkId(input.workspaceId, "workspaceId");
  if (!Array.isArray(input.messages) || input.messages.length === 0) {
    throw badRequest("no_messages", "Send at least one message to append.");
  }
  if (input.messages.length > MAX_MESSAGES_PER_APPEND) {
    throw badRequest(
      "too_many_messages",
      `Append at most ${MAX_MESSAGES_PER_APPEND} messages per call; split the batch (got ${input.messages.length}).`,
    );
  }
  input.messages.forEach((message, index) => {
    const at = `messages[${index}]`;
    if (!MESSAGE_ROLES.includes(message.role)) {
      throw badRequest("invalid_role", `${at}.role must be one of ${MESSAGE_ROLES.join(", ")}.`);
    }
    if (typeof message.content !== "string" || message.content.trim() === "") {
      throw badRequest("empty_content", `${at}.content is empty; send the message text.`);
    }
    if (message.content.length > MAX_MESSAGE_CHARS) {
      throw badRequest(
        "content_too_long",
        `${at}.content has ${message.content.length} characters; the limit is ${MAX_MESSAGE_CHARS}. Split or truncate it.`,
      );
    }
    // Postgres text cannot hold NUL; say so instead of failing inside the driver.
    if (message.content.includes("\u0000"))
      throw badRequest("invalid_content", `${at}.content contains a NUL character; remove it.`);
    if (message.clientMessageId !== undefined) checkId(message.clientMessageId, `${at}.clientMessageId`);
    if (message.parentId !== undefined) checkId(message.parentId, `${at}.parentId`);
    if (
      message.createdAt !== undefined &&
      (!(message.createdAt instanceof Date) || Number.isNaN(message.createdAt.getTime()))
    ) {
      throw badRequest("invalid_message", `${at}.createdAt is not a valid date.`);
    }
    if (message.metadata !== undefined) {
      const json = JSON.stringify(message.metadata);
      if (
        !message.metadata ||
        typeof message.metadata !== "object" ||
        Array.isArray(message.metadata) ||
        json.includes("\\u0000")
      ) {
        throw badRequest("invalid_metadata", `${at}.metadata must be a JSON object without NUL characters.`);
      }
      if (json.length > MAX_METADATA_CHARS) {
        throw badRequest(
          "metadata_too_large",
          `${at}.metadata is ${json.length} characters as JSON; keep it under ${MAX_METADATA_CHARS}.`,
        );
      }
    }
  });
}

type TailMessage = Pick<StoredMessage, "id" | "parentId" | "role" | "contentHash" | "createdAt">;

/**
 * How many leading messages of the batch repeat the session's last stored messages (a retried or
 * re-sent batch). Those map onto the stored rows; without this a retry would chain onto its own
 * first attempt and store the turn twice. A deliberate repeat of the same text needs clientMessageId.
 */
function replayedPrefixLength(
  tenantId: string,
  sessionId: string,
  tail: readonly TailMessage[],
  batch: readonly AppendMessageInput[],
): number {
  const matches = (stored: TailMessage, message: AppendMessageInput, previous: TailMessage | undefined) =>
    stored.role === message.role &&
    stored.contentHash === messageContentHash(message.content) &&
    (message.clientMessageId === undefined ||
      stored.id === deterministicMessageId(tenantId, sessionId, { ...message, parentId: null })) &&
    (message.parentId !== undefined
      ? stored.parentId === message.parentId
      : previous === undefined || stored.parentId === previous.id);
  for (let length = Math.min(tail.length, batch.length); length > 0; length--) {
    const window = tail.slice(tail.length - length);
    if (window.every((stored, i) => matches(stored, batch[i]!, i === 0 ? undefined : window[i - 1]))) return length;
  }
  return 0;
}

/** The session's last `limit` messages, oldest first (only what the replay check needs). */
async function sessionTail(db: DbOrTx, tenantId: string, sessionId: string, limit: number): Promise<TailMessage[]> {
  const rows = await db
    .select({
      id: memoryMessages.id,
      parentId: memoryMessages.parentId,
      role: memoryMessages.role,
      contentHash: memoryMessages.contentHash,
      createdAt: memoryMessages.createdAt,
    })
    .from(memoryMessages)
    .where(and(eq(memoryMessages.tenantId, tenantId), eq(memoryMessages.sessionId, sessionId)))
    .orderBy(desc(memoryMessages.seq))
    .limit(limit);
  return rows.reverse();
}

/**
 * A conversation is one person's: captured for another user, it is not the caller's to add to. Anyone
 * granted `session:*` could otherwise put words into a colleague's conversation — into their agent's
 * recalled recent messages — and become one of its owners. Messages with no user say nothing.
 */
async function assertSessionOwnedBy(
  db: DbOrTx,
  params: { tenantId: string; sessionId: string; userScopeId: string | null | undefined },
) {
  if (!params.userScopeId) return;
  const [other] = await db
    .select({ id: memoryMessages.id })
    .from(memoryMessages)
    .where(
      and(
        eq(memoryMessages.tenantId, params.tenantId),
        eq(memoryMessages.sessionId, params.sessionId),
        sql`${memoryMessages.userScopeId} <> ${params.userScopeId}`,
      ),
    )
    .limit(1);
  if (other) {
    throw forbidden(
      "session_of_another_user",
      `Session ${params.sessionId} is another user's conversation; nothing was stored. Capture this turn under a session id of its own (one per conversation and user).`,
      {
        sessionId: params.sessionId,
      },
    );
  }
}

/**
 * Appends a batch of turns to a session in one transaction. Each message gets a deterministic id;
 * a message already stored is reported with `duplicate: true` and left as it is (append-only).
 */
export async function appendMessages(
  db: Database,
  ctx: Pick<MemoryCallContext, "tenantId" | "actor">,
  input: AppendMessagesInput,
): Promise<{ messages: AppendedMessage[] }> {
  validateAppend(input);
  const { tenantId } = ctx;
  const { sessionId } = input;
  // Secrets and high-risk identifiers pasted into a chat are not kept in the evidence log either
  // (sensitive data must not silently become memory: docs/memory-model.md). Redacted before the id is made, so a
  // resent message still lands on the stored one.
  const incoming = input.messages.map((message) => ({
    ...message,
    content: redactSensitive(message.content),
    ...(message.metadata ? { metadata: redactSensitiveJson(message.metadata) as typeof message.metadata } : {}),
  }));
  return db.transaction(async (tx) => {
    await lockSessionMessages(tx, tenantId, sessionId);
    await assertSessionOwnedBy(tx, { tenantId, sessionId, userScopeId: input.userScopeId });
    const tail = await sessionTail(tx, tenantId, sessionId, incoming.length);
    const replayed = replayedPrefixLength(tenantId, sessionId, tail, incoming);

    const out: AppendedMessage[] = [];
    const fresh: CapturedMessage[] = [];
    const batchIds = new Set<string>();
    let previousId: string | null = tail.at(-1)?.id ?? null;
    for (const [index, message] of incoming.entries()) {
      if (index < replayed) {
        const stored = tail[tail.length - replayed + index]!;
        out.push({ id: stored.id, role: stored.role, sessionId, createdAt: stored.createdAt, duplicate: true });
        previousId = stored.id;
        batchIds.add(stored.id);
        continue;
      }
      const parentId = message.parentId ?? previousId;
      if (message.parentId !== undefined && !batchIds.has(message.parentId))
        await assertParentInSession(tx, tenantId, sessionId, message.parentId);
      const id = deterministicMessageId(tenantId, sessionId, { ...message, parentId });
      const [inserted] = await tx
        .insert(memoryMessages)
        .values({
          tenantId,
          id,
          sessionId,
          userScopeId: input.userScopeId ?? null,
          workspaceId: input.workspaceId ?? null,
          parentId,
          role: message.role,
          content: message.content,
          contentHash: messageContentHash(message.content),
          metadata: message.metadata ?? {},
          capturedByType: ctx.actor.type,
          capturedById: ctx.actor.id,
          searchText: segmentForSearch(message.content),
          ...(message.createdAt ? { createdAt: message.createdAt } : {}),
        })
        .onConflictDoNothing({ target: [memoryMessages.tenantId, memoryMessages.id] })
        .returning({ createdAt: memoryMessages.createdAt, seq: memoryMessages.seq });
      const createdAt = inserted?.createdAt ?? (await storedCreatedAt(tx, tenantId, id));
      out.push({ id, role: message.role, sessionId, createdAt, duplicate: !inserted });
      if (inserted)
        fresh.push({
          id,
          role: message.role,
          content: message.content,
          createdAt,
          seq: inserted.seq,
          source: typeof message.metadata?.source === "string" ? message.metadata.source : undefined,
        });
      previousId = id;
      batchIds.add(id);
    }
    // The hot path (docs/memory-tree.md) runs in this transaction: evidence and its chunks appear together.
    if (fresh.length)
      await memorySubscriber("messagesCaptured")(tx, {
        tenantId,
        sessionId,
        userScopeId: input.userScopeId ?? null,
        messages: fresh,
      });
    // Their vectors come from the queue, as cards' do: evidence search ranks by meaning too.
    if (fresh.length)
      await enqueueEmbedJobs(tx, { tenantId, targets: fresh.map((m) => ({ kind: "message" as const, id: m.id })) });
    return { messages: out };
  });
}

async function assertParentInSession(db: DbOrTx, tenantId: string, sessionId: string, parentId: string): Promise<void> {
  const found = await resolveTrustedMessageIds(db, { tenantId, sessionId, ids: [parentId] });
  if (found.length === 0) {
    throw badRequest(
      "unknown_parent",
      `parentId ${parentId} is not a message of session ${sessionId}; omit it to chain onto the latest message.`,
    );
  }
}

async function storedCreatedAt(db: DbOrTx, tenantId: string, id: string): Promise<Date> {
  const [row] = await db
    .select({ createdAt: memoryMessages.createdAt })
    .from(memoryMessages)
    .where(and(eq(memoryMessages.tenantId, tenantId), eq(memoryMessages.id, id)))
    .limit(1);
  if (!row) throw new Error(`message ${id} conflicted on insert but cannot be read back`);
  return row.createdAt;
}
