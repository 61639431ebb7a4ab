"""A scripted OpenAI-compatible chat endpoint on 127.0.0.1, for a server run on the LLM engine.

It answers ``POST /v1/chat/completions`` by the tool it is asked to call (the structured output
the engine wants) or, without tools, with a short cited report. Replies are streamed as
server-sent events, as the OpenAI API streams them, so that the report's tokens reach the
LangGraph server's ``messages`` stream. Only loopback is used; nothing leaves the machine.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

REPORT = (
    "## Summary\n\nHornsdale Power Reserve is a grid battery in South Australia [E1].\n\n"
    "## Chemistry\n\nGrid batteries mostly use lithium iron phosphate cells [E2].\n"
)
"""The report the scripted model writes, streamed in small pieces."""

TITLE = "Hornsdale and grid battery chemistry"
"""The chat title the scripted model writes."""


def _arguments(tool: str, prompt: str) -> dict[str, Any]:
    if tool == "ChatTitle":
        return {"title": TITLE}
    if tool == "ClarifyDecision":
        return {"needs_clarification": False, "question": ""}
    if tool == "ResearchPlan":
        return {
            "brief": "Describe Hornsdale Power Reserve and the chemistry of grid batteries.",
            "complexity": "simple",
            "steps": [
                {"title": "Hornsdale Power Reserve", "intent": "size and cost"},
                {"title": "LFP versus NMC for grid storage", "intent": "chemistry"},
            ],
        }
    if tool == "SearchQueries":
        return {"queries": ["Hornsdale Power Reserve", "LFP NMC grid storage"]}
    if tool == "StepNotes":
        return {"notes": "Found it [E1].", "sufficient": True}
    if tool == "Reflection":
        return {"decision": "complete", "reasoning": "scripted"}
    if tool == "VerdictBatch":
        ids = list(dict.fromkeys(re.findall(r"cl_[0-9a-f]+", prompt)))
        return {
            "verdicts": [
                {
                    "claim_id": claim_id,
                    "verdict": "SUPPORTED",
                    "confidence": 0.9,
                    "reasoning": "scripted",
                    "evidence_key": "E1",
                }
                for claim_id in ids
            ]
        }
    if tool == "Rewrite":
        return {"text": "", "evidence_key": None}
    raise ValueError(f"the scripted model has no answer for tool {tool!r}")


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "scripted",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _events(body: dict[str, Any]) -> Iterator[dict[str, Any]]:
    tools = body.get("tools") or []
    prompt = str(body["messages"][-1].get("content", ""))
    if tools:
        name = tools[0]["function"]["name"]
        call = {
            "index": 0,
            "id": "call_scripted",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(_arguments(name, prompt))},
        }
        yield _chunk({"role": "assistant", "content": None, "tool_calls": [call]})
        yield _chunk({}, "tool_calls")
    else:
        yield _chunk({"role": "assistant", "content": ""})
        for start in range(0, len(REPORT), 12):
            yield _chunk({"content": REPORT[start : start + 12]})
        yield _chunk({}, "stop")
    usage = {"prompt_tokens": 50, "completion_tokens": 20, "total_tokens": 70}
    yield {**_chunk({}), "choices": [], "usage": usage}


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        return

    def do_POST(self) -> None:
        if not self.path.endswith("/chat/completions"):
            self.send_error(404)
            return
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append(body)  # type: ignore[attr-defined]
        events = list(_events(body))
        self.send_response(200)
        if not body.get("stream"):
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(json.dumps(_completion(events)).encode())
            return
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        for event in events:
            self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")


def _completion(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The streamed events as one (non-streamed) completion."""
    message: dict[str, Any] = {"role": "assistant", "content": None}
    finish = "stop"
    for event in events[:-1]:
        choice = event["choices"][0]
        delta = choice["delta"]
        if delta.get("content"):
            message["content"] = (message["content"] or "") + delta["content"]
        if delta.get("tool_calls"):
            message["tool_calls"] = [
                {k: v for k, v in call.items() if k != "index"} for call in delta["tool_calls"]
            ]
        finish = choice["finish_reason"] or finish
    choice = {"index": 0, "message": message, "finish_reason": finish}
    return {**events[-1], "object": "chat.completion", "choices": [choice]}


@contextmanager
def scripted_openai() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """Serve the scripted endpoint; yield its base URL and the list of requests it received."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.requests = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", server.requests  # type: ignore[attr-defined]
    finally:
        server.shutdown()
        server.server_close()
