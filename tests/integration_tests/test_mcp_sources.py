"""MCP servers as sources: real servers (``mcp`` SDK) over stdio and streamable HTTP.

The server (tests/mcp_servers/notes_server.py) holds a few internal notes. A whole offline run
researches a question over it and cites its notes as ``mcp://SERVER/TOOL/ID`` references; a
second, broken server is reported as an ``error`` event while the research goes on.
"""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from deep_research.context import Context
from deep_research.engines import OfflineEngine
from deep_research.errors import ConfigurationError, SourceError
from deep_research.graph import build_graph
from deep_research.persistence.checkpointer import make_serde
from deep_research.sources.mcp import McpSource, mcp_sources, parse_mcp_config
from deep_research.state import Report

REPO_ROOT = Path(__file__).resolve().parents[2]
SERVER = ["-m", "tests.mcp_servers.notes_server"]
QUESTION = (
    "What was the budget and capacity of the Project Aurora battery, and when was it commissioned?"
)


def _stdio(name: str = "notes", **roles: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "command": sys.executable,
        "args": [*SERVER, "stdio"],
        "cwd": str(REPO_ROOT),
        "search": {"tool": "search_notes", "arguments": {"query": "{query}", "limit": "{k}"}},
        "read": "read_note",
        "timeout": 60,
    }
    entry.update(roles)
    return {name: entry}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def http_server() -> Iterator[str]:
    """The notes server on streamable HTTP at 127.0.0.1; its /mcp URL."""
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, *SERVER, "http", str(port)],
        cwd=REPO_ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail("the MCP notes server did not listen within 30 s")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


async def test_stdio_server_searches_and_reads_with_the_mapped_tools() -> None:
    (config,) = parse_mcp_config({"mcpServers": _stdio()})
    source = McpSource(config)
    results = await source.search("Aurora battery budget", 2)
    assert [r.url for r in results] == [
        "mcp://notes/search_notes/aurora-budget",
        "mcp://notes/search_notes/aurora-notice",
    ]
    assert results[0].provider == "mcp:notes" and results[0].raw_content is None
    document = await source.read(results[0].url)
    assert document.title == "Project Aurora budget review"
    assert "2.3 million euros" in document.text
    assert document.metadata["mcp_server"] == "notes"


async def test_streamable_http_server_results_can_carry_their_text(http_server: str) -> None:
    entry = {
        "url": http_server,
        "search": {"tool": "search_full", "arguments": {"query": "{query}", "limit": "{k}"}},
    }
    (config,) = parse_mcp_config({"mcpServers": {"wiki": entry}})
    results = await McpSource(config).search("Aurora safety", 1)
    assert results[0].url == "mcp://wiki/search_full/aurora-safety"
    assert results[0].raw_content is not None and "thermal runaway" in results[0].raw_content


async def test_a_failing_tool_or_server_is_a_source_error() -> None:
    (config,) = parse_mcp_config({"mcpServers": _stdio(read="read_note")})
    with pytest.raises(SourceError, match="read_note answered with an error"):
        await McpSource(config).read("mcp://notes/search_notes/no-such-note")
    broken = _stdio("broken", command=sys.executable, args=["-c", "raise SystemExit(3)"])
    (config,) = parse_mcp_config({"mcpServers": broken})
    with pytest.raises(SourceError, match="mcp:broken"):
        await McpSource(config).search("anything", 3)


async def test_a_server_that_exits_at_once_is_a_source_error_however_the_pipe_breaks() -> None:
    # Racing its exit, the client either reads a closed connection or fails to write the
    # handshake (anyio's BrokenResourceError); many calls at once make both outcomes likely.
    broken = _stdio("broken", command=sys.executable, args=["-c", "raise SystemExit(3)"])
    (config,) = parse_mcp_config({"mcpServers": broken})
    source = McpSource(config)
    outcomes = await asyncio.gather(
        *(source.search("anything", 3) for _ in range(24)), return_exceptions=True
    )
    assert all(isinstance(o, SourceError) for o in outcomes), outcomes
    assert all(str(o).startswith("mcp:broken: search_notes failed: ") for o in outcomes)
    assert not any(str(o).endswith("failed: ") for o in outcomes)


async def test_a_slow_server_times_out() -> None:
    slow = _stdio("slow", args=["-c", "import time; time.sleep(30)"], timeout=1)
    (config,) = parse_mcp_config({"mcpServers": slow})
    with pytest.raises(SourceError, match="timed out after 1 s"):
        await McpSource(config).search("anything", 3)


def test_configuration_errors_are_clear(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="mcpServers"):
        parse_mcp_config({"servers": {}})
    with pytest.raises(ConfigurationError, match="`command`"):
        parse_mcp_config({"mcpServers": {"x": {"search": "s"}}})
    path = tmp_path / "mcp.json"
    path.write_text('{"mcpServers": {}}', encoding="utf-8")
    with pytest.raises(ConfigurationError, match="no MCP server wiki"):
        mcp_sources(str(path), {"wiki"})


async def test_a_whole_run_cites_mcp_notes_and_goes_on_when_a_server_fails() -> None:
    configs = parse_mcp_config(
        {
            "mcpServers": {
                **_stdio(),
                **_stdio("broken", command=sys.executable, args=["-c", "raise SystemExit(3)"]),
            }
        }
    )
    graph = build_graph(
        engine=OfflineEngine(),
        sources=[McpSource(c) for c in configs],
        checkpointer=InMemorySaver(serde=make_serde()),
    )
    config: Any = {"configurable": {"thread_id": uuid.uuid4().hex}}
    errors: list[dict[str, Any]] = []
    async for _namespace, mode, chunk in graph.astream(
        {"messages": [HumanMessage(QUESTION)]},
        config,
        context=Context(allow_clarification=False, depth="light"),
        stream_mode=["custom"],
        subgraphs=True,
    ):
        if mode == "custom" and chunk.get("type") == "error":
            errors.append(chunk)
    report = Report.model_validate((await graph.aget_state(config)).values["report"])
    cited = {r.url for r in report.references}
    assert cited and all(url.startswith("mcp://notes/search_notes/") for url in cited)
    assert "mcp://notes/search_notes/aurora-budget" in cited
    assert "2.3 million euros" in report.markdown
    assert any("mcp:broken" in str(e) for e in errors)
    assert report.verification.supported >= 1
    # tool output is untrusted data: text that tries to instruct the agent is flagged, not obeyed
    notice = [s for s in report.sources if s.url.endswith("/aurora-notice")]
    assert notice and any(f.startswith("prompt_injection") for f in notice[0].flags)
    assert "99 million" not in report.markdown


def test_the_mcp_choice_loads_the_operators_servers_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    from deep_research.settings import get_settings
    from deep_research.sources import load_sources

    with pytest.raises(ConfigurationError, match="DEEP_RESEARCH_MCP_CONFIG"):
        load_sources("mcp", None)
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {**_stdio(), "plain": {"command": "x"}}}))
    monkeypatch.setenv("DEEP_RESEARCH_MCP_CONFIG", str(path))
    get_settings.cache_clear()
    providers = load_sources("local+mcp", None)
    assert [p.name for p in providers] == ["local", "mcp:notes"]
