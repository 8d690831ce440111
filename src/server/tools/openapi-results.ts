import { ACTOR_TYPES, CARD_STATUSES, CARD_TYPES } from "~/db/schema";
import { API_KEY_PERMISSIONS } from "~/db/schema/permissions";
import { MESSAGE_ROLES } from "~/server/memory";
import type { JsonSchema } from "./json-schema";

/**
 * JSON Schemas of the tools' answers, for the OpenAPI document. The answers are TypeScript types
 * (the registry's ToolResults), not zod schemas, so these are written out: the TypeScript client's
 * types are held to the registry's by the typecheck (test/unit/client-types.test.ts), and
 * test/clients/openapi.test.ts validates real answers against these with unknown fields refused.
 */

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const str = { type: "string" };
const int = { type: "integer" };
const num = { type: "number" };
const bool = { type: "boolean" };
const strings = { type: "array", items: str };
const nullable = (schema: JsonSchema) => ({ anyOf: [schema, { type: "null" }] });
const list = (items: JsonSchema) => ({ type: "array", items });
const any = {};

/** An object whose `required` names every key but those listed as optional. */
function object(
  properties: Record<string, JsonSchema>,
  optional: readonly string[] = [],
  description?: string,
): JsonSchema {
  return {
    type: "object",
    ...(description ? { description } : {}),
    required: Object.keys(properties).filter((key) => !optional.includes(key)),
    properties,
  };
}

const cardProperties: Record<string, JsonSchema> = {
  id: str,
  scope: { type: "string", examples: ["user:usr_…", "session:chat-42", "workspace:ws_…", "global"] },
  kind: str,
  key: str,
  itemKey: nullable(str),
  domain: str,
  categoryPath: strings,
  type: { enum: [...CARD_TYPES] },
  valueJson: any,
  title: str,
  content: str,
  status: { enum: [...CARD_STATUSES] },
  revision: int,
  lineageId: str,
  supersedesId: nullable(str),
  supersededById: nullable(str),
  confidence: num,
  importance: num,
  tags: strings,
  entities: strings,
  sourceMessageIds: strings,
  explicitUserIntent: bool,
  redacted: bool,
  createdBy: object({ type: { enum: [...ACTOR_TYPES] }, id: nullable(str) }),
  updatedBy: object({ type: { enum: [...ACTOR_TYPES] }, id: nullable(str) }),
  createdAt: { type: "string", format: "date-time" },
  updatedAt: { type: "string", format: "date-time" },
  expiresAt: nullable({ type: "string", format: "date-time" }),
  endedAt: nullable({ type: "string", format: "date-time" }),
};

const scoreKeys = [
  "fullText",
  "context",
  "trigram",
  "vector",
  "fused",
  "importance",
  "confidence",
  "recency",
  "hotness",
  "explicit",
  "rerank",
  "coverage",
  "proximity",
  "answerType",
  "join",
  "hop",
  "alias",
  "named",
];
/** With read replicas: the write's commit position, to send back as X-Memory-Consistency with a read that must see it. */
const consistency = {
  type: "string",
  description:
    "With read replicas: this write's commit position. Send it as the X-Memory-Consistency header with a later read that must see the write.",
};
const scoreComponents = object(
  { ...Object.fromEntries(scoreKeys.map((key) => [key, num])), final: num },
  scoreKeys,
  "Each ranking signal's contribution.",
);

const writeOperationResult = object(
  {
    index: int,
    op: { enum: ["create", "update", "supersede", "expire"] },
    status: { enum: ["created", "updated", "superseded", "expired", "noop", "conflict", "rejected"] },
    reason: str,
    message: str,
    nodeId: str,
    key: str,
    scope: str,
    revision: int,
    previousId: str,
    replaced: object({ id: str, title: str, revision: int }),
    currentRevision: int,
    currentStatus: str,
    notes: strings,
  },
  [
    "reason",
    "nodeId",
    "key",
    "scope",
    "revision",
    "previousId",
    "replaced",
    "currentRevision",
    "currentStatus",
    "notes",
  ],
);

const receiptCounts = [
  "revisionsRemoved",
  "embeddingsRemoved",
  "messagesRemoved",
  "summariesRemoved",
  "chunksRemoved",
  "treeSummariesRemoved",
  "topicsRebuilt",
  "topicsRemoved",
  "auditEventsScrubbed",
  "idempotencyRecordsRemoved",
  "jobsRemoved",
];

const summary = object({
  tenantId: str,
  id: str,
  sessionId: str,
  parentSummaryId: nullable(str),
  fromMessageId: str,
  toMessageId: str,
  messageCount: int,
  summary: str,
  currentGoal: nullable(str),
  constraints: strings,
  preferences: strings,
  decisions: strings,
  completedWork: strings,
  pendingWork: strings,
  knownIssues: strings,
  generator: str,
  createdAt: { type: "string", format: "date-time" },
});

const toolDescriptor = object({
  name: str,
  title: str,
  description: str,
  permission: { enum: [...API_KEY_PERMISSIONS] },
  readOnly: bool,
  destructive: bool,
  inputSchema: { type: "object" },
  openai: object({
    type: { const: "function" },
    function: object({ name: str, description: str, parameters: { type: "object" } }),
  }),
  anthropic: object({ name: str, description: str, input_schema: { type: "object" } }),
});

/** The answers' schemas, by component name, and which answer each tool gives. */
export const RESULT_SCHEMAS: Record<string, JsonSchema> = {
  MemoryNode: object(cardProperties, [], "A memory card."),
  SearchHit: object(
    {
      ...cardProperties,
      matchedBy: list({ enum: ["exact", "enumeration", "full_text", "trigram", "vector", "slot"] }),
      score: ref("ScoreComponents"),
    },
    ["score"],
    "A card and why it matched.",
  ),
  ScoreComponents: scoreComponents,
  MemorySearchResult: object(
    {
      exact: list(ref("SearchHit")),
      relevant: list(ref("SearchHit")),
      omitted: list(
        object({
          nodeId: str,
          reason: { enum: ["expired", "superseded", "low_confidence", "conflict_lost", "over_limit"] },
        }),
      ),
      omittedCount: int,
      enumerated: {
        type: "boolean",
        description: "True only when an enumeration ran: the only case in which an empty answer means no memories.",
      },
      nextCursor: str,
      evidence: list(
        object(
          {
            kind: { enum: ["message", "chunk"] },
            id: str,
            sessionId: str,
            role: str,
            content: str,
            createdAt: str,
            score: num,
            components: ref("ScoreComponents"),
          },
          ["components"],
        ),
      ),
      message: str,
      warnings: strings,
    },
    ["omittedCount", "nextCursor", "evidence", "warnings"],
  ),
  MemoryGetResult: object(
    {
      found: bool,
      node: ref("MemoryNode"),
      candidates: list(ref("MemoryNode")),
      currentId: str,
      currentRevision: int,
      message: str,
    },
    ["node", "candidates", "currentId", "currentRevision"],
  ),
  MemoryWriteResult: object(
    {
      done: { type: "boolean", description: "False: nothing was written." },
      message: str,
      results: list(writeOperationResult),
      replayed: bool,
      consistency,
    },
    ["replayed", "consistency"],
  ),
  MemoryForgetResult: object(
    {
      done: { type: "boolean", description: "False: nothing was forgotten (see reason, e.g. forget_intent_required)." },
      mode: { enum: ["soft", "hard"] },
      deletedIds: strings,
      message: str,
      reason: str,
      requiresConfirmation: bool,
      candidates: list(object({ id: str, revision: int, scope: str, key: str, title: str, status: str })),
      conflicts: list(
        object(
          {
            id: str,
            expectedRevision: int,
            currentRevision: nullable(int),
            currentStatus: nullable(str),
            currentId: str,
            currentIdRevision: int,
          },
          ["currentId", "currentIdRevision"],
        ),
      ),
      receipt: object({
        erasedAt: str,
        nodeIds: strings,
        lineageIds: strings,
        messageIds: strings,
        ...Object.fromEntries(receiptCounts.map((key) => [key, int])),
      }),
      replayed: bool,
      consistency,
    },
    ["reason", "requiresConfirmation", "candidates", "conflicts", "receipt", "replayed", "consistency"],
  ),
  MemoryContextResult: object({
    prompt: { type: "string", description: "The rendered block to put in the model's prompt." },
    recentMessages: list(object({ id: str, role: { enum: [...MESSAGE_ROLES] }, content: str, createdAt: str })),
    latestSummary: nullable(summary),
    alwaysRecalled: list(ref("MemoryNode")),
    profile: list(ref("MemoryNode")),
    activeTasks: list(ref("MemoryNode")),
    constraints: list(ref("MemoryNode")),
    preferences: list(ref("MemoryNode")),
    facts: list(ref("MemoryNode")),
    relevantNodes: list(ref("MemoryNode")),
    usedMemoryIds: strings,
    diagnostics: object({
      enabled: bool,
      storeStatus: { enum: ["ok", "disabled", "degraded"] },
      warnings: strings,
      retrievedNodeCount: int,
      omittedNodeCount: int,
      tokenBudget: int,
      usedTokens: int,
    }),
  }),
  MessageAppendResult: object(
    {
      sessionId: str,
      messageIds: strings,
      messages: list(object({ id: str, role: str, duplicate: bool, createdAt: str })),
      message: str,
      consistency,
    },
    ["consistency"],
  ),
  ToolList: object({
    tools: list(toolDescriptor),
    turn: object({ description: str, inputSchema: { type: "object" } }),
    key: object({ id: str, prefix: str, permissions: list({ enum: [...API_KEY_PERMISSIONS] }), scopes: strings }),
  }),
};

export const TOOL_RESULT_SCHEMA = {
  memory_search: "MemorySearchResult",
  memory_get: "MemoryGetResult",
  memory_write: "MemoryWriteResult",
  memory_forget: "MemoryForgetResult",
  memory_context: "MemoryContextResult",
  message_append: "MessageAppendResult",
} as const;
