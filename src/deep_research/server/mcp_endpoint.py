"""``/mcp``: the agent as an MCP tool, served by our own app on every runtime.

The server speaks the Model Context Protocol over Streamable HTTP with the official Python SDK
(``mcp``: a low-level ``Server`` behind a ``StreamableHTTPSessionManager``, stateless, JSON
answers), mounted in the routes' app (:mod:`deep_research.server.routes`), so langgraph-api
(``langgraph dev``; its own ``/mcp`` is off: ``http.disable_mcp``) and Aegra (which has none)
serve the same endpoint. It lists one curated tool, ``research`` (input
:class:`~deep_research.server.inputs.ToolInput`), and answers a call with the report as
Markdown text plus ``structuredContent`` that matches the declared ``outputSchema``
(:class:`ToolOutput`: report, references, verification).

A call runs the ``research`` graph through the server's own API, on the address the request
came in on, with the caller's ``Authorization`` header: the same authentication, input checks
and run cap as any run, on both runtimes, and a refusal (403, 422, 429) becomes the tool's
answer with ``isError`` and the reason. A request that went through no authentication is
answered 401 before the protocol is spoken.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import httpx
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import Receive, Scope, Send

from deep_research.server.bodies import refusal_detail
from deep_research.server.inputs import TOOL_DESCRIPTION, TOOL_GRAPH, ToolInput, ToolOutput

logger = logging.getLogger(__name__)

TOOL_NAME = "research"
"""The one tool this endpoint serves."""

RUN_TIMEOUT_SECONDS = 3600.0
"""Longest a tool call waits for its run."""


def tool() -> types.Tool:
    """The ``research`` tool as ``tools/list`` shows it."""
    return types.Tool(
        name=TOOL_NAME,
        title="Deep research",
        description=TOOL_DESCRIPTION,
        inputSchema=ToolInput.model_json_schema(),
        outputSchema=ToolOutput.model_json_schema(),
        annotations=types.ToolAnnotations(readOnlyHint=True, openWorldHint=True),
    )


def tool_result(output: dict[str, Any]) -> types.CallToolResult:
    """The tool's answer from the ``research`` graph's output (the report as Markdown text)."""
    structured = ToolOutput.model_validate(output)
    text = structured.report or "The run ended without a report."
    if structured.verification:
        text += f"\n\n_Verification: {structured.verification}._"
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structuredContent=structured.model_dump(mode="json"),
    )


def refusal(reason: str) -> types.CallToolResult:
    """A tool answer that is an error, with its reason."""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=f"refused: {reason}")], isError=True
    )


def _client(base_url: str, authorization: str | None) -> httpx.AsyncClient:
    headers = {"Authorization": authorization} if authorization else {}
    # no proxies, no .netrc: nothing read from the environment or the disk
    return httpx.AsyncClient(
        base_url=base_url, headers=headers, timeout=RUN_TIMEOUT_SECONDS, trust_env=False
    )


async def run_research(
    base_url: str, authorization: str | None, arguments: dict[str, Any]
) -> types.CallToolResult:
    """Run the ``research`` graph through the server's API; its output as the tool's answer."""
    # building a client reads the TLS certificates: off the event loop
    client = await asyncio.to_thread(_client, base_url, authorization)
    async with client:
        try:
            thread = (await client.post("/threads", json={})).raise_for_status().json()
            response = await client.post(
                f"/threads/{thread['thread_id']}/runs/wait",
                json={"assistant_id": TOOL_GRAPH, "input": arguments},
            )
            output = response.raise_for_status().json()
        except httpx.HTTPStatusError as error:
            if error.response.status_code >= 500:
                raise
            return refusal(refusal_detail(error))
    if not isinstance(output, dict) or "__error__" in output:
        failure = output.get("__error__") if isinstance(output, dict) else None
        message = failure.get("message") if isinstance(failure, dict) else None
        return refusal(f"the run failed: {message or 'no output'}")
    return tool_result(output)


def _server(base_url: str, authorization: str | None) -> Server[Any, Any]:
    """The MCP server of one request (it calls the API as the request's caller)."""
    server: Server[Any, Any] = Server("deep-research")

    @server.list_tools()  # type: ignore[no-untyped-call,untyped-decorator]
    async def list_tools() -> list[types.Tool]:
        return [tool()]

    @server.call_tool(validate_input=True)  # type: ignore[untyped-decorator]
    async def call_tool(name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        if name != TOOL_NAME:
            return refusal(f"no tool {name!r}; this server has {TOOL_NAME!r}")
        return await run_research(base_url, authorization, arguments)

    return server


class _MCPExchange(Response):
    """The response to an ``/mcp`` request: the MCP server answers it (see :func:`mcp`)."""

    def __init__(self, base_url: str, authorization: str | None) -> None:
        super().__init__()
        self.base_url = base_url
        self.authorization = authorization

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer the request as a stateless MCP server (Streamable HTTP, JSON answers)."""
        server = _server(self.base_url, self.authorization)
        manager = StreamableHTTPSessionManager(server, stateless=True, json_response=True)
        async with manager.run():
            await manager.handle_request(scope, receive, send)


async def mcp(request: Request) -> Response:
    """``/mcp``: the MCP endpoint (see the module docstring).

    A FastAPI route (not a mounted ASGI app), so that every runtime authenticates it as it
    does our other routes: langgraph-api by its middleware, Aegra by a dependency it adds to
    each route of the app. The MCP exchange itself runs as the route's response.
    """
    user = request.scope.get("user")
    if user is None or not getattr(user, "is_authenticated", False):
        return JSONResponse({"detail": "not authenticated"}, status_code=401)
    address = request.scope.get("server")
    if not address:
        return JSONResponse({"detail": "/mcp needs the server on a TCP address"}, 503)
    host, port = address
    base_url = f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"
    return _MCPExchange(base_url, request.headers.get("authorization"))
