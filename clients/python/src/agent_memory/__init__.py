"""Python client for the agent memory service's tool endpoint (standard library only)."""

from .client import MemoryClient
from .errors import MemoryApiError
from .types import TOOL_NAMES

__all__ = ["MemoryClient", "MemoryApiError", "TOOL_NAMES"]
__version__ = "0.1.0"
