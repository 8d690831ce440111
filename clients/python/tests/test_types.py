"""The Python TypedDicts name the same fields as the endpoint's schemas.

docs/openapi.json is built from the tools' zod schemas (and a test keeps it equal to what the
service serves), so comparing against it catches a field added, removed or made required there.
"""

from __future__ import annotations

import json
import sys
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(HERE.parent / "src"))

from agent_memory import types  # noqa: E402

INPUTS = {
    "MemorySearchInput": types.MemorySearchInput,
    "MemoryGetInput": types.MemoryGetInput,
    "MemoryWriteInput": types.MemoryWriteInput,
    "MemoryForgetInput": types.MemoryForgetInput,
    "MemoryContextInput": types.MemoryContextInput,
    "MessageAppendInput": types.MessageAppendInput,
}


class TypesMatchTheSchemas(unittest.TestCase):
    def setUp(self) -> None:
        self.schemas = json.loads((ROOT / "docs" / "openapi.json").read_text("utf-8"))["components"]["schemas"]

    def test_inputs_have_the_schema_fields_and_required_ones(self) -> None:
        for name, typed in INPUTS.items():
            schema = self.schemas[name]
            fields = set(schema["properties"]) - {"turn"}
            with self.subTest(name):
                self.assertEqual(set(typed.__required_keys__) | set(typed.__optional_keys__), fields)
                self.assertEqual(set(typed.__required_keys__), set(schema.get("required", [])))

    def test_turn_and_message_fields(self) -> None:
        turn = self.schemas["Turn"]
        self.assertEqual(set(types.TurnInput.__optional_keys__), set(turn["properties"]))
        message = self.schemas["MessageAppendInput"]["properties"]["messages"]["items"]
        self.assertEqual(set(types.MessageInput.__required_keys__) | set(types.MessageInput.__optional_keys__), set(message["properties"]))
        self.assertEqual(set(types.MessageInput.__required_keys__), set(message["required"]))

    def test_tool_names(self) -> None:
        self.assertEqual(types.TOOL_NAMES, self.schemas["ToolCall"]["properties"]["name"]["enum"])


if __name__ == "__main__":
    unittest.main()
