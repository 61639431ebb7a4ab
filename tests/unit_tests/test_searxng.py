"""SearXNG search against a stand-in instance on 127.0.0.1 that answers as SearXNG does."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from deep_research.errors import ConfigurationError, SourceError
from deep_research.sources.searxng import SearxngSearch
from tests.unit_tests.web_server import Handler, LocalServer, respond


def _hit(n: int, engine: str = "duckduckgo") -> dict[str, Any]:
    url = f"https://example{n}.org/articles/storage-{n}"
    return {
        "url": url,
        "title": f"Grid storage article {n}",
        "content": f"Snippet {n} about battery storage.",
        "engine": engine,
        "parsed_url": ["https", f"example{n}.org", f"/articles/storage-{n}", "", "", ""],
        "template": "default.html",
        "engines": [engine, "brave"],
        "positions": [n, n + 1],
        "score": 2.0 / n,
        "category": "general",
        "publishedDate": None,
    }


def _payload(query: str, hits: list[dict[str, Any]]) -> dict[str, Any]:
    """A JSON answer in SearXNG's documented shape."""
    return {
        "query": query,
        "number_of_results": 0,
        "results": hits,
        "answers": [],
        "corrections": [],
        "infoboxes": [],
        "suggestions": [f"{query} cost"],
        "unresponsive_engines": [["bing", "timeout"]],
    }


def _instance(pages: dict[int, list[dict[str, Any]]], status: int = 200) -> LocalServer:
    def search(handler: Handler) -> None:
        params = parse_qs(urlsplit(handler.path).query)
        if status != 200:
            respond(handler, b"Forbidden", status=status, content_type="text/html")
            return
        if params.get("format") != ["json"]:
            respond(handler, b"<html>results</html>")
            return
        hits = pages.get(int(params.get("pageno", ["1"])[0]), [])
        body = json.dumps(_payload(params["q"][0], hits)).encode()
        respond(handler, body, content_type="application/json")

    return LocalServer(routes={"/search": search})


async def test_results_keep_title_snippet_and_rank_with_the_configured_options() -> None:
    with _instance({1: [_hit(1), _hit(2), {"title": "no url"}, _hit(3)]}) as server:
        provider = SearxngSearch(
            server.url(""), engines=["duckduckgo", "brave"], language="zh", time_range="year"
        )
        results = await provider.search("grid batteries", 3)
    assert [r.url for r in results] == [
        "https://example1.org/articles/storage-1",
        "https://example2.org/articles/storage-2",
        "https://example3.org/articles/storage-3",
    ]
    assert results[0].title == "Grid storage article 1"
    assert results[0].snippet == "Snippet 1 about battery storage."
    assert results[0].provider == "searxng"
    assert results[0].score > results[1].score > results[2].score
    params = parse_qs(urlsplit(server.requests[0]).query)
    assert params["format"] == ["json"] and params["q"] == ["grid batteries"]
    assert params["engines"] == ["duckduckgo,brave"]
    assert params["language"] == ["zh"] and params["time_range"] == ["year"]


async def test_a_second_page_is_asked_for_when_the_first_is_short() -> None:
    with _instance({1: [_hit(1), _hit(2)], 2: [_hit(2), _hit(3)]}) as server:
        results = await SearxngSearch(server.url("")).search("storage", 3)
    assert [r.url.split("/")[2] for r in results] == [
        "example1.org",
        "example2.org",
        "example3.org",
    ]
    assert len(server.requests) == 2


async def test_json_output_switched_off_is_a_clear_configuration_error() -> None:
    with _instance({}, status=403) as server:
        with pytest.raises(ConfigurationError, match="search.formats"):
            await SearxngSearch(server.url("")).search("storage", 3)


async def test_server_errors_are_retried_then_reported_as_a_source_error() -> None:
    with _instance({}, status=503) as server:
        provider = SearxngSearch(server.url(""), max_attempts=3, backoff=0.0)
        with pytest.raises(SourceError, match="after 3 attempts: HTTP 503"):
            await provider.search("storage", 3)
    assert len(server.requests) == 3


async def test_an_instance_that_is_down_is_a_source_error() -> None:
    with _instance({}) as server:
        url = server.url("")
    provider = SearxngSearch(url, max_attempts=2, backoff=0.0, timeout=2.0)
    with pytest.raises(SourceError, match="cannot connect"):
        await provider.search("storage", 3)


def test_only_http_urls_are_accepted() -> None:
    with pytest.raises(ConfigurationError, match="DEEP_RESEARCH_SEARXNG_URL"):
        SearxngSearch("file:///etc")


def test_auto_uses_searxng_when_its_url_is_set_and_tavily_has_no_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from deep_research.settings import get_settings
    from deep_research.sources import load_sources

    monkeypatch.setenv("DEEP_RESEARCH_SEARXNG_URL", "http://127.0.0.1:8888")
    monkeypatch.setenv("DEEP_RESEARCH_SEARXNG_ENGINES", "duckduckgo, brave")
    get_settings.cache_clear()
    providers = load_sources("auto", None)
    assert [p.name for p in providers] == ["searxng", "web"]
    assert isinstance(providers[0], SearxngSearch)
    assert providers[0].engines == ("duckduckgo", "brave")
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-test")
    get_settings.cache_clear()
    assert [p.name for p in load_sources("auto", None)] == ["tavily", "web"]


def test_asking_for_searxng_without_its_url_is_a_clear_error() -> None:
    from deep_research.sources import load_sources

    with pytest.raises(ConfigurationError, match="DEEP_RESEARCH_SEARXNG_URL"):
        load_sources("searxng", None)
