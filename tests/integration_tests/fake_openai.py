"""A scripted OpenAI-compatible chat endpoint on 127.0.0.1, for a server run on the LLM engine.

It answers ``POST /v1/chat/completions`` by the tool it is asked to call (the structured output
the engine wants), by the JSON object it is asked for in JSON mode, or else with a short cited
report. Replies are streamed as server-sent events, as the OpenAI API streams them, so that the
report's tokens reach the LangGraph server's ``messages`` stream. Only loopback is used;
nothing leaves the machine.

Fault mode (``scripted_openai(faults=0.3)``): that share of the structured replies is
malformed, each of the :data:`FAULTS` kinds in turn, the way real endpoints misbehave.

Outages (``scripted_openai(outages={"word"})``): a request for the report (streamed prose, no
tool and no JSON asked for) whose prompt mentions one of the words is answered with HTTP 503, as
an overloaded endpoint answers, so a run fails mid-way, after its plan and research.

Held replies (``scripted_openai(holds=...)``): a request that mentions a word held in
:class:`Holds` is answered only once the word is let go, so a run stays in flight for as long
as a test needs, however slow the machine.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
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
    if tool == "EvidencePicks":
        return {"quotes": _first_sentences(prompt)}
    if tool == "SearchQueries":
        return {"queries": ["Hornsdale Power Reserve", "LFP NMC grid storage"]}
    if tool == "StepNotes":
        return {"notes": "Found it [E1].", "sufficient": True}
    if tool == "Reflection":
        return {"decision": "complete", "reasoning": "scripted"}
    if tool == "VerdictBatch":
        ids = list(dict.fromkeys(re.findall(r"claim_id: (cl_[0-9a-f]+)", prompt)))
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
    if tool == "ReportAssessment":
        return {"summary": "Scripted summary [E1].", "limitations": []}
    raise ValueError(f"the scripted model has no answer for tool {tool!r}")


_PASSAGE = re.compile(r"^\[(P\d+)\] \(section: .*\)\n((?:> .*\n?)+)", re.M)
_NUMBERED = re.compile(r"^> \[(s\d+)\] .+?[.!?]$", re.M)
"""A numbered line of a passage that is a whole sentence."""


def _first_sentences(prompt: str) -> list[dict[str, Any]]:
    """The first sentence of each passage shown, named by its number: what a model would pick."""
    picks: list[dict[str, Any]] = []
    for key, block in _PASSAGE.findall(prompt):
        numbered = _NUMBERED.search(block)
        if numbered:
            picks.append({"passage": key, "sentences": numbered.group(1), "relevance": 0.8})
    return picks


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "scripted",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


FAULTS = (
    "wrong_ids",
    "truncated",
    "refusal",
    "empty",
    "text",
    "invalid_json",
    "missing_fields",
    "extra_fields",
)
"""The kinds of malformed reply fault mode sends, in turn."""


@dataclass
class Faults:
    """Which replies fault mode spoils: ``share`` of the structured ones, spread evenly."""

    share: float = 0.0
    offset: int = 0
    """The kind (index in :data:`FAULTS`) the first malformed reply is."""
    structured: int = 0
    """Structured replies sent so far."""
    sent: list[str] = field(default_factory=list)
    """The kind of each malformed reply sent."""

    def next_kind(self) -> str | None:
        """The kind of malformed reply to send now, or ``None`` for a good one."""
        n, self.structured = self.structured, self.structured + 1
        if int((n + 1) * self.share) <= int(n * self.share):
            return None
        self.sent.append(FAULTS[(self.offset + len(self.sent)) % len(FAULTS)])
        return self.sent[-1]


def _spoiled(kind: str, name: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """A malformed delta of ``kind`` for a call to ``name``, and its finish reason."""
    text = json.dumps(arguments)
    call = {"index": 0, "id": "call_scripted", "type": "function"}
    if kind == "wrong_ids" and name == "VerdictBatch":
        verdicts = [{**v, "claim_id": f"claim_{i}"} for i, v in enumerate(arguments["verdicts"])]
        text = json.dumps({"verdicts": verdicts})
    elif kind == "truncated":
        return {
            "tool_calls": [{**call, "function": {"name": name, "arguments": text[:9]}}]
        }, "length"
    elif kind == "refusal":
        return {"content": None, "refusal": "I can't help with that."}, "stop"
    elif kind == "empty":
        return {"content": ""}, "stop"
    elif kind == "text":
        return {"content": "Let me think about this in prose instead."}, "stop"
    elif kind == "invalid_json":
        text = text.replace('"', "'", 2)
    elif kind == "missing_fields":
        text = "{}"
    elif kind == "extra_fields":
        return _call(name, {**arguments, "note": "extra"}), "tool_calls"
    return {"tool_calls": [{**call, "function": {"name": name, "arguments": text}}]}, "tool_calls"


class Holds:
    """Words whose requests wait: a request mentioning a held word is answered once it is let go."""

    def __init__(self, timeout: float = 120.0) -> None:
        self._held: set[str] = set()
        self._changed = threading.Condition()
        self._timeout = timeout
        """The longest a request waits (a test that never lets go does not hang the server)."""

    @contextmanager
    def hold(self, word: str) -> Iterator[None]:
        """Hold the requests that mention ``word`` until the block is left."""
        with self._changed:
            self._held.add(word)
        try:
            yield
        finally:
            with self._changed:
                self._held.discard(word)
                self._changed.notify_all()

    def wait(self, text: str) -> None:
        """Return once no word ``text`` mentions is held (or after the timeout)."""
        with self._changed:
            self._changed.wait_for(
                lambda: not any(word in text for word in self._held), self._timeout
            )


def _call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    function = {"name": name, "arguments": json.dumps(arguments)}
    return {
        "tool_calls": [
            {"index": 0, "id": "call_scripted", "type": "function", "function": function}
        ]
    }


def _prompt(body: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content") or "") for m in body["messages"] if m["role"] == "user")


def _events(body: dict[str, Any], faults: Faults) -> Iterator[dict[str, Any]]:
    tools = body.get("tools") or []
    prompt = _prompt(body)
    json_mode = re.search(r"one JSON object for (\w+)", str(body["messages"][-1].get("content")))
    name = tools[0]["function"]["name"] if tools else json_mode.group(1) if json_mode else None
    if name is not None:
        arguments = _arguments(name, prompt)
        kind = faults.next_kind()
        if kind is not None:
            delta, finish = _spoiled(kind, name, arguments)
        elif tools:
            delta, finish = _call(name, arguments), "tool_calls"
        else:
            delta, finish = {"content": json.dumps(arguments)}, "stop"
        yield _chunk({"role": "assistant", "content": None, **delta})
        yield _chunk({}, finish)
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
        self.server.holds.wait(json.dumps(body["messages"]))  # type: ignore[attr-defined]
        time.sleep(self.server.delay)  # type: ignore[attr-defined]
        if _out_of_service(body, self.server.outages):  # type: ignore[attr-defined]
            self._unavailable()
            return
        with self.server.lock:  # type: ignore[attr-defined]
            events = list(_events(body, self.server.faults))  # type: ignore[attr-defined]
        try:
            self._reply(body, events)
        except (BrokenPipeError, ConnectionResetError):  # the client hung up (cancelled, killed)
            return

    def _unavailable(self) -> None:
        error = {"message": "The scripted model is overloaded", "type": "server_error"}
        answer = json.dumps({"error": error}).encode()
        self.send_response(503)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def _reply(self, body: dict[str, Any], events: list[dict[str, Any]]) -> None:
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


def _out_of_service(body: dict[str, Any], outages: frozenset[str]) -> bool:
    """Whether ``body`` asks for the report and mentions a word of ``outages``."""
    if not outages or body.get("tools"):
        return False
    if re.search(r"one JSON object for \w+", str(body["messages"][-1].get("content"))):
        return False
    prompt = _prompt(body)
    return any(word in prompt for word in outages)


def _completion(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The streamed events as one (non-streamed) completion."""
    message: dict[str, Any] = {"role": "assistant", "content": None}
    finish = "stop"
    for event in events[:-1]:
        choice = event["choices"][0]
        delta = choice["delta"]
        if delta.get("content"):
            message["content"] = (message["content"] or "") + delta["content"]
        if delta.get("refusal"):
            message["refusal"] = delta["refusal"]
        if delta.get("tool_calls"):
            message["tool_calls"] = [
                {k: v for k, v in call.items() if k != "index"} for call in delta["tool_calls"]
            ]
        finish = choice["finish_reason"] or finish
    choice = {"index": 0, "message": message, "finish_reason": finish}
    return {**events[-1], "object": "chat.completion", "choices": [choice]}


@contextmanager
def scripted_openai(
    faults: float = 0.0,
    delay: float = 0.0,
    holds: Holds | None = None,
    outages: frozenset[str] = frozenset(),
) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """Serve the scripted endpoint; yield its base URL and the list of requests it received.

    Args:
        faults: The share of structured replies that are malformed (see :data:`FAULTS`).
        delay: Seconds each reply waits, as a slow model would (runs then stay in flight).
        holds: The words whose requests wait until they are let go (none by default).
        outages: The words whose report requests are answered with HTTP 503 (none by default).
    """
    with fault_openai(faults, delay=delay, holds=holds, outages=outages) as (base_url, requests, _):
        yield base_url, requests


@contextmanager
def fault_openai(
    share: float,
    offset: int = 0,
    delay: float = 0.0,
    holds: Holds | None = None,
    outages: frozenset[str] = frozenset(),
) -> Iterator[tuple[str, list[dict[str, Any]], Faults]]:
    """:func:`scripted_openai`, yielding also the :class:`Faults` that says what was spoiled.

    Args:
        share: The share of structured replies that are malformed.
        offset: The kind of the first malformed reply (an index in :data:`FAULTS`).
        delay: Seconds each reply waits.
        holds: The words whose requests wait until they are let go (none by default).
        outages: The words whose report requests are answered with HTTP 503 (none by default).
    """
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.requests = []  # type: ignore[attr-defined]
    server.faults = Faults(share, offset)  # type: ignore[attr-defined]
    server.lock = threading.Lock()  # type: ignore[attr-defined]
    server.delay = delay  # type: ignore[attr-defined]
    server.holds = holds or Holds()  # type: ignore[attr-defined]
    server.outages = outages  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        yield base_url, server.requests, server.faults  # type: ignore[attr-defined]
    finally:
        server.shutdown()
        server.server_close()
