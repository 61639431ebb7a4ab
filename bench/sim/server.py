"""The simulation over HTTP: an OpenAI-compatible endpoint and a Tavily-like search endpoint.

Both agents reach the same simulated model this way through their ordinary configuration
(a model name and ``OPENAI_BASE_URL``), so their requests are serialized by the same client
library and counted by the same code. ``POST /v1/chat/completions`` answers plain and streamed
(server-sent events, with usage) requests; ``POST /tavily/search`` answers as Tavily's search
API does, page text included. Every call is recorded, keyed by the model name (which carries
the agent, the scenario and the run; see :meth:`~bench.sim.responder.Scenario.model_name`).

It serves on 127.0.0.1 only, from a process of its own (``python -m bench.sim.server``), so
that no agent measured shares an interpreter with it; ``GET /calls?model=…`` returns the calls
recorded.
"""

from __future__ import annotations

import asyncio
import json
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


@dataclass
class SimServer:
    """The HTTP simulation; ``calls`` grows as requests are answered."""

    model_latency: float = 0.0
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
        await asyncio.sleep(self.model_latency)
        self.calls.append(
            ServedCall(
                model,
                "model",
                reply.stage,
                reply.call,
                prompt,
                completion,
                start,
                time.perf_counter(),
            )
        )
        usage = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }
        if body.get("stream"):
            include = bool((body.get("stream_options") or {}).get("include_usage"))
            return StreamingResponse(
                completion_events(model, reply, usage if include else None),
                media_type="text/event-stream",
            )
        return JSONResponse(completion_body(model, reply, usage))

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
        self.calls.append(
            ServedCall(model, "search", "research", "search", 0, 0, start, time.perf_counter())
        )
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


async def completion_events(
    model: str, reply: Reply, usage: dict[str, int] | None
) -> AsyncIterator[bytes]:
    base: dict[str, Any] = {"id": f"chatcmpl-{uuid.uuid4().hex[:12]}"}
    base["object"] = "chat.completion.chunk"
    base |= {"created": int(time.time()), "model": model}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return f"data: {json.dumps(base | {'choices': [choice]})}\n\n".encode()

    yield chunk({"role": "assistant", "content": ""})
    for i, call in enumerate(reply.tool_calls):
        function = {"name": call["name"], "arguments": call["arguments"]}
        yield chunk(
            {
                "tool_calls": [
                    {"index": i, "id": call["id"], "type": "function", "function": function}
                ]
            }
        )
    content = reply.content
    step = max(1, len(content) // 8)
    for i in range(0, len(content), step):
        yield chunk({"content": content[i : i + step]})
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
def serve(model_latency: float = 0.0, search_latency: float = 0.0) -> Iterator[SimEndpoint]:
    """Serve the simulation on 127.0.0.1 from a child process for the duration."""
    port = free_port()
    command = [sys.executable, "-m", "bench.sim.server", str(port)]
    command += [str(model_latency), str(search_latency)]
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
    """``python -m bench.sim.server PORT MODEL_LATENCY SEARCH_LATENCY``."""
    port, model_latency, search_latency = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
    sim = SimServer(model_latency=model_latency, search_latency=search_latency)
    uvicorn.run(sim.app(), host="127.0.0.1", port=port, log_level="warning", lifespan="off")


if __name__ == "__main__":
    main()
