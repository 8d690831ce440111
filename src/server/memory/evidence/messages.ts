import { createHash } from "node:crypto";
import { and, asc, count, desc, eq, lt, sql, type SQL } from "drizzle-orm";
import { memoryMessages } from "~/db/schema";
import type { Database, DbOrTx } from "~/db/types";
import { badRequest, forbidden } from "~/server/errors";
import type { MemoryCallContext } from "../call-context";
import { enqueueEmbedJobs } from "../embeddings/vectors";
import { memorySubscriber, type CapturedMessage } from "../events";
import { segmentForSearch } from "../../text/segment";
import { redactSensitive, redactSensitiveJson } from "../write/sensitive";
import { anyOf } from "~/db/any-of";

/**
 * The message log (000 layer 1): trusted evidence the host captured, append-only. Ids are
 * deterministic so a retried append lands on the same rows instead of duplicating the conversation.
 */

export const MESSAGE_ROLES = ["system", "user", "assistant", "tool"] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];

export const MAX_MESSAGES_PER_APPEND = 100;
export const MAX_MESSAGE_CHARS = 100_000;
const MAX_METADATA_CHARS = 32_000;
const MAX_ID_CHARS = 200;
const MAX_IDS_PER_LOOKUP = 500;

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

/** Columns a reader gets: everything but the search columns, which only the index needs. */
const messageColumns = {
  tenantId: memoryMessages.tenantId,
  id: memoryMessages.id,
  seq: memoryMessages.seq,
  sessionId: memoryMessages.sessionId,
  userScopeId: memoryMessages.userScopeId,
  workspaceId: memoryMessages.workspaceId,
  parentId: memoryMessages.parentId,
  role: memoryMessages.role,
  content: memoryMessages.content,
  contentHash: memoryMessages.contentHash,
  metadata: memoryMessages.metadata,
  capturedByType: memoryMessages.capturedByType,
  capturedById: memoryMessages.capturedById,
  createdAt: memoryMessages.createdAt,
};
export type StoredMessage = {
  tenantId: string;
  id: string;
  seq: number;
  sessionId: string;
  userScopeId: string | null;
  workspaceId: string | null;
  parentId: string | null;
  role: MessageRole;
  content: string;
  contentHash: string;
  metadata: Record<string, unknown>;
  capturedByType: MemoryCallContext["actor"]["type"];
  capturedById: string | null;
  createdAt: Date;
};

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
    throw badRequest("too_many_messages", `Append at most ${MAX_MESSAGES_PER_APPEND} messages per call; split the batch (got ${input.messages.length}).`);
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
      throw badRequest("content_too_long", `${at}.content has ${message.content.length} characters; the limit is ${MAX_MESSAGE_CHARS}. Split or truncate it.`);
    }
    // Postgres text cannot hold NUL; say so instead of failing inside the driver.
    if (message.content.includes("\u0000")) throw badRequest("invalid_content", `${at}.content contains a NUL character; remove it.`);
    if (message.clientMessageId !== undefined) checkId(message.clientMessageId, `${at}.clientMessageId`);
    if (message.parentId !== undefined) checkId(message.parentId, `${at}.parentId`);
    if (message.createdAt !== undefined && (!(message.createdAt instanceof Date) || Number.isNaN(message.createdAt.getTime()))) {
      throw badRequest("invalid_message", `${at}.createdAt is not a valid date.`);
    }
    if (message.metadata !== undefined) {
      const json = JSON.stringify(message.metadata);
      if (!message.metadata || typeof message.metadata !== "object" || Array.isArray(message.metadata) || json.includes("\\u0000")) {
        throw badRequest("invalid_metadata", `${at}.metadata must be a JSON object without NUL characters.`);
      }
      if (json.length > MAX_METADATA_CHARS) {
        throw badRequest("metadata_too_large", `${at}.metadata is ${json.length} characters as JSON; keep it under ${MAX_METADATA_CHARS}.`);
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
function replayedPrefixLength(tenantId: string, sessionId: string, tail: readonly TailMessage[], batch: readonly AppendMessageInput[]): number {
  const matches = (stored: TailMessage, message: AppendMessageInput, previous: TailMessage | undefined) =>
    stored.role === message.role &&
    stored.contentHash === messageContentHash(message.content) &&
    (message.clientMessageId === undefined ||
      stored.id === deterministicMessageId(tenantId, sessionId, { ...message, parentId: null })) &&
    (message.parentId !== undefined ? stored.parentId === message.parentId : previous === undefined || stored.parentId === previous.id);
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
async function assertSessionOwnedBy(db: DbOrTx, params: { tenantId: string; sessionId: string; userScopeId: string | null | undefined }) {
  if (!params.userScopeId) return;
  const [other] = await db
    .select({ id: memoryMessages.id })
    .from(memoryMessages)
    .where(and(eq(memoryMessages.tenantId, params.tenantId), eq(memoryMessages.sessionId, params.sessionId), sql`${memoryMessages.userScopeId} <> ${params.userScopeId}`))
    .limit(1);
  if (other) {
    throw forbidden("session_of_another_user", `Session ${params.sessionId} is another user's conversation; nothing was stored. Capture this turn under a session id of its own (one per conversation and user).`, {
      sessionId: params.sessionId,
    });
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
  // (000: sensitive data must not silently become memory). Redacted before the id is made, so a
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
      if (message.parentId !== undefined && !batchIds.has(message.parentId)) await assertParentInSession(tx, tenantId, sessionId, message.parentId);
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
      if (inserted) fresh.push({ id, role: message.role, content: message.content, createdAt, seq: inserted.seq, source: typeof message.metadata?.source === "string" ? message.metadata.source : undefined });
      previousId = id;
      batchIds.add(id);
    }
    // 003's hot path runs in this transaction: evidence and its chunks appear together.
    if (fresh.length) await memorySubscriber("messagesCaptured")(tx, { tenantId, sessionId, userScopeId: input.userScopeId ?? null, messages: fresh });
    // Their vectors come from the queue, as cards' do: evidence search ranks by meaning too.
    if (fresh.length) await enqueueEmbedJobs(tx, { tenantId, targets: fresh.map((m) => ({ kind: "message" as const, id: m.id })) });
    return { messages: out };
  });
}

async function assertParentInSession(db: DbOrTx, tenantId: string, sessionId: string, parentId: string): Promise<void> {
  const found = await resolveTrustedMessageIds(db, { tenantId, sessionId, ids: [parentId] });
  if (found.length === 0) {
    throw badRequest("unknown_parent", `parentId ${parentId} is not a message of session ${sessionId}; omit it to chain onto the latest message.`);
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

/** The latest `limit` messages of a session (before `before`, a seq, when paging back), oldest first. */
export async function listRecentMessages(
  db: DbOrTx,
  params: { tenantId: string; sessionId: string; limit?: number; before?: number },
): Promise<StoredMessage[]> {
  const limit = Math.min(Math.max(Math.trunc(params.limit ?? 20), 1), 200);
  const rows = await db
    .select(messageColumns)
    .from(memoryMessages)
    .where(
      and(
        eq(memoryMessages.tenantId, params.tenantId),
        eq(memoryMessages.sessionId, params.sessionId),
        params.before !== undefined ? lt(memoryMessages.seq, params.before) : undefined,
      ),
    )
    .orderBy(desc(memoryMessages.seq))
    .limit(limit);
  return rows.reverse();
}

/** Messages by id within the tenant, in log order; unknown ids are simply absent. */
export async function getMessagesByIds(db: DbOrTx, params: { tenantId: string; ids: readonly string[] }): Promise<StoredMessage[]> {
  const ids = [...new Set(params.ids)];
  if (ids.length === 0) return [];
  if (ids.length > MAX_IDS_PER_LOOKUP) throw badRequest("too_many_ids", `Ask for at most ${MAX_IDS_PER_LOOKUP} message ids at once.`);
  return db
    .select(messageColumns)
    .from(memoryMessages)
    .where(and(eq(memoryMessages.tenantId, params.tenantId), anyOf(memoryMessages.id, ids)))
    .orderBy(asc(memoryMessages.seq));
}

/**
 * Every message of `ids`, however many, read MAX_IDS_PER_LOOKUP at a time: for a card's evidence across
 * its revisions, or an export page's (a cap there left the rest out, or called it erased).
 */
export async function getAllMessagesByIds(db: DbOrTx, params: { tenantId: string; ids: readonly string[] }): Promise<StoredMessage[]> {
  const ids = [...new Set(params.ids)];
  const found: StoredMessage[] = [];
  for (let i = 0; i < ids.length; i += MAX_IDS_PER_LOOKUP) found.push(...(await getMessagesByIds(db, { tenantId: params.tenantId, ids: ids.slice(i, i + MAX_IDS_PER_LOOKUP) })));
  return found;
}

/**
 * The subset of `ids` that are messages of this tenant's session, in the order given: what the tool
 * endpoint may accept as `sourceMessageIds` for a turn (ctx.trustedMessageIds).
 */
export async function resolveTrustedMessageIds(
  db: DbOrTx,
  params: { tenantId: string; sessionId: string; ids: readonly string[] },
): Promise<string[]> {
  const ids = [...new Set(params.ids.filter((id) => typeof id === "string" && id.length > 0 && id.length <= MAX_ID_CHARS))];
  if (ids.length === 0) return [];
  if (ids.length > MAX_IDS_PER_LOOKUP) throw badRequest("too_many_ids", `Send at most ${MAX_IDS_PER_LOOKUP} message ids at once.`);
  const rows = await db
    .select({ id: memoryMessages.id })
    .from(memoryMessages)
    .where(and(eq(memoryMessages.tenantId, params.tenantId), eq(memoryMessages.sessionId, params.sessionId), anyOf(memoryMessages.id, ids)));
  const found = new Set(rows.map((row) => row.id));
  return ids.filter((id) => found.has(id));
}

export type SessionOverview = {
  sessionId: string;
  /** The user the session belongs to (the highest one, if a session somehow has several). */
  userScopeId: string | null;
  workspaceId: string | null;
  messageCount: number;
  firstMessageAt: Date;
  lastMessageAt: Date;
  lastSeq: number;
};

/**
 * Sessions with message counts and first/last timestamps, most recently active first. `cursor` is
 * the `nextCursor` of the previous page (the last session's latest seq).
 */
export async function listSessions(
  db: DbOrTx,
  params: { tenantId: string; userScopeId?: string; sessionIds?: readonly string[]; limit?: number; cursor?: string | null },
): Promise<{ sessions: SessionOverview[]; nextCursor: string | null }> {
  const limit = Math.min(Math.max(Math.trunc(params.limit ?? 50), 1), 200);
  let having: SQL | undefined;
  if (params.cursor) {
    const before = Number(params.cursor);
    if (!Number.isSafeInteger(before) || before < 0) throw badRequest("invalid_cursor", "cursor must be the nextCursor of a previous listSessions page.");
    having = sql`max(${memoryMessages.seq}) < ${before}`;
  }
  const lastSeq = sql`max(${memoryMessages.seq})`.mapWith(Number);
  const rows = await db
    .select({
      sessionId: memoryMessages.sessionId,
      userScopeId: sql<string | null>`max(${memoryMessages.userScopeId})`,
      workspaceId: sql<string | null>`max(${memoryMessages.workspaceId})`,
      messageCount: count(),
      firstMessageAt: sql`min(${memoryMessages.createdAt})`.mapWith(memoryMessages.createdAt),
      lastMessageAt: sql`max(${memoryMessages.createdAt})`.mapWith(memoryMessages.createdAt),
      lastSeq,
    })
    .from(memoryMessages)
    .where(
      and(
        eq(memoryMessages.tenantId, params.tenantId),
        params.userScopeId !== undefined ? eq(memoryMessages.userScopeId, params.userScopeId) : undefined,
        params.sessionIds !== undefined ? anyOf(memoryMessages.sessionId, params.sessionIds) : undefined,
      ),
    )
    .groupBy(memoryMessages.sessionId)
    .having(having)
    .orderBy(desc(lastSeq))
    .limit(limit + 1);
  const sessions = rows.slice(0, limit);
  const nextCursor = rows.length > limit ? String(sessions.at(-1)!.lastSeq) : null;
  return { sessions, nextCursor };
}
