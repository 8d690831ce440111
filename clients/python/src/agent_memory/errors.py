"""Errors the memory service (or the way to it) answered."""

from __future__ import annotations

from typing import Any, Dict, Optional


class MemoryApiError(Exception):
    """A call the service refused, or that got no answer.

    ``code`` is the transport code (``BAD_REQUEST``, ``FORBIDDEN``, ``TOO_MANY_REQUESTS``, ..., or
    ``TIMEOUT`` / ``NETWORK_ERROR`` / ``INVALID_RESPONSE`` when no answer of the service came back),
    ``reason`` the service's machine-readable cause (``missing_permission``, ``invalid_input``,
    ``rate_limited``, ...), ``details`` what it named and ``status`` the HTTP status (0 for none).
    """

    def __init__(
        self,
        message: str,
        *,
        code: str,
        reason: str,
        status: int,
        procedure: str,
        attempts: int,
        details: Optional[Dict[str, Any]] = None,
        retry_after_seconds: Optional[float] = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.reason = reason
        self.status = status
        self.procedure = procedure
        self.attempts = attempts
        self.details = details
        self.retry_after_seconds = retry_after_seconds

    def to_tool_result(self) -> Dict[str, Any]:
        """What went wrong as a plain dict, to hand the model as a tool result."""
        result: Dict[str, Any] = {"error": self.message, "code": self.code, "reason": self.reason}
        if self.details is not None:
            result["details"] = self.details
        return result

    def __repr__(self) -> str:
        return f"MemoryApiError(status={self.status}, code={self.code!r}, reason={self.reason!r}, message={self.message!r})"
