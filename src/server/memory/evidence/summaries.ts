import type { MemorySummary } from "~/db/schema";
import type { Database, DbOrTx } from "~/db/types";
import { badRequest, ServiceError } from "~/server/errors";
import { newId } from "~/server/ids";
import type { MemoryCallContext } from "../call-context";
import { pgErrorCode } from "~/db/pg-errors";
import {
  countSessionMessagesBetween,
  findSessionMessageSeqs,
  getLatestSummary,
  insertSummary,
  lockSessionSummaries,
  summariesByIds,
  summaryChainIds,
} from "../store/summaries";

/**
 * Chained summaries (docs/memory-model.md): summary_001 → summary_002 → … per session. A new summary reads only
 * the previous one plus the messages since, so it must name the chain's current tip as its parent;
 * anything else means another writer moved the chain and this summary was built on stale input.
 */

const MAX_SUMMARY_CHARS = 20_000;
const MAX_LIST_ITEMS = 50;
const MAX_ITEM_CHARS = 2_000;
const DEFAULT_CHAIN_LIMIT = 50;
const MAX_CHAIN_LIMIT = 500;

export type AppendSummaryInput = {
  sessionId: string;
  /** The session's current latest summary; null only for the session's first summary. */
  parentSummaryId: string | null;
  fromMessageId: string;
  toMessageId: string;
  summary: string;
  currentGoal?: string | null;
  constraints?: string[];
  preferences?: string[];
  decisions?: string[];
  completedWork?: string[];
  pendingWork?: string[];
  knownIssues?: string[];
  /**
   * How many messages the summary was written from (from … to, inclusive): when fewer are stored by
   * the time it is appended, some were erased meanwhile and the summary may quote them, so it is refused.
   */
  expectedMessageCount?: number;
  /** `rules` or the LLM model name that wrote it. */
  generator?: string;
};

const LIST_FIELDS = ["constraints", "preferences", "decisions", "completedWork", "pendingWork", "knownIssues"] as const;

const chainMoved = (latestSummaryId: string | null, sessionId: string) =>
  new ServiceError(
    "CONFLICT",
    "summary_chain_moved",
    `The summary chain of session ${sessionId} has moved on: its latest summary is ${latestSummaryId ?? "none"}. Rebuild the summary on top of that one and send it as parentSummaryId.`,
    { latestSummaryId },
  );

function cleanList(value: unknown, field: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== "string")) {
    throw badRequest("invalid_summary", `${field} must be a list of strings.`);
  }
  const items = (value as string[]).map((item) => item.trim()).filter(Boolean);
  if (items.length > MAX_LIST_ITEMS)
    throw badRequest("invalid_summary", `${field} has ${items.length} items; keep at most ${MAX_LIST_ITEMS}.`);
  if (items.some((item) => item.length > MAX_ITEM_CHARS))
    throw badRequest("invalid_summary", `Each ${field} item must be at most ${MAX_ITEM_CHARS} characters.`);
  return items;
}

function checkText(value: unknown, field: string, max: number): string {
  if (typeof value !== "string" || value.trim() === "")
    throw badRequest("invalid_summary", `${field} must be non-empty text.`);
  if (value.length > max)
    throw badRequest("invalid_summary", `${field} has ${value.length} characters; the limit is ${max}.`);
  return value.trim();
}

/**
 * Appends the next summary of a session's chain in one transaction. Throws CONFLICT
 * `summary_chain_moved` (details.latestSummaryId) when `parentSummaryId` is not the current tip.
 */
export async function appendSummary(
  db: Database,
  ctx: Pick<MemoryCallContext, "tenantId" | "actor">,
  input: AppendSummaryInput,
): Promise<MemorySummary> {
  const { tenantId } = ctx;
  const sessionId = checkText(input.sessionId, "sessionId", 200);
  const fromMessageId = checkText(input.fromMessageId, "fromMessageId", 200);
  const toMessageId = checkText(input.toMessageId, "toMessageId", 200);
  const summary = checkText(input.summary, "summary", MAX_SUMMARY_CHARS);
  const currentGoal =
    input.currentGoal == null || input.currentGoal.trim() === ""
      ? null
      : checkText(input.currentGoal, "currentGoal", MAX_ITEM_CHARS);
  const lists = Object.fromEntries(LIST_FIELDS.map((field) => [field, cleanList(input[field], field)])) as Record<
    (typeof LIST_FIELDS)[number],
    string[]
  >;
  const generator = input.generator === undefined ? "rules" : checkText(input.generator, "generator", 200);

  try {
    return await db.transaction(async (tx) => {
      await lockSessionSummaries(tx, tenantId, sessionId);
      const latest = await getLatestSummary(tx, { tenantId, sessionId });
      if ((input.parentSummaryId ?? null) !== (latest?.id ?? null)) throw chainMoved(latest?.id ?? null, sessionId);

      const messageCount = await countMessagesInRange(tx, { tenantId, sessionId, fromMessageId, toMessageId });
      if (input.expectedMessageCount !== undefined && messageCount !== input.expectedMessageCount) {
        throw new ServiceError(
          "CONFLICT",
          "summary_messages_erased",
          `${input.expectedMessageCount - messageCount} of the messages this summary was written from were erased meanwhile; nothing was appended. Summarize the messages that are stored now.`,
        );
      }
      return await insertSummary(tx, {
        tenantId,
        id: newId("sum"),
        sessionId,
        parentSummaryId: latest?.id ?? null,
        fromMessageId,
        toMessageId,
        messageCount,
        summary,
        currentGoal,
        ...lists,
        generator,
      });
    });
  } catch (error) {
    // A racing writer (without our lock, e.g. an older instance) took the parent: same answer as a moved chain.
    if (pgErrorCode(error) === "23505") {
      const latest = await getLatestSummary(db, { tenantId, sessionId });
      throw chainMoved(latest?.id ?? null, sessionId);
    }
    throw error;
  }
}

/** Messages from..to inclusive (by log order); both must be messages of the session, from not after to. */
async function countMessagesInRange(
  db: DbOrTx,
  params: { tenantId: string; sessionId: string; fromMessageId: string; toMessageId: string },
): Promise<number> {
  const ends = await findSessionMessageSeqs(db, { ...params, ids: [params.fromMessageId, params.toMessageId] });
  const from = ends.find((row) => row.id === params.fromMessageId);
  const to = ends.find((row) => row.id === params.toMessageId);
  for (const [field, id, row] of [
    ["fromMessageId", params.fromMessageId, from],
    ["toMessageId", params.toMessageId, to],
  ] as const) {
    if (!row)
      throw badRequest(
        "message_not_in_session",
        `${field} ${id} is not a message of session ${params.sessionId}; summarise messages that were appended to it.`,
      );
  }
  if (from!.seq > to!.seq) {
    throw badRequest(
      "invalid_message_range",
      `fromMessageId ${params.fromMessageId} comes after toMessageId ${params.toMessageId}; swap them.`,
    );
  }
  return countSessionMessagesBetween(db, { ...params, fromSeq: from!.seq, toSeq: to!.seq });
}

/**
 * The session's chain from the latest summary back to the first (newest → oldest), at most `limit`
 * long. One recursive query walks the parent links; a second loads the rows.
 */
export async function getSummaryChain(
  db: DbOrTx,
  params: { tenantId: string; sessionId: string; limit?: number },
): Promise<MemorySummary[]> {
  const limit = Math.min(Math.max(Math.trunc(params.limit ?? DEFAULT_CHAIN_LIMIT), 1), MAX_CHAIN_LIMIT);
  const tip = await getLatestSummary(db, params);
  if (!tip) return [];
  const ids = await summaryChainIds(db, { ...params, tipId: tip.id, limit });
  if (ids.length <= 1) return [tip];
  const rows = await summariesByIds(db, { tenantId: params.tenantId, ids });
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.map((id) => byId.get(id)).filter((row): row is MemorySummary => row !== undefined);
}

const CONTEXT_FIELDS: readonly [
  keyof Pick<
    MemorySummary,
    "constraints" | "decisions" | "preferences" | "pendingWork" | "completedWork" | "knownIssues"
  >,
  string,
][] = [
  ["constraints", "Constraints"],
  ["decisions", "Decisions"],
  ["preferences", "Preferences"],
  ["pendingWork", "Pending"],
  ["completedWork", "Done"],
  ["knownIssues", "Issues"],
];

/**
 * A summary as memory_context shows it: its text, then its fields one line each, compactly (the
 * newest 3 items of each list, each at most 100 characters), leaving out what the text already says.
 */
export function summaryForContext(
  summary: Pick<MemorySummary, "summary" | "currentGoal" | (typeof CONTEXT_FIELDS)[number][0]>,
): string {
  const text = summary.summary.trim();
  const said = (item: string) => text.includes(item.trim());
  const clip = (item: string) => (item.length > 100 ? `${item.slice(0, 99)}…` : item);
  const lines = [text];
  if (summary.currentGoal && !said(summary.currentGoal)) lines.push(`Goal: ${clip(summary.currentGoal)}`);
  for (const [field, label] of CONTEXT_FIELDS) {
    const items = summary[field]
      .filter((item) => !said(item))
      .slice(-3)
      .map(clip);
    if (items.length) lines.push(`${label}: ${items.join("; ")}`);
  }
  return lines.join("\n");
}
