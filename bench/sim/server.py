"""The simulation over HTTP: an OpenAI-compatible endpoint and a Tavily-like search endpoint.

Both agents reach the same simulated model this way through their ordinary configuration
(a model name and ``OPENAI_BASE_URL``), so their requests are serialized by the same client
library and counted by the same code. ``POST /v1/chat/completions`` answers plain and streamed
(server-sent events, with usage) requests; ``POST /tavily/search`` answers as Tavily's search
API does, page text included. Every call is recorded, keyed by the model name (which carries
the agent, the scenario and the run; see :meth:`~bench.sim.responder.Scenario.model_name`).
A chat call takes as long as the server's latency profile says (:mod:`bench.sim.profiles`):
the first token after a time that grows with the prompt, then the completion at the decode
rate, streamed chunk by chunk when the client asked for a stream (a plain request gets its
answer when the last token is written). Each call records when its first token came.

It serves on 127.0.0.1 only, from a process of its own (``python -m bench.sim.server``), so
that no agent measured shares an interpreter with it; ``GET /calls?model=…`` returns the calls
recorded.
"""

from __future__ import annotations

import asyncio
import json
import math
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request as HttpRequest
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from bench.sim import text, tokens
from bench.sim.profiles import CHUNK_TOKENS, FIXED, Profile
from bench.sim.responder import Reply, Request, Scenario, respond
from deep_research.server import free_port


@dataclass
class ServedCall:
    """One call the server answered."""

    model: str
    kind: str
    stage: str
    call: str
    prompt_tokens: int
    completion_tokens: int
    start: float
    end: float
    first: float = 0.0
    """When the first token of the completion was written (``time.perf_counter``, the
    system's monotonic clock: comparable with the agents' processes on Linux)."""
    cost: float = 0.0
    """The seconds the profile gave the call."""


@dataclass(frozen=True)
class Schedule:
    """When a streamed reply's chunks are due: spread over its decoding time."""

    first: float
    """``time.perf_counter`` of the first token."""
    decoding: float
    """Seconds from the first token to the last."""
    pieces: int
    """Chunks the text is sent in."""


@dataclass
class SimServer:
    """The HTTP simulation; ``calls`` grows as requests are answered."""

    profile: Profile = FIXED
    search_latency: float = 0.0
    calls: list[ServedCall] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    async def chat(self, http: HttpRequest) -> Response:
        body = await http.json()
        start = time.perf_counter()
        request = Request(
            messages=body.get("messages", []),
            tools=body.get("tools"),
            response_format=body.get("response_format"),
        )
        model = str(body.get("model", ""))
        _, scenario = Scenario.from_model_name(model)
        try:
            reply = respond(request, scenario)
        except ValueError as exc:
            self.errors.append(f"{model}: {exc}")
            return JSONResponse({"error": {"message": str(exc)}}, status_code=400)
        prompt = tokens.prompt_tokens(request.messages, request.tools, request.response_format)
        calls = [{"function": c} for c in reply.tool_calls]
        completion = tokens.completion_tokens(reply.content, calls)
        await _sleep_until(start + self.profile.first_token(prompt))
        decoding = self.profile.decoding(completion)
        served = ServedCall(model, "model", reply.stage, reply.call, prompt, completion, start, 0.0)
        served.first = time.perf_counter()
        served.cost = self.profile.first_token(prompt) + decoding
        usage = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }
        if body.get("stream"):
            include = bool((body.get("stream_options") or {}).get("include_usage"))
            pieces = math.ceil(completion / CHUNK_TOKENS) if self.profile.decode else 8
            schedule = Schedule(served.first, decoding, max(1, pieces))
            return StreamingResponse(
                self._recorded_stream(
                    served, completion_events(model, reply, usage if include else None, schedule)
                ),
                media_type="text/event-stream",
            )
        await _sleep_until(served.first + decoding)
        served.end = time.perf_counter()
        self.calls.append(served)
        return JSONResponse(completion_body(model, reply, usage))

    async def _recorded_stream(
        self, served: ServedCall, events: AsyncIterator[bytes]
    ) -> AsyncIterator[bytes]:
        """``events``, the call recorded once the last is sent."""
        async for event in events:
            yield event
        served.end = time.perf_counter()
        self.calls.append(served)

    async def search(self, http: HttpRequest) -> Response:
        body = await http.json()
        start = time.perf_counter()
        query = str(body.get("query", ""))
        k = int(body.get("max_results") or 5)
        await asyncio.sleep(self.search_latency)
        results = []
        for i, url in enumerate(text.result_urls(query, k)):
            page = text.page(url)
            result: dict[str, Any] = {"title": page.title, "url": url}
            result["content"] = text.snippet(url)
            result |= {"score": round(1.0 - i / 100, 3)}
            if body.get("include_raw_content"):
                result["raw_content"] = page.text
            results.append(result)
        model = str(body.get("run", "search"))
        served = ServedCall(model, "search", "research", "search", 0, 0, start, time.perf_counter())
        served.cost = self.search_latency
        self.calls.append(served)
        return JSONResponse({"query": query, "results": results, "response_time": 0.0})

    async def recorded(self, http: HttpRequest) -> Response:
        model = http.query_params.get("model")
        calls = [asdict(c) for c in self.calls if model is None or c.model == model]
        return JSONResponse({"calls": calls, "errors": self.errors})

    async def ok(self, http: HttpRequest) -> Response:
        return JSONResponse({"ok": True})

    def app(self) -> Starlette:
        """The ASGI application."""
        return Starlette(
            routes=[
                Route("/v1/chat/completions", self.chat, methods=["POST"]),
                Route("/tavily/search", self.search, methods=["POST"]),
                Route("/calls", self.recorded, methods=["GET"]),
                Route("/ok", self.ok, methods=["GET"]),
            ]
        )


def _message(reply: Reply) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content or None}
    if reply.tool_calls:
        message["tool_calls"] = [
            {
                "id": c["id"],
                "type": "function",
                "function": {"name": c["name"], "arguments": c["arguments"]},
            }
            for c in reply.tool_calls
        ]
    return message


def completion_body(model: str, reply: Reply, usage: dict[str, int]) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": _message(reply),
                "finish_reason": "tool_calls" if reply.tool_calls else "stop",
            }
        ],
        "usage": usage,
    }


def split_text(text: str, pieces: int) -> list[str]:
    """``text`` in up to ``pieces`` consecutive parts of about equal length (none empty)."""
    if not text:
        return []
    step = max(1, math.ceil(len(text) / max(1, pieces)))
    return [text[i : i + step] for i in range(0, len(text), step)]


def _deltas(reply: Reply, pieces: int) -> list[dict[str, Any]]:
    """The streamed deltas of a reply: tool calls' arguments, then its text, in pieces.

    The pieces are shared among the arguments and the text by their length. A tool call's first
    delta names it and carries the first piece of its arguments.
    """
    texts = [c["arguments"] for c in reply.tool_calls] + [reply.content]
    total = sum(len(t) for t in texts) or 1
    deltas: list[dict[str, Any]] = []
    for i, call in enumerate(reply.tool_calls):
        parts = split_text(call["arguments"], round(pieces * len(call["arguments"]) / total))
        for n, part in enumerate(parts or [""]):
            head = {"id": call["id"], "type": "function"} if n == 0 else {}
            function = {"name": call["name"]} if n == 0 else {}
            entry = {"index": i, **head, "function": {**function, "arguments": part}}
            deltas.append({"tool_calls": [entry]})
    for part in split_text(reply.content, round(pieces * len(reply.content) / total)):
        deltas.append({"content": part})
    return deltas


async def _sleep_until(moment: float) -> None:
    """Sleep until ``moment`` (``time.perf_counter``), at once if it has passed."""
    await asyncio.sleep(max(0.0, moment - time.perf_counter()))


async def completion_events(
    model: str, reply: Reply, usage: dict[str, int] | None, schedule: Schedule | None = None
) -> AsyncIterator[bytes]:
    """The server-sent events of a streamed reply, each chunk when ``schedule`` has it due."""
    base: dict[str, Any] = {"id": f"chatcmpl-{uuid.uuid4().hex[:12]}"}
    base["object"] = "chat.completion.chunk"
    base |= {"created": int(time.time()), "model": model}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return f"data: {json.dumps(base | {'choices': [choice]})}\n\n".encode()

    yield chunk({"role": "assistant", "content": ""})
    deltas = _deltas(reply, schedule.pieces if schedule else 8)
    for n, delta in enumerate(deltas, 1):
        if schedule is not None:
            await _sleep_until(schedule.first + schedule.decoding * n / len(deltas))
        yield chunk(delta)
    yield chunk({}, "tool_calls" if reply.tool_calls else "stop")
    if usage is not None:
        yield f"data: {json.dumps(base | {'choices': [], 'usage': usage})}\n\n".encode()
    yield b"data: [DONE]\n\n"


@dataclass(frozen=True)
class SimEndpoint:
    """A running simulation server, seen from the benchmark."""

    port: int

    @property
    def url(self) -> str:
        """The server's root URL."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible base URL (``…/v1``)."""
        return f"{self.url}/v1"

    @property
    def search_url(self) -> str:
        """The Tavily-like search endpoint."""
        return f"{self.url}/tavily/search"

    def calls_of(self, model: str) -> list[ServedCall]:
        """The calls made with one model name (one run of one agent)."""
        with httpx.Client(trust_env=False, timeout=30) as http:
            data = http.get(f"{self.url}/calls", params={"model": model}).json()
        return [ServedCall(**c) for c in data["calls"]]

    def errors(self) -> list[str]:
        """Requests the simulation could not answer."""
        with httpx.Client(trust_env=False, timeout=30) as http:
            errors: list[str] = http.get(f"{self.url}/calls", params={"model": "-"}).json()[
                "errors"
            ]
            return errors


@contextmanager
def serve(model_profile: Profile = FIXED, search_latency: float = 0.0) -> Iterator[SimEndpoint]:
    """Serve the simulation on 127.0.0.1 from a child process for the duration.

    Its model calls take the time ``model_profile`` gives them.
    """
    port = free_port()
    command = [sys.executable, "-m", "bench.sim.server", str(port)]
    command += [json.dumps(asdict(model_profile)), str(search_latency)]
    root = Path(__file__).resolve().parents[2]
    process = subprocess.Popen(command, cwd=root, stdin=subprocess.DEVNULL)
    endpoint = SimEndpoint(port)
    try:
        deadline = time.monotonic() + 30
        with httpx.Client(trust_env=False, timeout=2) as http:
            while True:
                if process.poll() is not None:
                    raise RuntimeError(f"the simulation server exited with {process.returncode}")
                try:
                    if http.get(f"{endpoint.url}/ok").status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError("the simulation server did not start in 30 s")
                time.sleep(0.05)
        yield endpoint
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def main() -> None:
    """``python -m bench.sim.server PORT PROFILE SEARCH_LATENCY`` (the profile as JSON)."""
    port, search_latency = int(sys.argv[1]), float(sys.argv[3])
    sim = SimServer(profile=Profile(**json.loads(sys.argv[2])), search_latency=search_latency)
    uvicorn.run(sim.app(), host="127.0.0.1", port=port, log_level="warning", lifespan="off")


if __name__ == "__main__":
    main()
