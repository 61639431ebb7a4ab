r"""Request bodies, bounded, and readable as JSON before any route sees them.

:class:`RequestBodies` is an ASGI middleware of the custom app, which the LangGraph server
places around its own routes (as it does the CORS policy), so it sees every request:

* A body over :data:`MAX_REQUEST_BYTES` is refused with 413 before any handler reads it,
  whether it declares its length or streams in chunks (a question is at most 4,000
  characters and metadata 64 KiB: no request needs more).
* A body this guard cannot read is refused before the server sees it: JSON nested over
  :data:`~deep_research.sources.bounded_json.MAX_JSON_DEPTH` levels (422), or not JSON at all
  (400), or JSON whose text holds a lone surrogate (an escaped ``\ud800``: no Unicode text,
  which Aegra's database driver fails on with a 500 and a reset connection; 422). Every route
  of the server (the LangGraph API, ours, ``/mcp``) takes JSON, and the runtime's own parser
  reads deeper than the guard: a body the guard let through unread would skip the checks
  below (and Aegra's, :mod:`deep_research.server.aegra`), and a very deep one ends in
  ``RecursionError``, a 500.
* With auth on, a request that picks a new thread's id (``POST /threads`` with a
  ``thread_id``) is refused with 422 whether the id is taken or not: the server would answer
  "already exists" for another user's thread, telling the caller that it does. The auth
  handler of thread creation cannot do this: the server has made up an id by then.

``/mcp`` is ours (:mod:`deep_research.server.mcp_endpoint`), behind this guard like every
route; it answers a refused tool run itself (a tool result with ``isError``).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import httpx

from deep_research.server.inputs import CALLER_THREAD_ID, picked_thread_id
from deep_research.server.tokens import current_verifier
from deep_research.sources.bounded_json import JsonLimitError, loads_bounded

MAX_REQUEST_BYTES = 1024 * 1024
"""Largest request body accepted, in bytes."""

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


def replaying(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` giving the ``body`` read already, then what ``receive`` gives (the end)."""
    given = False

    async def replay() -> Message:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


async def answer(send: Send, status: int, payload: dict[str, Any]) -> None:
    """Answer with ``payload`` as JSON and ``status``."""
    body = json.dumps(payload).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _declared_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def refusal_detail(error: httpx.HTTPStatusError) -> str:
    """The reason a refused request gives (its JSON ``detail``), or its status."""
    try:
        detail = error.response.json().get("detail")
    except (ValueError, AttributeError, httpx.ResponseNotRead):
        detail = None
    return str(detail or f"HTTP {error.response.status_code}")


def unreadable(body: bytes) -> tuple[int, str] | None:
    """Why a request's ``body`` cannot be read as JSON within bounds (status, reason).

    ``None`` for a body that is JSON within bounds, or empty (blank).
    """
    if not body.strip():
        return None
    try:
        payload = loads_bounded(body)
    except JsonLimitError as exc:
        return 422, f"the request body cannot be read: {exc}"
    except ValueError:
        return 400, "the request body is not JSON (UTF-8)"
    try:
        json.dumps(payload, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return 422, "the request body holds a lone surrogate (\\ud800-\\udfff): not Unicode text"
    return None


def _picks_thread_id(scope: Scope, body: bytes) -> bool:
    """Whether, with auth on, the request picks a new thread's id (see :mod:`.inputs`)."""
    if scope["method"] != "POST" or "/threads" not in scope["path"] or current_verifier().open:
        return False
    payload = loads_bounded(body) if body.strip() else None  # readable: checked before
    return picked_thread_id(scope["method"], scope["path"], payload)


class RequestBodies:
    """The ASGI middleware of the module docstring."""

    def __init__(self, app: App, max_bytes: int = MAX_REQUEST_BYTES) -> None:
        """Wrap ``app``; bodies over ``max_bytes`` are refused."""
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Read the body within the cap, then hand the request on with it."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        too_large = {"detail": f"the request body is over {self.max_bytes} bytes"}
        declared = _declared_length(scope)
        if declared is not None and declared > self.max_bytes:
            await answer(send, 413, too_large)
            return
        chunks: list[bytes] = []
        size, more = 0, True
        while more:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await answer(send, 413, too_large)
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        replay = replaying(body, receive)
        refusal = unreadable(body)
        if refusal is not None:
            await answer(send, refusal[0], {"detail": refusal[1]})
            return
        if _picks_thread_id(scope, body):
            await answer(send, 422, {"detail": CALLER_THREAD_ID})
            return
        await self.app(scope, replay, send)
