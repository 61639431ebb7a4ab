"""The agent as an MCP tool: the server's ``/mcp`` endpoint, called with the ``mcp`` client.

The server (the session's ``auth_server``: tokens for alice and bob) lists the ``research``
graph as a tool with its description and input schema; alice calls it and gets a cited,
verified report; a client without a token gets nothing.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from deep_research.server.tool_graph import DESCRIPTION
from tests.integration_tests.conftest import AuthServer

pytestmark = pytest.mark.server


async def _session_call(url: str, headers: dict[str, str], name: str | None = None) -> Any:
    async with (
        httpx.AsyncClient(headers=headers, timeout=180, trust_env=False) as http,
        streamable_http_client(f"{url}/mcp", http_client=http) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        if name is None:
            return await session.list_tools()
        return await session.call_tool(
            name, {"question": "What did Hornsdale Power Reserve cost?", "depth": "light"}
        )


async def test_the_research_tool_is_listed_with_its_description_and_schema(
    auth_server: AuthServer,
) -> None:
    tools = (await _session_call(auth_server.url, auth_server.headers("alice"))).tools
    research = next(t for t in tools if t.name == "research")
    assert research.description == DESCRIPTION
    properties = research.inputSchema["properties"]
    assert set(properties) == {"question", "mode", "depth"}
    assert research.inputSchema["required"] == ["question"]
    assert "deep_research" in json.dumps(properties["mode"])


async def test_calling_the_tool_returns_a_cited_verified_report(auth_server: AuthServer) -> None:
    result = await _session_call(auth_server.url, auth_server.headers("alice"), "research")
    assert not result.isError
    text = "\n".join(block.text for block in result.content if block.type == "text")
    assert "## References" in text and "[1]" in text
    assert "claims checked" in text
    assert "hornsdale-power-reserve.md" in text


async def test_the_endpoint_refuses_a_client_without_a_token(auth_server: AuthServer) -> None:
    async with httpx.AsyncClient(timeout=30) as client:
        response = await client.post(
            f"{auth_server.url}/mcp",
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
            headers={"Accept": "application/json, text/event-stream"},
        )
    assert response.status_code in {401, 403}
