"""OpenAI-compatible and Tavily-like stand-ins on 127.0.0.1 for the DRB harness's tests.

One server, in a thread, plays three remote ends:

* ``POST /v1/chat/completions``: the model and the judge. Requests with tools are our engine's
  (answered by the DRB simulation of :mod:`bench.drb.model`); requests that are one of DRB's
  prompts are answered by the stand-in judge of :mod:`bench.drb.standin`, in DRB's formats.
  Plain and streamed replies, with usage counted as the simulation counts it.
* ``POST /search``: Tavily's search API over the pages of the chosen tasks (each task's rubric
  text, ranked by BM25), page text included, at ``http://127.0.0.1:<port>/page/<task>/<n>``.
* ``GET /page/<task>/<n>``: those pages as HTML, for FACT to fetch.

Every request is recorded (``chat`` calls with their tokens, ``pages`` fetched).
"""

from __future__ import annotations

import html
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request as HttpRequest
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from bench.drb import model as drb_model
from bench.drb.data import Task
from bench.drb.prompts import DrbPrompts
from bench.drb.standin import answer
from bench.sim import tokens
from bench.sim.requests import Reply, Request
from bench.sim.server import completion_body, completion_events
from deep_research.text.words import BM25, content_tokens


@dataclass
class Call:
    """One chat call answered."""

    model: str
    kind: str
    """``engine`` (our graph's request) or ``drb`` (one of DRB's prompts)."""
    prompt_tokens: int
    completion_tokens: int


@dataclass
class Standin:
    """The stand-in remote ends for ``tasks``."""

    tasks: list[Task]
    prompts: DrbPrompts
    port: int = 0
    calls: list[Call] = field(default_factory=list)
    pages_fetched: list[str] = field(default_factory=list)
    searches: list[str] = field(default_factory=list)
    drb_prompts: list[tuple[str, str]] = field(default_factory=list)
    """Every DRB prompt received: the model named, the prompt as sent."""

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def pages(self) -> list[tuple[str, str, str]]:
        """``(path, title, text)`` of every page of every task."""
        return [
            (f"/page/{task.id}/{i + 1}", c.criterion, f"{c.criterion}\n\n{c.explanation}")
            for task in self.tasks
            for i, c in enumerate(task.criteria)
        ]

    async def chat(self, http: HttpRequest) -> Response:
        body = await http.json()
        request = Request(messages=body.get("messages", []), tools=body.get("tools"))
        drb = None if request.tools else answer(self.prompts, request.content("user"))
        if drb is not None:
            self.drb_prompts.append((str(body.get("model", "")), request.content("user")))
            reply, kind = Reply(stage="judge", call="drb", content=drb), "drb"
        else:
            reply, kind = drb_model.respond(request), "engine"
        prompt = tokens.prompt_tokens(request.messages, request.tools)
        completion = tokens.completion_tokens(
            reply.content, [{"function": c} for c in reply.tool_calls]
        )
        name = str(body.get("model", ""))
        self.calls.append(Call(name, kind, prompt, completion))
        usage = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }
        if body.get("stream"):
            return StreamingResponse(
                completion_events(name, reply, usage), media_type="text/event-stream"
            )
        return JSONResponse(completion_body(name, reply, usage))

    async def search(self, http: HttpRequest) -> Response:
        body = await http.json()
        query = str(body.get("query", ""))
        self.searches.append(query)
        pages = self.pages()
        index = BM25([content_tokens(f"{title} {text}") for _, title, text in pages])
        terms = content_tokens(query)
        ranked = sorted(
            ((index.score(terms, i), i) for i in range(len(pages))), key=lambda p: (-p[0], p[1])
        )
        results: list[dict[str, Any]] = []
        for score, i in ranked[: int(body.get("max_results") or 5)]:
            if score <= 0:
                continue
            path, title, text = pages[i]
            results.append(
                {
                    "url": f"{self.base_url}{path}",
                    "title": title,
                    "content": text[:200],
                    "score": round(score, 4),
                    "raw_content": text if body.get("include_raw_content") else None,
                }
            )
        return JSONResponse({"query": query, "results": results, "response_time": 0.01})

    async def page(self, http: HttpRequest) -> Response:
        path = http.url.path
        self.pages_fetched.append(path)
        for page_path, title, text in self.pages():
            if page_path == path:
                paragraphs = "".join(f"<p>{html.escape(p)}</p>" for p in text.split("\n\n"))
                return HTMLResponse(
                    f"<html><head><title>{html.escape(title)}</title></head>"
                    f"<body><article>{paragraphs}</article></body></html>"
                )
        return HTMLResponse("<html><body><p>page not found</p></body></html>", status_code=404)

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/v1/chat/completions", self.chat, methods=["POST"]),
                Route("/search", self.search, methods=["POST"]),
                Route("/page/{task}/{n}", self.page, methods=["GET"]),
            ]
        )


@contextmanager
def serve(tasks: list[Task], prompts: DrbPrompts) -> Iterator[Standin]:
    """Serve the stand-ins on a free port of 127.0.0.1 for the duration."""
    standin = Standin(tasks, prompts)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    standin.port = sock.getsockname()[1]
    config = uvicorn.Config(standin.app(), log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "the stand-in server did not start"
        time.sleep(0.02)
    try:
        yield standin
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
