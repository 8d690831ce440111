import { z } from "zod";
import { CARD_TYPES } from "~/db/schema";
import { strictShape } from "~/server/validation";
import { boundedJson } from "../write/schema";

const target = strictShape("a target", { id: z.string().min(1).max(100), expectedRevision: z.number().int().min(1) });

/** Every key narrows what is forgotten, so a misspelt one is refused: dropped, it would widen the deletion. */
export const forgetSelectorSchema = strictShape("a selector", {
  scope: z.string().max(220).optional(),
  domain: z.string().max(64).optional(),
  kind: z.string().max(64).optional(),
  /** The card's type: fact, preference, constraint, task, decision, … */
  type: z.enum(CARD_TYPES).optional(),
  key: z.string().max(300).optional(),
  itemKey: z.string().max(200).optional(),
  valueJson: boundedJson.optional(),
  categoryPathPrefix: z.union([z.string().max(300), z.array(z.string().max(64)).max(8)]).optional(),
  tags: z.array(z.string().min(1).max(64)).min(1).max(20).optional(),
  sourceMessageId: z.string().max(100).optional(),
}).refine((s) => Object.values(s).some((v) => v !== undefined), { error: "a selector needs at least one field" });

/** `scopes` for `scope` would have been dropped and `all` forgotten every scope: unknown keys are refused. */
export const memoryForgetInputSchema = strictShape("memory_forget", {
  id: z.string().min(1).max(100).optional(),
  expectedRevision: z.number().int().min(1).optional(),
  targets: z.array(target).min(1).max(100).optional(),
  selector: forgetSelectorSchema.optional(),
  all: z.boolean().optional(),
  /** `scope` narrows `all` to one scope. */
  scope: z.string().max(220).optional(),
  mode: z.enum(["soft", "hard"]).default("soft"),
  /** Hard delete only: also erase the evidence messages the cards came from, and summaries built on them. */
  eraseEvidence: z.boolean().default(false),
  reason: z.string().trim().min(1, "say why (the user's request) in reason").max(500),
  idempotencyKey: z.string().min(8).max(200).optional(),
}).superRefine((input, ctx) => {
  const forms = [
    input.id !== undefined,
    input.targets !== undefined,
    input.selector !== undefined,
    input.all === true,
  ].filter(Boolean).length;
  if (forms !== 1)
    ctx.addIssue({
      code: "custom",
      message: "send exactly one of: id (+ expectedRevision), targets, selector, or all: true",
    });
  if (input.id !== undefined && input.expectedRevision === undefined)
    ctx.addIssue({
      code: "custom",
      path: ["expectedRevision"],
      message: "forgetting by id needs expectedRevision (from memory_get)",
    });
  if (input.eraseEvidence && input.mode !== "hard")
    ctx.addIssue({ code: "custom", path: ["eraseEvidence"], message: "eraseEvidence needs mode: hard" });
});
export type MemoryForgetInput = z.input<typeof memoryForgetInputSchema>;

export type ForgetCandidate = {
  id: string;
  revision: number;
  scope: string;
  key: string;
  title: string;
  status: string;
};

/** What a hard delete removed: counts and ids, never the content. */
export type ErasureReceipt = {
  erasedAt: string;
  nodeIds: string[];
  lineageIds: string[];
  revisionsRemoved: number;
  embeddingsRemoved: number;
  messagesRemoved: number;
  messageIds: string[];
  summariesRemoved: number;
  chunksRemoved: number;
  treeSummariesRemoved: number;
  /** Topics whose rolling summary drew on an erased chunk: rebuilt from the rest, or removed when none is left. */
  topicsRebuilt: number;
  topicsRemoved: number;
  auditEventsScrubbed: number;
  idempotencyRecordsRemoved: number;
  jobsRemoved: number;
};

export type MemoryForgetResult = {
  done: boolean;
  mode: "soft" | "hard";
  deletedIds: string[];
  message: string;
  reason?: string;
  requiresConfirmation?: boolean;
  candidates?: ForgetCandidate[];
  /** currentId / currentIdRevision: the card current now when the target was replaced (update, supersede). */
  conflicts?: {
    id: string;
    expectedRevision: number;
    currentRevision: number | null;
    currentStatus: string | null;
    currentId?: string;
    currentIdRevision?: number;
  }[];
  receipt?: ErasureReceipt;
  replayed?: boolean;
};
