/**
 * The tool endpoint's inputs and answers as plain TypeScript types. They mirror the server's zod
 * schemas (src/server/tools/schemas.ts and the memory schemas it uses) and result types, as the
 * JSON an HTTP client sends and receives. Types only: nothing of the server runs in your program.
 * test/unit/client-types.test.ts fails when these drift from the server's.
 */

export const TOOL_NAMES = [
  "memory_search",
  "memory_get",
  "memory_write",
  "memory_forget",
  "memory_context",
  "message_append",
] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

export type NodeType = "preference" | "fact" | "decision" | "task" | "recipe" | "skill" | "constraint" | "correction";
export type NodeStatus = "active" | "superseded" | "expired" | "deleted";
export type ActorType = "user" | "api_key" | "system";
export type MessageRole = "system" | "user" | "assistant" | "tool";
export type ApiKeyPermission = "memory:read" | "memory:write" | "memory:forget" | "messages:write";

/** What the host (your program, never the model) knows about the turn; sent beside the arguments. */
export type TurnInput = {
  /** The conversation: default session scope, and where message_append stored this turn's evidence. */
  sessionId?: string;
  /** Default workspace scope (project) for this turn. */
  workspaceId?: string;
  /** Whose user profile this turn is about; default: the key's owner. */
  userId?: string;
  /** The user explicitly asked to forget something in this turn. */
  forgetIntent?: boolean;
  /** The user explicitly asked to clear all memory in this turn. */
  forgetAllIntent?: boolean;
  /** The model's tool-call id, recorded in the audit trail. */
  toolCallId?: string;
};

// ---- inputs ------------------------------------------------------------------------------------

export type MemorySearchInput = {
  /** List everything (a page at a time: send back `nextCursor` as `cursor`). */
  all?: boolean;
  /** An open question. */
  queryText?: string;
  /** Known categories. */
  kinds?: string[];
  itemKey?: string;
  domain?: string;
  categoryPathPrefix?: string | string[];
  types?: NodeType[];
  key?: string;
  valueJson?: unknown;
  tags?: string[];
  entities?: string[];
  /** Narrow to these scopes (each must be readable); a bare type ("session") means this turn's. */
  scopes?: string[];
  includeExpired?: boolean;
  /** Answer as memory stood at this moment (ISO time). */
  asOf?: string;
  /** Also search the evidence log (messages, and memory-tree chunks when present). */
  includeEvidence?: boolean;
  limit?: number;
  /** An enumeration's next page: the previous answer's nextCursor. */
  cursor?: string;
};

/** One card by id, or a limit-2 exact lookup by kind (+ itemKey), key or valueJson. */
export type MemoryGetInput = {
  id?: string;
  kind?: string;
  itemKey?: string;
  key?: string;
  scope?: string;
  type?: NodeType;
  domain?: string;
  valueJson?: unknown;
};

/** A card's fields, as written. */
export type NodeFieldsInput = {
  title: string;
  content: string;
  valueJson?: unknown;
  /** Older callers send `value`; it means valueJson. */
  value?: unknown;
  tags?: string[];
  entities?: string[];
  /** 0..1 */
  confidence?: number;
  /** 0..1 */
  importance?: number;
  /** ISO time, or null for never. */
  expiresAt?: string | null;
  /** Ids message_append returned for this turn's session. */
  sourceMessageIds?: string[];
};

type OperationCommon = {
  /** The user asked for this in so many words. */
  explicitUserIntent?: boolean;
  reason?: string;
};
type OperationTarget = { targetId: string; expectedRevision: number };

export type WriteOperationInput =
  | ({ op: "create"; kind: string; itemKey?: string; scope?: string; node: NodeFieldsInput } & OperationCommon)
  | ({ op: "update"; node: Partial<NodeFieldsInput> } & OperationTarget & OperationCommon)
  | ({ op: "supersede"; kind?: string; itemKey?: string; node: NodeFieldsInput } & OperationTarget & OperationCommon)
  | ({ op: "expire" } & OperationTarget & OperationCommon);

/** A batch, all or nothing. */
export type MemoryWriteInput = {
  operations: WriteOperationInput[];
  /** Makes a retried write answer as the first one did. The client sends one with every write. */
  idempotencyKey?: string;
};

export type ForgetSelector = {
  scope?: string;
  domain?: string;
  kind?: string;
  type?: NodeType;
  key?: string;
  itemKey?: string;
  valueJson?: unknown;
  categoryPathPrefix?: string | string[];
  tags?: string[];
  sourceMessageId?: string;
};

/** Exactly one of: id (+ expectedRevision), targets, selector, or all: true. */
export type MemoryForgetInput = {
  id?: string;
  expectedRevision?: number;
  targets?: { id: string; expectedRevision: number }[];
  selector?: ForgetSelector;
  all?: boolean;
  /** Narrows `all` to one scope. */
  scope?: string;
  mode?: "soft" | "hard";
  /** Hard delete only: also erase the evidence messages the cards came from. */
  eraseEvidence?: boolean;
  /** Why (the user's request). */
  reason: string;
  idempotencyKey?: string;
};

export type MemoryContextInput = {
  /** The user's message this turn: drives the relevant-memory search. */
  queryText?: string;
  sessionId?: string;
  tokenBudget?: number;
  recentMessageLimit?: number;
};

export type MessageInput = {
  role: MessageRole;
  content: string;
  /** Your own message id: makes retries land on the same stored message. */
  clientMessageId?: string;
  parentId?: string;
  /** ISO time. */
  createdAt?: string;
  metadata?: Record<string, unknown>;
};

export type MessageAppendInput = {
  /** Default: turn.sessionId. */
  sessionId?: string;
  messages: MessageInput[];
};

export type ToolArgs = {
  memory_search: MemorySearchInput;
  memory_get: MemoryGetInput;
  memory_write: MemoryWriteInput;
  memory_forget: MemoryForgetInput;
  memory_context: MemoryContextInput;
  message_append: MessageAppendInput;
};

// ---- answers -----------------------------------------------------------------------------------

/** A memory card. */
export type MemoryNode = {
  id: string;
  scope: string;
  kind: string;
  key: string;
  itemKey: string | null;
  domain: string;
  categoryPath: string[];
  type: NodeType;
  valueJson: unknown;
  title: string;
  content: string;
  status: NodeStatus;
  revision: number;
  lineageId: string;
  supersedesId: string | null;
  supersededById: string | null;
  confidence: number;
  importance: number;
  tags: string[];
  entities: string[];
  sourceMessageIds: string[];
  explicitUserIntent: boolean;
  redacted: boolean;
  createdBy: { type: ActorType; id: string | null };
  updatedBy: { type: ActorType; id: string | null };
  createdAt: string;
  updatedAt: string;
  expiresAt: string | null;
  endedAt: string | null;
};

export type OmitReason = "expired" | "superseded" | "low_confidence" | "conflict_lost" | "over_limit";

/** Each ranking signal's contribution. */
export type ScoreComponents = {
  fullText?: number;
  context?: number;
  trigram?: number;
  vector?: number;
  fused?: number;
  importance?: number;
  confidence?: number;
  recency?: number;
  hotness?: number;
  explicit?: number;
  rerank?: number;
  /** Evidence: the second stage's parts, the weighted share of the question's terms a text holds and how near each other they stand. */
  coverage?: number;
  proximity?: number;
  /** Evidence: 1 when the question asks for a kind of value (a time, an age, a number, a place, an event …) and the text holds one. */
  answerType?: number;
  /** Evidence: the share of the question's terms a few best texts sharing this one's rare word hold beyond it (one thing's facts told apart). */
  join?: number;
  /** Evidence: lent by the best hits that share this text's rare words (the second hop). */
  hop?: number;
  /** Evidence: 1 when the text names the question's subject only by the other name the memory binds it to (a relation for a name, or the name for a relation). */
  alias?: number;
  /** Evidence: 1 when the text was brought into the page's last places as holding what the question names. */
  named?: number;
  final: number;
};

export type SearchHit = MemoryNode & {
  matchedBy: ("exact" | "enumeration" | "full_text" | "trigram" | "vector" | "slot")[];
  score?: ScoreComponents;
};

export type EvidenceHit = {
  kind: "message" | "chunk";
  id: string;
  sessionId: string;
  role: string;
  content: string;
  createdAt: string;
  score: number;
  components?: ScoreComponents;
};

export type MemorySearchResult = {
  exact: SearchHit[];
  relevant: SearchHit[];
  omitted: { nodeId: string; reason: OmitReason }[];
  omittedCount?: number;
  /** True only when an enumeration ran: the only case in which an empty answer means "no memories". */
  enumerated: boolean;
  nextCursor?: string;
  evidence?: EvidenceHit[];
  message: string;
  warnings?: string[];
};

export type MemoryGetResult = {
  found: boolean;
  node?: MemoryNode;
  /** Several cards matched a lookup without id: pick one by id. */
  candidates?: MemoryNode[];
  /** The id named an old revision: the card current now, the one to change. */
  currentId?: string;
  currentRevision?: number;
  message: string;
};

export type WriteStatus = "created" | "updated" | "superseded" | "expired" | "noop" | "conflict" | "rejected";

export type WriteOperationResult = {
  index: number;
  op: "create" | "update" | "supersede" | "expire";
  status: WriteStatus;
  reason?: string;
  message: string;
  nodeId?: string;
  key?: string;
  scope?: string;
  revision?: number;
  previousId?: string;
  replaced?: { id: string; title: string; revision: number };
  currentRevision?: number;
  currentStatus?: string;
  notes?: string[];
};

export type MemoryWriteResult = {
  /** True only when every operation was applied (or was a noop). `false`: nothing was written. */
  done: boolean;
  message: string;
  results: WriteOperationResult[];
  /** The stored answer to an earlier call with the same idempotency key. */
  replayed?: boolean;
};

export type ForgetCandidate = {
  id: string;
  revision: number;
  scope: string;
  key: string;
  title: string;
  status: string;
};

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
  topicsRebuilt: number;
  topicsRemoved: number;
  auditEventsScrubbed: number;
  idempotencyRecordsRemoved: number;
  jobsRemoved: number;
};

export type MemoryForgetResult = {
  /** `false`: nothing was forgotten; `reason` says why (e.g. forget_intent_required). */
  done: boolean;
  mode: "soft" | "hard";
  deletedIds: string[];
  message: string;
  reason?: string;
  requiresConfirmation?: boolean;
  candidates?: ForgetCandidate[];
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

export type SessionSummary = {
  tenantId: string;
  id: string;
  sessionId: string;
  parentSummaryId: string | null;
  fromMessageId: string;
  toMessageId: string;
  messageCount: number;
  summary: string;
  currentGoal: string | null;
  constraints: string[];
  preferences: string[];
  decisions: string[];
  completedWork: string[];
  pendingWork: string[];
  knownIssues: string[];
  generator: string;
  createdAt: string;
};

export type MemoryContextDiagnostics = {
  enabled: boolean;
  storeStatus: "ok" | "disabled" | "degraded";
  warnings: string[];
  retrievedNodeCount: number;
  omittedNodeCount: number;
  tokenBudget: number;
  usedTokens: number;
};

export type MemoryContextResult = {
  /** The rendered block to put in the model's prompt. */
  prompt: string;
  recentMessages: { id: string; role: MessageRole; content: string; createdAt: string }[];
  latestSummary: SessionSummary | null;
  alwaysRecalled: MemoryNode[];
  profile: MemoryNode[];
  activeTasks: MemoryNode[];
  constraints: MemoryNode[];
  preferences: MemoryNode[];
  facts: MemoryNode[];
  relevantNodes: MemoryNode[];
  usedMemoryIds: string[];
  diagnostics: MemoryContextDiagnostics;
};

export type MessageAppendResult = {
  sessionId: string;
  /** Cite these in memory_write node.sourceMessageIds (with the same turn.sessionId). */
  messageIds: string[];
  messages: { id: string; role: string; duplicate: boolean; createdAt: string }[];
  message: string;
};

/**
 * A write's answer when the server has read replicas: its commit position. Send it back as the
 * X-Memory-Consistency header with a later read that must see the write.
 */
export type WithConsistency<T> = T & { consistency?: string };

export type ToolResults = {
  memory_search: MemorySearchResult;
  memory_get: MemoryGetResult;
  memory_write: WithConsistency<MemoryWriteResult>;
  memory_forget: WithConsistency<MemoryForgetResult>;
  memory_context: MemoryContextResult;
  message_append: WithConsistency<MessageAppendResult>;
};

export type JsonSchema = { [key: string]: unknown };

/** One tool as tools.list describes it, with drop-in OpenAI and Anthropic definitions. */
export type ToolDescriptor = {
  name: ToolName;
  title: string;
  description: string;
  permission: ApiKeyPermission;
  readOnly: boolean;
  destructive: boolean;
  inputSchema: JsonSchema;
  openai: { type: "function"; function: { name: string; description: string; parameters: JsonSchema } };
  anthropic: { name: string; description: string; input_schema: JsonSchema };
};

export type ToolList = {
  tools: ToolDescriptor[];
  turn: { description: string; inputSchema: JsonSchema };
  key: { id: string; prefix: string; permissions: ApiKeyPermission[]; scopes: string[] };
};
