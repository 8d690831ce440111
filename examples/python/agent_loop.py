"""An agent loop with long-term memory: the Python client and any OpenAI-compatible chat API.

    MEMORY_URL=http://localhost:3000 MEMORY_KEY=mem_live_... LLM_KEY=sk-... \\
      python3 examples/python/agent_loop.py "Remember that I am allergic to peanuts."

LLM_URL (default https://api.openai.com/v1) and LLM_MODEL (default gpt-4.1-mini) pick the model;
MEMORY_SESSION names the conversation. Standard library only. test/clients/examples.test.ts runs it
against a started endpoint and a scripted chat server, so it keeps working.
"""

from __future__ import annotations

import json
import os
import re
import sys
import urllib.request
from pathlib import Path
from typing import Any, Dict, List, Optional

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients" / "python" / "src"))  # or: pip install ./clients/python

from agent_memory import MemoryApiError, MemoryClient  # noqa: E402


def asked_to_forget(text: str) -> bool:
    """Your program's judgement, not the model's (a stand-in: use your own check)."""
    return re.search(r"\b(forget|delete)\b", text, re.IGNORECASE) is not None


def chat(url: str, key: Optional[str], model: str, messages: List[Dict[str, Any]], tools: List[Dict[str, Any]]) -> Dict[str, Any]:
    headers = {"content-type": "application/json"}
    if key:
        headers["authorization"] = f"Bearer {key}"
    body = json.dumps({"model": model, "messages": messages, "tools": tools}).encode()
    with urllib.request.urlopen(urllib.request.Request(f"{url}/chat/completions", data=body, headers=headers, method="POST"), timeout=120) as response:
        return json.loads(response.read())["choices"][0]["message"]


def run_turn(memory: MemoryClient, user_text: str, *, llm_url: str, llm_key: Optional[str], llm_model: str) -> str:
    """One turn: capture the message, recall into the prompt, let the model use the memory tools."""
    turn = {"forgetIntent": asked_to_forget(user_text)}
    memory.append_messages([{"role": "user", "content": user_text}])
    tools = [tool["openai"] for tool in memory.list_tools()["tools"]]
    context = memory.context({"queryText": user_text})
    messages: List[Dict[str, Any]] = [
        {"role": "system", "content": "You are a helpful assistant with long-term memory.\n\n" + context["prompt"]},
        {"role": "user", "content": user_text},
    ]
    for _ in range(8):
        reply = chat(llm_url, llm_key, llm_model, messages, tools)
        messages.append(reply)
        if not reply.get("tool_calls"):
            return reply.get("content") or ""
        for call in reply["tool_calls"]:
            try:
                result: Any = memory.call(call["function"]["name"], json.loads(call["function"]["arguments"]), turn={**turn, "toolCallId": call["id"]})
            except MemoryApiError as error:
                result = error.to_tool_result()
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": json.dumps(result)})
    return "I could not finish this turn."


if __name__ == "__main__":
    text = " ".join(sys.argv[1:])
    if not text:
        sys.exit('Say something: python3 examples/python/agent_loop.py "Remember that I am allergic to peanuts."')
    client = MemoryClient(os.environ.get("MEMORY_URL", "http://localhost:3000"), os.environ.get("MEMORY_KEY", ""), session_id=os.environ.get("MEMORY_SESSION", "example-chat"))
    print(run_turn(client, text, llm_url=os.environ.get("LLM_URL", "https://api.openai.com/v1"), llm_key=os.environ.get("LLM_KEY"), llm_model=os.environ.get("LLM_MODEL", "gpt-4.1-mini")))
