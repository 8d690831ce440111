"""MemoryClient against a started agent endpoint (test/support/serve-agent.ts: the service's agent
listener on a local port over a fresh database), with a local fault proxy where the network has to
misbehave. Run from the repository root: python3 -m unittest discover -s clients/python/tests
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import unittest
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(HERE.parent / "src"))

from agent_memory import TOOL_NAMES, MemoryApiError, MemoryClient  # noqa: E402

SERVER: Dict[str, str] = {}
_process: Optional[subprocess.Popen] = None


def setUpModule() -> None:
    global _process
    _process = subprocess.Popen(
        ["node", "--import", "tsx", "test/support/serve-agent.ts"],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env={**os.environ, "NODE_ENV": "test"},
        text=True,
    )
    assert _process.stdout is not None
    line = _process.stdout.readline()
    if not line:
        raise RuntimeError("test/support/serve-agent.ts did not start")
    SERVER.update(json.loads(line))


def tearDownModule() -> None:
    if _process is not None:
        assert _process.stdin is not None
        _process.stdin.close()
        try:
            _process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            _process.kill()


def trpc_error(status: int, code: str, reason: str, message: str) -> bytes:
    return json.dumps({"error": {"message": message, "code": -32000, "data": {"code": code, "httpStatus": status, "reason": reason}}}).encode()


Action = Tuple[str, int, Dict[str, str], bytes]  # kind, status, headers, body


class FaultProxy:
    """A local proxy in front of the endpoint that answers as `plan(n)` says for the n-th request."""

    def __init__(self, target: str, plan: Callable[[int], Action]) -> None:
        self.requests: List[bytes] = []
        self.headers: List[Dict[str, str]] = []
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _forward(self, body: bytes) -> Tuple[int, bytes, Dict[str, str]]:
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length")}
                request = urllib.request.Request(target + self.path, data=body if self.command == "POST" else None, headers=headers, method=self.command)
                try:
                    with urllib.request.urlopen(request) as response:
                        return response.status, response.read(), dict(response.headers)
                except urllib.error.HTTPError as error:
                    return error.code, error.read(), dict(error.headers)

            def _handle(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                proxy.requests.append(body)
                proxy.headers.append({k.lower(): v for k, v in self.headers.items()})
                kind, status, headers, answer = plan(len(proxy.requests))
                if kind == "hold":
                    time.sleep(5)
                    return
                if kind in ("forward", "forward-token"):
                    token = answer
                    status, answer, forwarded = self._forward(body)
                    headers = {k: v for k, v in forwarded.items() if k.lower() in ("content-type", "retry-after")}
                    if kind == "forward-token":  # what a server with read replicas adds to a write's answer
                        parsed = json.loads(answer)
                        parsed["result"]["data"]["consistency"] = token.decode()
                        answer = json.dumps(parsed).encode()
                elif kind == "forward-then-answer":
                    self._forward(body)
                self.send_response(status)
                headers.setdefault("content-type", "application/json")
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            do_GET = _handle
            do_POST = _handle

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


PEANUTS = {
    "operations": [
        {"op": "create", "kind": "food_avoidance", "itemKey": "peanuts", "explicitUserIntent": True,
         "node": {"title": "Peanut allergy", "content": "The user is allergic to peanuts.", "valueJson": "peanuts"}}
    ]
}


class MemoryClientTest(unittest.TestCase):
    def client(self, **options: Any) -> MemoryClient:
        return MemoryClient(options.pop("base_url", SERVER["baseUrl"]), options.pop("api_key", SERVER["secret"]), **options)

    def test_round_trip_and_forget_needs_intent(self) -> None:
        memory = self.client(session_id="py-chat")
        appended = memory.append_messages([{"role": "user", "content": "Remember that I am allergic to peanuts."}])
        self.assertEqual(appended["sessionId"], "py-chat")
        operations = [dict(PEANUTS["operations"][0], node=dict(PEANUTS["operations"][0]["node"], sourceMessageIds=appended["messageIds"]))]
        written = memory.write({"operations": operations})
        self.assertTrue(written["done"], written)
        node_id = written["results"][0]["nodeId"]

        found = memory.search({"queryText": "peanut allergy"})
        self.assertIn(node_id, [hit["id"] for hit in found["exact"] + found["relevant"]])
        got = memory.get(node_id)
        self.assertTrue(got["found"])
        self.assertEqual(got["node"]["sourceMessageIds"], appended["messageIds"])
        self.assertIn("allergic to peanuts", memory.context({"queryText": "Can I eat satay?"})["prompt"])

        refused = memory.forget({"id": node_id, "expectedRevision": 1, "reason": "cleanup"})
        self.assertFalse(refused["done"])
        self.assertEqual(refused["reason"], "forget_intent_required")
        self.assertEqual(memory.get(node_id)["node"]["status"], "active")
        forgotten = memory.forget({"id": node_id, "expectedRevision": 1, "reason": "the user asked"}, turn={"forgetIntent": True})
        self.assertTrue(forgotten["done"])
        self.assertEqual(forgotten["deletedIds"], [node_id])
        self.assertNotIn(node_id, [hit["id"] for hit in memory.search({"kinds": ["food_avoidance"]})["exact"]])

    def test_tools_call_and_sessions(self) -> None:
        memory = self.client(session_id="py-a")
        self.assertEqual([tool["name"] for tool in memory.list_tools()["tools"]], TOOL_NAMES)
        other = memory.with_session("py-b")
        self.assertEqual(other.session_id, "py-b")
        self.assertEqual(other.call("message_append", {"messages": [{"role": "user", "content": "I prefer tea."}]})["sessionId"], "py-b")
        self.assertTrue(memory.call("memory_search", {"all": True})["enumerated"])

    def test_typed_errors(self) -> None:
        read_only = self.client(api_key=SERVER["readOnlySecret"])
        with self.assertRaises(MemoryApiError) as denied:
            read_only.write(PEANUTS)
        self.assertEqual((denied.exception.status, denied.exception.code, denied.exception.reason), (403, "FORBIDDEN", "missing_permission"))
        self.assertEqual(denied.exception.details, {"permission": "memory:write", "tool": "memory_write"})
        self.assertEqual(denied.exception.to_tool_result()["reason"], "missing_permission")

        with self.assertRaises(MemoryApiError) as invalid:
            self.client().forget({"id": "mem_x", "expectedRevision": 1, "reason": ""}, turn={"forgetIntent": True})
        self.assertEqual((invalid.exception.status, invalid.exception.reason), (400, "invalid_input"))
        with self.assertRaises(MemoryApiError) as unknown:
            self.client(api_key="mem_live_notarealkey0000000000000000").search({"all": True})
        self.assertEqual((unknown.exception.status, unknown.exception.reason), (401, "unknown_api_key"))

    def test_retries_keep_the_idempotency_key_and_a_lost_answer_is_replayed(self) -> None:
        def plan(n: int) -> Action:
            if n == 1:
                return ("answer", 429, {"retry-after": "1"}, trpc_error(429, "TOO_MANY_REQUESTS", "rate_limited", "slow down"))
            if n == 2:
                return ("forward-then-answer", 503, {}, trpc_error(503, "SERVICE_UNAVAILABLE", "database_unavailable", "connection lost"))
            return ("forward", 0, {}, b"")

        proxy = FaultProxy(SERVER["baseUrl"], plan)
        waits: List[float] = []
        try:
            memory = self.client(base_url=proxy.url, session_id="py-retry", sleep=waits.append)
            written = memory.write({"operations": [{"op": "create", "kind": "timezone_preference", "explicitUserIntent": True,
                                                    "node": {"title": "Time zone", "content": "Lives in Berlin time.", "valueJson": "Europe/Berlin"}}]})
        finally:
            proxy.close()
        self.assertEqual(len(proxy.requests), 3)
        self.assertEqual(waits[0], 1.0)
        keys = {json.loads(body)["idempotencyKey"] for body in proxy.requests}
        self.assertEqual(len(keys), 1)
        self.assertTrue(written["done"])
        self.assertTrue(written.get("replayed"))
        self.assertEqual(len(self.client(session_id="py-retry").search({"kinds": ["timezone_preference"]})["exact"]), 1)

    def test_reads_its_own_writes(self) -> None:
        tokens = [b"0/1A2B3C", b"0/1A2B00"]

        def plan(n: int) -> Action:
            return ("forward-token", 0, {}, tokens.pop(0)) if n in (1, 2) else ("forward", 0, {}, b"")

        proxy = FaultProxy(SERVER["baseUrl"], plan)
        try:
            memory = self.client(base_url=proxy.url, session_id="py-ryw")
            self.assertIsNone(memory.consistency)
            shellfish = {"operations": [{"op": "create", "kind": "food_avoidance", "itemKey": "shellfish", "explicitUserIntent": True,
                                         "node": {"title": "No shellfish", "content": "The user avoids shellfish.", "valueJson": "shellfish"}}]}
            self.assertEqual(memory.write(shellfish)["consistency"], "0/1A2B3C")
            memory.append_messages([{"role": "user", "content": "Noted."}])  # an older position: kept out
            self.assertEqual(memory.consistency, "0/1A2B3C")
            memory.with_session("py-ryw-2").search({"all": True})
            self.client(base_url=proxy.url, read_your_writes=False).search({"all": True})
        finally:
            proxy.close()
        self.assertEqual([h.get("x-memory-consistency") for h in proxy.headers], [None, "0/1A2B3C", "0/1A2B3C", None])

    def test_gives_up_after_retries_and_times_out(self) -> None:
        proxy = FaultProxy(SERVER["baseUrl"], lambda n: ("answer", 503, {}, trpc_error(503, "SERVICE_UNAVAILABLE", "database_unavailable", "connection lost")))
        try:
            with self.assertRaises(MemoryApiError) as failed:
                self.client(base_url=proxy.url, retries=2, sleep=lambda s: None).search({"all": True})
            self.assertEqual((failed.exception.status, failed.exception.attempts), (503, 3))
        finally:
            proxy.close()
        with self.assertRaises(MemoryApiError) as bad:
            self.client().search({"queryText": "x", "limit": 0})
        self.assertEqual(bad.exception.attempts, 1)

        slow = FaultProxy(SERVER["baseUrl"], lambda n: ("hold", 0, {}, b""))
        try:
            started = time.monotonic()
            with self.assertRaises(MemoryApiError) as timed_out:
                self.client(base_url=slow.url, timeout=0.3).search({"all": True})
            self.assertEqual((timed_out.exception.code, timed_out.exception.status), ("TIMEOUT", 0))
            self.assertLess(time.monotonic() - started, 4)
            self.assertEqual(len(slow.requests), 1)
        finally:
            slow.close()


if __name__ == "__main__":
    unittest.main()
