import { z } from "zod";
import { CARD_TYPES } from "~/db/schema";
import { boundedJson, MAX_MESSAGE_CHARS, MAX_MESSAGES_PER_APPEND, MESSAGE_ROLES } from "~/server/memory";
import { strictShape } from "~/server/validation";

const id = z.string().trim().min(1).max(200);

/**
 * The turn a tool call belongs to. The host (the program around the model) fills it in, never the
 * model: it says which session/workspace/user the call is about and whether the user asked to forget.
 */
export const turnSchema = z.strictObject({
  /** The conversation: default session scope, and where message_append stored this turn's evidence. */
  sessionId: id.optional(),
  /** Default workspace scope (project) for this turn. */
  workspaceId: id.optional(),
  /** Whose user profile this turn is about; default: the key's owner. */
  userId: id.optional(),
  /** The user explicitly asked to forget something in this turn. */
  forgetIntent: z.boolean().optional(),
  /** The user explicitly asked to clear all memory in this turn. */
  forgetAllIntent: z.boolean().optional(),
  /** The model's tool-call id, recorded in the audit trail. */
  toolCallId: id.optional(),
});
export type Turn = z.infer<typeof turnSchema>;
export type TurnInput = z.input<typeof turnSchema>;

/** memory_get: one card by id, or a limit-2 exact lookup by kind/key. */
export const memoryGetInputSchema = strictShape("memory_get", {
  id: z.string().trim().min(1).max(100).optional(),
  kind: z.string().trim().min(1).max(64).optional(),
  itemKey: z.string().trim().min(1).max(200).optional(),
  key: z.string().trim().min(1).max(300).optional(),
  scope: z.string().trim().min(1).max(220).optional(),
  /** Lookup fields: narrow by type, domain or the structured value. */
  type: z.enum(CARD_TYPES).optional(),
  domain: z.string().trim().min(1).max(64).optional(),
  valueJson: boundedJson.optional(),
}).refine(
  (input) =>
    input.id !== undefined || input.kind !== undefined || input.key !== undefined || input.valueJson !== undefined,
  {
    error:
      "send id (from memory_search), or kind (+ itemKey), key or valueJson (with type / domain to narrow) to look a card up",
  },
);
export type MemoryGetInput = z.input<typeof memoryGetInputSchema>;

/** message_append: this turn's messages, stored as trusted evidence of one session. */
export const messageAppendInputSchema = strictShape("message_append", {
  /** Default: turn.sessionId. */
  sessionId: id.optional(),
  messages: z
    .array(
      strictShape("a message", {
        role: z.enum(MESSAGE_ROLES),
        content: z.string().min(1).max(MAX_MESSAGE_CHARS),
        /** The host's own message id: makes retries land on the same stored message. */
        clientMessageId: id.optional(),
        parentId: id.optional(),
        createdAt: z.iso.datetime({ offset: true }).optional(),
        metadata: z.record(z.string().max(100), z.unknown()).optional(),
      }),
    )
    .min(1)
    .max(MAX_MESSAGES_PER_APPEND),
});
export type MessageAppendInput = z.input<typeof messageAppendInputSchema>;
