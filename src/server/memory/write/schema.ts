import { z } from "zod";
import { strictInput } from "~/server/validation";

/** Limits that keep one call from writing an unbounded amount. */
export const WRITE_LIMITS = {
  operations: 50,
  title: 300,
  content: 4000,
  tags: 32,
  tagLength: 64,
  sources: 50,
  valueBytes: 16_000,
  valueDepth: 8,
} as const;

/**
 * Whether `value` nests deeper than `limit` levels, by a loop that stops there: a value nested 20,000
 * levels deep (an import line) overflowed the stack of the recursive count this replaced.
 */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (stack.length) {
    const { value: current, depth } = stack.pop()!;
    if (current === null || typeof current !== "object") continue;
    if (depth + 1 > limit) return true;
    for (const child of Array.isArray(current) ? current : Object.values(current))
      stack.push({ value: child, depth: depth + 1 });
  }
  return false;
}

/** Any JSON value, bounded in nesting (checked first: serialising recurses too) and size. */
export const boundedJson = z.unknown().superRefine((value, ctx) => {
  if (value === undefined) return;
  if (nestsDeeperThan(value, WRITE_LIMITS.valueDepth)) {
    ctx.addIssue({ code: "custom", message: `valueJson nests deeper than ${WRITE_LIMITS.valueDepth} levels` });
    return;
  }
  const size = Buffer.byteLength(JSON.stringify(value) ?? "", "utf8");
  if (size > WRITE_LIMITS.valueBytes)
    ctx.addIssue({ code: "custom", message: `valueJson is ${size} bytes; at most ${WRITE_LIMITS.valueBytes}` });
});

const label = z.string().trim().min(1).max(WRITE_LIMITS.tagLength);
const isoDate = z.iso.datetime({ offset: true }).transform((s) => new Date(s));
/** 0..1 rounded to 6 decimals: the `real` columns cannot hold values that underflow float4 (1e-125 failed the insert). */
const unitInterval = z
  .number()
  .min(0)
  .max(1)
  .transform((n) => Math.round(n * 1e6) / 1e6);

const cardFieldsShape = {
  title: z.string().trim().min(1).max(WRITE_LIMITS.title),
  content: z.string().trim().min(1).max(WRITE_LIMITS.content),
  valueJson: boundedJson.optional(),
  /** Older callers send `value`; it means valueJson. */
  value: boundedJson.optional(),
  tags: z.array(label).max(WRITE_LIMITS.tags).optional(),
  entities: z.array(label).max(WRITE_LIMITS.tags).optional(),
  confidence: unitInterval.optional(),
  importance: unitInterval.optional(),
  expiresAt: isoDate.nullable().optional(),
  sourceMessageIds: z.array(z.string().min(1).max(100)).max(WRITE_LIMITS.sources).optional(),
};

const CARD_KEYS = Object.keys(cardFieldsShape)
  .filter((key) => key !== "value")
  .join(", ");

/**
 * A card's fields. Unknown keys are refused, not dropped: a misnamed or misplaced field ("scope" or
 * "explicitUserIntent" inside node, "tag" for tags) would otherwise vanish and the write still succeed
 * without it. A card read back and sent whole is refused the same way, naming the keys to leave out.
 */
export const cardFieldsSchema = strictInput(
  cardFieldsShape,
  (keys) =>
    `node does not take ${keys}. node holds ${CARD_KEYS}; kind, itemKey, scope and explicitUserIntent go on the operation beside "op"; what a card shows when read (id, key, revision, status, timestamps) is not written`,
);
export type CardFieldsInput = z.infer<typeof cardFieldsSchema>;

/** Where the intent flag goes, as refusals and the tool description tell agents (inside `node` it is refused). */
export const EXPLICIT_INTENT_FLAG = 'explicitUserIntent: true on the operation, beside "op", not inside "node"';

const common = {
  explicitUserIntent: z.boolean().optional(),
  reason: z.string().trim().max(500).optional(),
};
const target = { targetId: z.string().min(1).max(100), expectedRevision: z.number().int().min(1) };

/**
 * An operation that refuses keys it does not define, naming the ones it takes; the card's fields go
 * inside "node". (An update's itemKey is refused this way too: its slot is the target's.)
 */
function strictOperation<S extends { op: z.ZodLiteral<string> } & z.ZodRawShape>(shape: S) {
  return strictInput(
    shape,
    (unknown, takes) =>
      `a ${shape.op.value} operation does not take ${unknown}. It takes ${takes}; the card's fields (${CARD_KEYS}) go inside "node"`,
  );
}

export const writeOperationSchema = z.discriminatedUnion("op", [
  strictOperation({
    op: z.literal("create"),
    kind: z.string().min(1).max(64),
    itemKey: z.string().max(200).optional(),
    scope: z.string().max(220).optional(),
    node: cardFieldsSchema,
    ...common,
  }),
  strictOperation({ op: z.literal("update"), ...target, node: cardFieldsSchema.partial(), ...common }),
  strictOperation({
    op: z.literal("supersede"),
    ...target,
    kind: z.string().min(1).max(64).optional(),
    itemKey: z.string().max(200).optional(),
    node: cardFieldsSchema,
    ...common,
  }),
  strictOperation({ op: z.literal("expire"), ...target, ...common }),
]);
export type WriteOperation = z.infer<typeof writeOperationSchema>;

/** What one operation may hold, for the refusal of an operation sent without the list around it. */
const OPERATION_KEYS = [...new Set(writeOperationSchema.options.flatMap((option) => Object.keys(option.shape)))].join(
  ", ",
);

/** A batch, even of one: an operation's keys at the top level are refused with the shape to send instead. */
export const memoryWriteInputSchema = strictInput(
  {
    operations: z.array(writeOperationSchema).min(1).max(WRITE_LIMITS.operations),
    idempotencyKey: z.string().min(8).max(200).optional(),
  },
  (unknown, takes) =>
    `memory_write does not take ${unknown} at the top level. It takes ${takes}: put each operation (${OPERATION_KEYS}) in the operations list, even a single one: {"operations": [{"op": "create", "kind": …, "node": {…}}]}`,
);
export type MemoryWriteInput = z.input<typeof memoryWriteInputSchema>;

export type WriteStatus = "created" | "updated" | "superseded" | "expired" | "noop" | "conflict" | "rejected";

export type WriteOperationResult = {
  index: number;
  op: WriteOperation["op"];
  status: WriteStatus;
  /** Short machine-readable cause for conflict / rejected, and for notes like `downgraded_to_session`. */
  reason?: string;
  message: string;
  nodeId?: string;
  key?: string;
  scope?: string;
  revision?: number;
  /** The card this write replaced (supersede / update / slot rewrite). */
  previousId?: string;
  /** A create that took an occupied slot: the card it replaced, by id and title. */
  replaced?: { id: string; title: string; revision: number };
  /** On conflict: what the card is now, so the caller can re-read and retry. */
  currentRevision?: number;
  currentStatus?: string;
  notes?: string[];
};

export type MemoryWriteResult = {
  /** True only when every operation was applied (or was a noop). A failed write is never `done`. */
  done: boolean;
  message: string;
  results: WriteOperationResult[];
  /** True when this is the stored answer to an earlier call with the same idempotency key. */
  replayed?: boolean;
};
