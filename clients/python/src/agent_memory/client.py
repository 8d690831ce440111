"""MemoryClient: the memory service's agent endpoint from Python, standard library only."""

from __future__ import annotations

import email.utils
import json
import random
import socket
import time
import urllib.error
import urllib.request
import uuid
from typing import Any, Callable, Dict, List, Mapping, Optional, Union, cast

from .errors import MemoryApiError
from .types import (
    MemoryContextInput,
    MemoryContextResult,
    MemoryForgetInput,
    MemoryForgetResult,
    MemoryGetInput,
    MemoryGetResult,
    MemorySearchInput,
    MemorySearchResult,
    MemoryWriteInput,
    MemoryWriteResult,
    MessageAppendInput,
    MessageAppendResult,
    MessageInput,
    ToolList,
    TurnInput,
)

_RETRY_STATUSES = {429, 503}
_WRITES = {"memory_write", "memory_forget"}


def _backoff(attempt: int) -> float:
    """About 0.25 s, 0.5 s, 1 s, ... capped at 8 s, with jitter."""
    return min(8.0, 0.25 * 2 ** (attempt - 1)) * (0.75 + random.random() * 0.5)


def _position(token: Optional[str]) -> Optional[int]:
    """A write position ``X/Y`` (hex) as a number, to keep the later of two tokens."""
    if not token or "/" not in token:
        return None
    high, _, low = token.strip().partition("/")
    try:
        return (int(high, 16) << 32) + int(low, 16)
    except ValueError:
        return None


def _retry_after(header: Optional[str], details: Optional[Dict[str, Any]]) -> Optional[float]:
    if header:
        try:
            return max(0.0, float(header))
        except ValueError:
            parsed = email.utils.parsedate_to_datetime(header) if header.strip() else None
            if parsed is not None:
                return max(0.0, parsed.timestamp() - time.time())
    value = (details or {}).get("retryAfterSeconds")
    return float(value) if isinstance(value, (int, float)) and value >= 0 else None


class MemoryClient:
    """One method per tool of the agent endpoint, with typed errors and safe retries.

    ``MemoryClient("http://localhost:3000", "mem_live_...", session_id="chat-42")``. Every call sends
    the client's session as ``turn.sessionId``; pass ``turn={...}`` to add to it (``forgetIntent``
    only when the user asked to forget in this turn). A 429 is retried after its ``Retry-After``, a
    503 or a failed connection after a short back-off; writes and forgets keep one ``idempotencyKey``
    across retries, so a write whose answer was lost is applied once.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        session_id: Optional[str] = None,
        workspace_id: Optional[str] = None,
        user_id: Optional[str] = None,
        timeout: float = 30.0,
        retries: int = 2,
        max_retry_delay: float = 30.0,
        headers: Optional[Mapping[str, str]] = None,
        read_your_writes: bool = True,
        sleep: Callable[[float], None] = time.sleep,
        _shared: Optional[Dict[str, Optional[str]]] = None,
    ) -> None:
        if not base_url or not base_url.strip():
            raise ValueError("MemoryClient needs base_url, e.g. http://localhost:3000")
        if not api_key or not api_key.strip():
            raise ValueError("MemoryClient needs api_key (an agent key, mem_live_...)")
        base = base_url.rstrip("/")
        if base.endswith("/api/trpc"):
            base = base[: -len("/api/trpc")]
        self.base_url = base
        self._endpoint = f"{base}/api/trpc"
        self._api_key = api_key
        self.session_id = session_id
        self._workspace_id = workspace_id
        self._user_id = user_id
        self._timeout = timeout
        self._retries = max(0, int(retries))
        self._max_retry_delay = max_retry_delay
        self._headers = dict(headers or {})
        self._read_your_writes = read_your_writes
        self._sleep = sleep
        # The latest write's consistency token, shared with with_session copies.
        self._shared: Dict[str, Optional[str]] = _shared if _shared is not None else {"consistency": None}

    @property
    def consistency(self) -> Optional[str]:
        """The ``consistency`` token of this client's latest write, forget or append (servers with read replicas only)."""
        return self._shared["consistency"]

    def _keep_consistency(self, data: Any) -> None:
        if not self._read_your_writes or not isinstance(data, dict) or not isinstance(data.get("consistency"), str):
            return
        known, incoming = _position(self._shared["consistency"]), _position(data["consistency"])
        if known is None or incoming is None or incoming > known:
            self._shared["consistency"] = data["consistency"]

    # ---- tools -------------------------------------------------------------------------------

    def search(self, input: MemorySearchInput, *, turn: Optional[TurnInput] = None, timeout: Optional[float] = None) -> MemorySearchResult:
        """memory_search: ``kinds`` for known categories, ``queryText`` for open questions, ``all`` to list."""
        return cast(MemorySearchResult, self._tool("memory_search", dict(input), turn, timeout, None))

    def get(self, input: Union[str, MemoryGetInput], *, turn: Optional[TurnInput] = None, timeout: Optional[float] = None) -> MemoryGetResult:
        """memory_get: one card by id (a string is taken as the id), or an exact lookup."""
        args: Dict[str, Any] = {"id": input} if isinstance(input, str) else dict(input)
        return cast(MemoryGetResult, self._tool("memory_get", args, turn, timeout, None))

    def write(self, input: MemoryWriteInput, *, turn: Optional[TurnInput] = None, timeout: Optional[float] = None, idempotency_key: Optional[str] = None) -> MemoryWriteResult:
        """memory_write: a batch, all or nothing; ``done`` False means nothing was written."""
        return cast(MemoryWriteResult, self._tool("memory_write", dict(input), turn, timeout, idempotency_key))

    def forget(self, input: MemoryForgetInput, *, turn: Optional[TurnInput] = None, timeout: Optional[float] = None, idempotency_key: Optional[str] = None) -> MemoryForgetResult:
        """memory_forget: needs ``turn={"forgetIntent": True}``; without it ``done`` is False (forget_intent_required)."""
        return cast(MemoryForgetResult, self._tool("memory_forget", dict(input), turn, timeout, idempotency_key))

    def context(self, input: Optional[MemoryContextInput] = None, *, turn: Optional[TurnInput] = None, timeout: Optional[float] = None) -> MemoryContextResult:
        """memory_context: the budgeted memory block for this turn (``prompt``)."""
        return cast(MemoryContextResult, self._tool("memory_context", dict(input or {}), turn, timeout, None))

    def append_messages(self, input: Union[MessageAppendInput, List[MessageInput]], *, turn: Optional[TurnInput] = None, timeout: Optional[float] = None) -> MessageAppendResult:
        """message_append: this turn's messages as evidence; the ids ``sourceMessageIds`` may cite."""
        args: Dict[str, Any] = {"messages": list(input)} if isinstance(input, list) else dict(input)
        return cast(MessageAppendResult, self._tool("message_append", args, turn, timeout, None))

    def list_tools(self, *, timeout: Optional[float] = None) -> ToolList:
        """tools.list: the tools this key may call, with JSON Schemas and OpenAI / Anthropic forms."""
        return cast(ToolList, self._send("tools.list", None, timeout))

    def call(self, name: str, arguments: Optional[Mapping[str, Any]] = None, *, turn: Optional[TurnInput] = None, timeout: Optional[float] = None, idempotency_key: Optional[str] = None) -> Any:
        """tools.call: any tool by name, as a model asked for it."""
        args = dict(arguments or {})
        envelope: Dict[str, Any] = {"name": name, "arguments": args}
        if name in _WRITES:
            existing = args.get("idempotencyKey")
            envelope["idempotencyKey"] = idempotency_key or (existing if isinstance(existing, str) else str(uuid.uuid4()))
        elif idempotency_key is not None:
            envelope["idempotencyKey"] = idempotency_key
        merged = self._turn(turn)
        if merged:
            envelope["turn"] = merged
        return self._send("tools.call", envelope, timeout)

    def with_session(self, session_id: str) -> "MemoryClient":
        """The same client for another conversation."""
        return MemoryClient(
            self.base_url,
            self._api_key,
            session_id=session_id,
            workspace_id=self._workspace_id,
            user_id=self._user_id,
            timeout=self._timeout,
            retries=self._retries,
            max_retry_delay=self._max_retry_delay,
            headers=self._headers,
            read_your_writes=self._read_your_writes,
            sleep=self._sleep,
            _shared=self._shared,
        )

    # ---- transport ---------------------------------------------------------------------------

    def _turn(self, turn: Optional[TurnInput]) -> Dict[str, Any]:
        merged: Dict[str, Any] = {"sessionId": self.session_id, "workspaceId": self._workspace_id, "userId": self._user_id}
        merged.update(dict(turn or {}))
        return {key: value for key, value in merged.items() if value is not None}

    def _tool(self, name: str, args: Dict[str, Any], turn: Optional[TurnInput], timeout: Optional[float], idempotency_key: Optional[str]) -> Any:
        if name in _WRITES:
            args["idempotencyKey"] = idempotency_key or args.get("idempotencyKey") or str(uuid.uuid4())
        merged = self._turn(turn)
        if merged:
            args["turn"] = merged
        return self._send(f"tools.{name}", args, timeout)

    def _send(self, procedure: str, body: Optional[Dict[str, Any]], timeout: Optional[float]) -> Any:
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = {**self._headers, "authorization": f"Bearer {self._api_key}", "accept": "application/json"}
        if data is not None:
            headers["content-type"] = "application/json"
        if self._read_your_writes and self._shared["consistency"]:
            headers["x-memory-consistency"] = self._shared["consistency"] or ""
        attempts = 0
        while True:
            attempts += 1
            request = urllib.request.Request(f"{self._endpoint}/{procedure}", data=data, headers=headers, method="GET" if data is None else "POST")
            try:
                with urllib.request.urlopen(request, timeout=timeout if timeout is not None else self._timeout) as response:
                    status, text, retry_header = response.status, response.read().decode("utf-8"), response.headers.get("retry-after")
            except urllib.error.HTTPError as error:
                status, text, retry_header = error.code, error.read().decode("utf-8", "replace"), error.headers.get("retry-after")
            except (socket.timeout, TimeoutError) as error:
                raise MemoryApiError(
                    f"{procedure}: no answer within {timeout if timeout is not None else self._timeout} s. A write may or may not have been applied; retry with the same idempotency key.",
                    code="TIMEOUT", reason="timeout", status=0, procedure=procedure, attempts=attempts,
                ) from error
            except (urllib.error.URLError, ConnectionError) as error:
                reason = getattr(error, "reason", error)
                if isinstance(reason, (socket.timeout, TimeoutError)):
                    raise MemoryApiError(f"{procedure}: no answer in time.", code="TIMEOUT", reason="timeout", status=0, procedure=procedure, attempts=attempts) from error
                if attempts <= self._retries:
                    self._sleep(_backoff(attempts))
                    continue
                raise MemoryApiError(f"{procedure}: could not reach {self._endpoint} ({reason}).", code="NETWORK_ERROR", reason="network_error", status=0, procedure=procedure, attempts=attempts) from error
            try:
                answer = json.loads(text) if text else None
            except ValueError:
                answer = None
            if 200 <= status < 300 and isinstance(answer, dict) and isinstance(answer.get("result"), dict) and "data" in answer["result"]:
                self._keep_consistency(answer["result"]["data"])
                return answer["result"]["data"]
            error_body = answer.get("error") if isinstance(answer, dict) else None
            error_data = error_body.get("data") if isinstance(error_body, dict) and isinstance(error_body.get("data"), dict) else {}
            details = error_data.get("details") if isinstance(error_data.get("details"), dict) else None
            retry_after = _retry_after(retry_header, details)
            message = error_body.get("message") if isinstance(error_body, dict) and isinstance(error_body.get("message"), str) else f"{procedure}: HTTP {status} without a service answer: {text[:200]}"
            failure = MemoryApiError(
                message,
                code=error_data.get("code") or (f"HTTP_{status}" if answer is not None else "INVALID_RESPONSE"),
                reason=error_data.get("reason") or ("unknown" if answer is not None else "invalid_response"),
                status=status,
                procedure=procedure,
                attempts=attempts,
                details=details,
                retry_after_seconds=retry_after,
            )
            if status not in _RETRY_STATUSES or attempts > self._retries:
                raise failure
            delay = retry_after if retry_after is not None else _backoff(attempts)
            if delay > self._max_retry_delay:
                raise failure
            self._sleep(delay)
