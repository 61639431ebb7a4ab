"""The agent as an MCP tool: our own ``/mcp`` endpoint, called with real MCP clients.

The server (the session's ``auth_server``: ``langgraph dev`` with tokens for alice and bob)
serves ``/mcp`` from our app with the MCP SDK (langgraph-api's own endpoint is off). Tested
with the SDK's Streamable HTTP client: only the curated ``research`` tool is listed, with its
input and output schemas; a call returns the report as Markdown text plus structured content
matching the output schema; bad input and a missing token are refused. The MCP Inspector's
command line (a client nobody here wrote, from the npm registry) lists and calls the tool too.
The same endpoint on Aegra is tested in ``test_cluster.py``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from deep_research.server.inputs import TOOL_DESCRIPTION
from tests.integration_tests.conftest import AuthServer

pytestmark = pytest.mark.server

QUESTION = "What did Hornsdale Power Reserve cost?"
INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"
"""The MCP Inspector release the tests run (``.ci/run`` installs it ahead)."""


async def mcp_call(
    url: str, headers: dict[str, str], name: str | None = None, arguments: Any = None
) -> Any:
    """``tools/list`` (no ``name``) or ``tools/call`` on ``url``/mcp with the SDK's client."""
    async with (
        httpx.AsyncClient(headers=headers, timeout=300, trust_env=False) as http,
        streamable_http_client(f"{url}/mcp", http_client=http) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        if name is None:
            return await session.list_tools()
        return await session.call_tool(name, arguments)


def check_report_result(result: Any, output_schema: dict[str, Any]) -> None:
    """A tool result holding a readable cited report and structured content of the schema."""
    assert not result.isError, result.content
    [block] = result.content
    assert block.type == "text"
    text = block.text
    assert text.startswith("# ") and "## References" in text and "[1]" in text
    assert "{'report'" not in text and "\\n" not in text  # Markdown, not a Python repr
    assert "claims checked" in text
    structured = result.structuredContent
    jsonschema.validate(structured, output_schema)
    assert structured["report"] and structured["report"] in text
    assert structured["references"][0]["number"] == 1
    assert any("hornsdale-power-reserve" in r["url"] for r in structured["references"])
    assert "claims checked" in structured["verification"]


async def test_only_the_research_tool_is_listed_with_its_schemas(auth_server: AuthServer) -> None:
    tools = (await mcp_call(auth_server.url, auth_server.headers("alice"))).tools
    assert [t.name for t in tools] == ["research"]  # no auto-generated deep_research tool
    [research] = tools
    assert research.description == TOOL_DESCRIPTION
    properties = research.inputSchema["properties"]
    assert set(properties) == {"question", "mode", "depth"}
    assert research.inputSchema["required"] == ["question"]
    assert "deep_research" in json.dumps(properties["mode"])
    assert set(research.outputSchema["properties"]) == {"report", "references", "verification"}


async def test_calling_the_tool_returns_markdown_and_structured_content(
    auth_server: AuthServer,
) -> None:
    listed = (await mcp_call(auth_server.url, auth_server.headers("alice"))).tools[0]
    before = await _chats(auth_server)
    result = await mcp_call(
        auth_server.url,
        auth_server.headers("alice"),
        "research",
        {"question": QUESTION, "depth": "light"},
    )
    check_report_result(result, listed.outputSchema)
    # the call is one more of alice's chats (as docs/mcp.md says), never another user's
    after = await _chats(auth_server)
    assert len(after["alice"] - before["alice"]) == 1 and after["bob"] == before["bob"]


async def _chats(server: AuthServer) -> dict[str, set[str]]:
    """The thread ids of alice's and bob's chats."""
    found: dict[str, set[str]] = {}
    async with httpx.AsyncClient(base_url=server.url, timeout=30, trust_env=False) as client:
        for user in ("alice", "bob"):
            response = await client.get("/chats", headers=server.headers(user))
            found[user] = {chat["thread_id"] for chat in response.raise_for_status().json()}
    return found


async def test_bad_input_is_refused_as_the_tool_answer(auth_server: AuthServer) -> None:
    headers = auth_server.headers("bob")
    schema_refusal = await mcp_call(auth_server.url, headers, "research", {"query": QUESTION})
    assert schema_refusal.isError
    # valid for the schema, refused by the server's input checks (as any run would be)
    blank = await mcp_call(auth_server.url, headers, "research", {"question": "  \n "})
    assert blank.isError and blank.content[0].text.startswith("refused:")


async def test_the_endpoint_refuses_a_client_without_a_token(auth_server: AuthServer) -> None:
    async with httpx.AsyncClient(timeout=30, trust_env=False) as client:
        response = await client.post(
            f"{auth_server.url}/mcp",
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
            headers={"Accept": "application/json, text/event-stream"},
        )
    assert response.status_code in {401, 403}


def _inspector(server: AuthServer, catalog: Path, *args: str) -> Any:
    """Run the MCP Inspector's CLI on the server's /mcp as alice; its JSON answer.

    Skips when npx cannot run it here (a failure under CI, see conftest).
    """
    npx = shutil.which("npx")
    if npx is None:
        pytest.skip("npx (Node.js) is not installed: the MCP Inspector cannot run")
    command = [npx, "-y", INSPECTOR, "--cli", f"{server.url}/mcp", "--transport", "http"]
    command += ["--header", f"Authorization: Bearer {server.token('alice')}", *args]
    environment = {**os.environ, "NO_UPDATE_NOTIFIER": "1", "MCP_CATALOG_PATH": str(catalog)}
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=600, env=environment, check=False
    )
    if done.returncode != 0 and "ERR!" in done.stderr and not os.environ.get("CI"):
        pytest.skip(f"npx could not run the MCP Inspector here: {done.stderr[-500:]}")
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout[done.stdout.index("{") :])


def test_the_mcp_inspector_lists_and_calls_the_tool(
    auth_server: AuthServer, tmp_path: Path
) -> None:
    catalog = tmp_path / "mcp.json"
    listed = _inspector(auth_server, catalog, "--method", "tools/list")
    assert [t["name"] for t in listed["tools"]] == ["research"]
    called = _inspector(
        auth_server,
        catalog,
        "--method",
        "tools/call",
        "--tool-name",
        "research",
        "--tool-arg",
        f"question={QUESTION}",
        "--tool-arg",
        "depth=light",
    )
    assert called.get("isError") is not True, called
    text = called["content"][0]["text"]
    assert text.startswith("# ") and "## References" in text
    jsonschema.validate(called["structuredContent"], listed["tools"][0]["outputSchema"])
