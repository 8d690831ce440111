"""The endpoint's inputs and answers as TypedDicts (the JSON sent and received).

They mirror the TypeScript client's types (packages/client/src/types.ts), which the service's tests
keep equal to its schemas. Keys are the JSON names (camelCase).
"""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional, TypedDict, Union

ToolName = Literal["memory_search", "memory_get", "memory_write", "memory_forget", "memory_context", "message_append"]
TOOL_NAMES: List[str] = ["memory_search", "memory_get", "memory_write", "memory_forget", "memory_context", "message_append"]

NodeType = Literal["preference", "fact", "decision", "task", "recipe", "skill", "constraint", "correction"]
NodeStatus = Literal["active", "superseded", "expired", "deleted"]
MessageRole = Literal["system", "user", "assistant", "tool"]


class TurnInput(TypedDict, total=False):
    """What the host (your program, never the model) knows about the turn."""

    sessionId: str
    workspaceId: str
    userId: str
    forgetIntent: bool
    forgetAllIntent: bool
    toolCallId: str


class MemorySearchInput(TypedDict, total=False):
    all: bool
    queryText: str
    kinds: List[str]
    itemKey: str
    domain: str
    categoryPathPrefix: Union[str, List[str]]
    types: List[NodeType]
    key: str
    valueJson: Any
    tags: List[str]
    entities: List[str]
    scopes: List[str]
    includeExpired: bool
    asOf: str
    includeEvidence: bool
    limit: int
    cursor: str


class MemoryGetInput(TypedDict, total=False):
    id: str
    kind: str
    itemKey: str
    key: str
    scope: str
    type: NodeType
    domain: str
    valueJson: Any


class _NodeFieldsRequired(TypedDict):
    title: str
    content: str


class NodeFieldsInput(_NodeFieldsRequired, total=False):
    valueJson: Any
    value: Any
    tags: List[str]
    entities: List[str]
    confidence: float
    importance: float
    expiresAt: Optional[str]
    sourceMessageIds: List[str]


# An operation: {"op": "create" | "update" | "supersede" | "expire", ...} as in the TypeScript client.
WriteOperationInput = Dict[str, Any]


class _MemoryWriteRequired(TypedDict):
    operations: List[WriteOperationInput]


class MemoryWriteInput(_MemoryWriteRequired, total=False):
    idempotencyKey: str


class ForgetTarget(TypedDict):
    id: str
    expectedRevision: int


class _MemoryForgetRequired(TypedDict):
    reason: str


class MemoryForgetInput(_MemoryForgetRequired, total=False):
    id: str
    expectedRevision: int
    targets: List[ForgetTarget]
    selector: Dict[str, Any]
    all: bool
    scope: str
    mode: Literal["soft", "hard"]
    eraseEvidence: bool
    idempotencyKey: str


class MemoryContextInput(TypedDict, total=False):
    queryText: str
    sessionId: str
    tokenBudget: int
    recentMessageLimit: int


class _MessageRequired(TypedDict):
    role: MessageRole
    content: str


class MessageInput(_MessageRequired, total=False):
    clientMessageId: str
    parentId: str
    createdAt: str
    metadata: Dict[str, Any]


class _MessageAppendRequired(TypedDict):
    messages: List[MessageInput]


class MessageAppendInput(_MessageAppendRequired, total=False):
    sessionId: str


class MemoryNode(TypedDict):
    id: str
    scope: str
    kind: str
    key: str
    itemKey: Optional[str]
    domain: str
    categoryPath: List[str]
    type: NodeType
    valueJson: Any
    title: str
    content: str
    status: NodeStatus
    revision: int
    lineageId: str
    supersedesId: Optional[str]
    supersededById: Optional[str]
    confidence: float
    importance: float
    tags: List[str]
    entities: List[str]
    sourceMessageIds: List[str]
    explicitUserIntent: bool
    redacted: bool
    createdBy: Dict[str, Any]
    updatedBy: Dict[str, Any]
    createdAt: str
    updatedAt: str
    expiresAt: Optional[str]
    endedAt: Optional[str]


class _SearchResultRequired(TypedDict):
    exact: List[Dict[str, Any]]
    relevant: List[Dict[str, Any]]
    omitted: List[Dict[str, Any]]
    enumerated: bool
    message: str


class MemorySearchResult(_SearchResultRequired, total=False):
    omittedCount: int
    nextCursor: str
    evidence: List[Dict[str, Any]]
    warnings: List[str]


class _GetResultRequired(TypedDict):
    found: bool
    message: str


class MemoryGetResult(_GetResultRequired, total=False):
    node: MemoryNode
    candidates: List[MemoryNode]
    currentId: str
    currentRevision: int


class _WriteResultRequired(TypedDict):
    done: bool
    message: str
    results: List[Dict[str, Any]]


class MemoryWriteResult(_WriteResultRequired, total=False):
    replayed: bool
    consistency: str


class _ForgetResultRequired(TypedDict):
    done: bool
    mode: Literal["soft", "hard"]
    deletedIds: List[str]
    message: str


class MemoryForgetResult(_ForgetResultRequired, total=False):
    reason: str
    requiresConfirmation: bool
    candidates: List[Dict[str, Any]]
    conflicts: List[Dict[str, Any]]
    receipt: Dict[str, Any]
    replayed: bool
    consistency: str


class MemoryContextResult(TypedDict):
    prompt: str
    recentMessages: List[Dict[str, Any]]
    latestSummary: Optional[Dict[str, Any]]
    alwaysRecalled: List[MemoryNode]
    profile: List[MemoryNode]
    activeTasks: List[MemoryNode]
    constraints: List[MemoryNode]
    preferences: List[MemoryNode]
    facts: List[MemoryNode]
    relevantNodes: List[MemoryNode]
    usedMemoryIds: List[str]
    diagnostics: Dict[str, Any]


class _MessageAppendResultRequired(TypedDict):
    sessionId: str
    messageIds: List[str]
    messages: List[Dict[str, Any]]
    message: str


class MessageAppendResult(_MessageAppendResultRequired, total=False):
    consistency: str


class ToolList(TypedDict):
    tools: List[Dict[str, Any]]
    turn: Dict[str, Any]
    key: Dict[str, Any]
