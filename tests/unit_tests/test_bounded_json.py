"""Provider JSON is read within bounds: a hostile answer fails one source, never the run.

JSON nested thousands of levels deep made Python's ``json`` raise ``RecursionError``, which no
provider caught (issue 30, item 4); an endless or huge body was read whole.
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from deep_research.errors import FetchBlockedError, SourceError
from deep_research.sources.bounded_json import (
    JsonLimitError,
    check_depth,
    json_depth,
    loads_bounded,
)
from deep_research.sources.mcp import McpSource, parse_mcp_config
from deep_research.sources.scholarly.client import ApiClient
from deep_research.sources.searxng import SearxngSearch
from deep_research.sources.web.ssrf import IPAddress, SsrfGuard

DEEP = "[" * 50_000 + "]" * 50_000
"""Deeper than Python's recursion limit: ``json.loads`` raises ``RecursionError`` on it."""


def test_the_plain_parser_would_crash_on_it() -> None:
    with pytest.raises(RecursionError):
        json.loads(DEEP)


def test_depth_is_measured_without_counting_brackets_in_strings() -> None:
    assert json_depth('{"a": [1, {"b": "[[[[{{{{\\"]]]"}]}') == 3
    assert json_depth('"just a string"') == 0
    assert loads_bounded('{"results": [{"url": "x"}]}') == {"results": [{"url": "x"}]}
    with pytest.raises(JsonLimitError, match="nested 50000 levels deep"):
        loads_bounded(DEEP)
    with pytest.raises(JsonLimitError, match="bytes long"):
        loads_bounded(b'"' + b"x" * 100 + b'"', max_bytes=50)


def test_a_decoded_value_nested_too_deep_is_refused_without_recursion() -> None:
    value: Any = []
    for _ in range(10_000):
        value = [value]
    with pytest.raises(JsonLimitError):
        check_depth(value)
    assert check_depth({"a": [1, {"b": 2}]}) == {"a": [1, {"b": 2}]}


async def test_searxng_answering_deep_json_is_one_failed_search() -> None:
    transport = httpx.MockTransport(lambda request: httpx.Response(200, text=DEEP))
    provider = SearxngSearch("http://searx.example", transport=transport)
    with pytest.raises(SourceError, match="unreadable JSON"):
        await provider.search("storage", 3)


def _client(handler: Any, **options: Any) -> ApiClient:
    return ApiClient(
        "X", "https://api.example.org", transport=httpx.MockTransport(handler), **options
    )


async def test_a_scholarly_api_answering_deep_json_is_one_failed_request() -> None:
    client = _client(lambda request: httpx.Response(200, text='{"a": ' + DEEP + "}"))
    with pytest.raises(SourceError, match="X answered works with unreadable JSON"):
        await client.get_json("works")


async def test_a_scholarly_answer_over_the_cap_fails_the_request() -> None:
    client = _client(lambda request: httpx.Response(200, text="x" * 5000), max_bytes=1000)
    with pytest.raises(SourceError, match="larger than the 1000-byte cap"):
        await client.get_text("works")


def _redirecting(target: str) -> Any:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.host == "api.example.org" and request.url.path == "/works":
            return httpx.Response(302, headers={"Location": target})
        return httpx.Response(200, json={"reached": str(request.url)})

    return handler


async def _resolver(host: str, port: int) -> list[IPAddress]:
    from ipaddress import ip_address

    return [ip_address({"internal.example": "10.0.0.5"}.get(host, "93.184.216.34"))]


@pytest.mark.parametrize(
    "target",
    [
        "http://127.0.0.1:8080/admin",
        "http://169.254.169.254/latest/meta-data/",
        "http://internal.example/secret",  # a name that resolves to a private address
        "file:///etc/passwd",
    ],
)
async def test_a_scholarly_redirect_to_an_internal_address_is_refused(target: str) -> None:
    client = _client(_redirecting(target), guard=SsrfGuard(resolver=_resolver))
    with pytest.raises(FetchBlockedError, match="refused"):
        await client.get_json("works")


async def test_redirects_within_the_api_and_to_public_hosts_are_followed() -> None:
    guard = SsrfGuard(resolver=_resolver)
    same = _client(_redirecting("/v2/works"), guard=guard)
    assert await same.get_json("works") == {"reached": "https://api.example.org/v2/works"}
    public = _client(_redirecting("https://mirror.example/works"), guard=guard)
    assert await public.get_json("works") == {"reached": "https://mirror.example/works"}


async def test_endless_redirects_fail_the_request() -> None:
    client = _client(lambda r: httpx.Response(302, headers={"Location": "/works"}))
    with pytest.raises(SourceError, match="redirected more than 5 times"):
        await client.get_json("works")


async def test_an_mcp_tool_answering_deep_json_is_one_failed_search() -> None:
    entry = {"command": "unused", "search": "search_notes"}
    (config,) = parse_mcp_config({"mcpServers": {"notes": entry}})
    source = McpSource(config)

    async def answer(role: Any, **values: Any) -> Any:
        return SimpleNamespace(structuredContent=None, content=[SimpleNamespace(text=DEEP)])

    source._call = answer  # type: ignore[method-assign]  # the tool's answer, without a server
    with pytest.raises(SourceError, match="mcp:notes: search_notes answered with unreadable"):
        await source.search("anything", 3)


async def test_tavily_answering_deep_or_broken_json_is_one_failed_search(tmp_path: Any) -> None:
    import respx

    from deep_research.sources.tavily import TavilySearch

    provider = TavilySearch("tvly-test", base_url="http://tavily.test", backoff=0.001)
    for body in ('{"results": ' + DEEP + "}", "<html>not json</html>"):
        with respx.mock(base_url="http://tavily.test") as mock:
            mock.post("/search").mock(return_value=httpx.Response(200, text=body))
            with pytest.raises(SourceError, match="unreadable JSON"):
                await provider.search("grid batteries", 3)
