"""The Tavily provider on the real client, with Tavily's endpoint faked at the transport (respx),
and the choice of providers by ``load_sources``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx
from langgraph.runtime import Runtime

from deep_research.context import Context, resolve_config
from deep_research.errors import ConfigurationError, SourceError
from deep_research.nodes import search_sources
from deep_research.services import Services
from deep_research.settings import get_settings
from deep_research.sources import LocalCorpus, load_sources
from deep_research.sources.tavily import TavilySearch
from deep_research.sources.web.cache import PageCache
from deep_research.sources.web.reader import WebReader
from deep_research.state import PlanStep, ResearcherState

BASE = "http://tavily.test"

HITS = {
    "query": "grid batteries",
    "results": [
        {
            "title": "Grid batteries explained",
            "url": "https://WWW.Example.com/grid?utm_source=x#intro",
            "content": "Grid batteries store energy.",
            "score": 0.91,
            "raw_content": "# Grid batteries\r\n\r\nThey store energy.\x00",
        },
        {"title": None, "url": "https://news.example.org/b", "content": None, "score": None},
        {"title": "No URL", "content": "dropped"},
        {"title": "Bad URL", "url": "javascript:alert(1)"},
    ],
}


def tavily(tmp_path: Path, **options: Any) -> TavilySearch:
    cache = PageCache(tmp_path / "pages.sqlite", ttl=3600)
    return TavilySearch("tvly-test", base_url=BASE, cache=cache, backoff=0.001, **options)


async def test_results_are_mapped_and_page_text_goes_to_the_cache(tmp_path: Path) -> None:
    provider = tavily(tmp_path, search_depth="basic")
    with respx.mock(base_url=BASE) as mock:
        route = mock.post("/search").mock(return_value=httpx.Response(200, json=HITS))
        results = await provider.search("grid batteries", 4)
    assert [(r.url, r.title, r.snippet, r.score) for r in results] == [
        (
            "https://www.example.com/grid",
            "Grid batteries explained",
            "Grid batteries store energy.",
            0.91,
        ),
        ("https://news.example.org/b", "https://news.example.org/b", "", 0.0),
    ]
    assert all(r.provider == "tavily" and r.raw_content is None for r in results)
    request = route.calls.last.request
    assert request.headers["authorization"] == "Bearer tvly-test"
    assert "x-tavily-access-mode" not in request.headers  # never keyless
    body = json.loads(request.content)
    assert body["query"] == "grid batteries" and body["max_results"] == 4
    assert body["search_depth"] == "basic" and body["include_raw_content"] == "markdown"
    cached = await provider.cache.get("https://www.example.com/grid")  # type: ignore[union-attr]
    assert cached is not None and cached.origin == "tavily"
    assert cached.text == "# Grid batteries\n\nThey store energy."
    document = await provider.read("https://www.example.com/grid")
    assert document.text == cached.text and document.cache is None


async def test_a_page_not_in_the_cache_is_read_with_tavily_extract(tmp_path: Path) -> None:
    reply = {"results": [{"url": "https://example.com/x", "raw_content": "Extracted\r\ntext."}]}
    with respx.mock(base_url=BASE) as mock:
        route = mock.post("/extract").mock(return_value=httpx.Response(200, json=reply))
        document = await tavily(tmp_path).read("https://example.com/x#part")
    assert document.text == "Extracted\ntext." and document.url == "https://example.com/x"
    assert json.loads(route.calls.last.request.content)["urls"] == ["https://example.com/x"]
    with respx.mock(base_url=BASE) as mock:
        mock.post("/extract").mock(return_value=httpx.Response(200, json={"results": []}))
        with pytest.raises(SourceError, match="could not extract"):
            await tavily(tmp_path).read("https://example.com/y")


async def test_raw_content_is_not_requested_without_a_cache() -> None:
    provider = TavilySearch("tvly-test", base_url=BASE)
    with respx.mock(base_url=BASE) as mock:
        route = mock.post("/search").mock(return_value=httpx.Response(200, json={"results": []}))
        assert await provider.search("q", 3) == []
    assert "include_raw_content" not in json.loads(route.calls.last.request.content)


async def test_a_rejected_key_is_a_configuration_error_and_not_retried(tmp_path: Path) -> None:
    with respx.mock(base_url=BASE) as mock:
        route = mock.post("/search").mock(
            return_value=httpx.Response(401, json={"detail": {"error": "Unauthorized"}})
        )
        with pytest.raises(ConfigurationError, match="401.*TAVILY_API_KEY"):
            await tavily(tmp_path).search("q", 3)
    assert route.call_count == 1


async def test_a_rate_limit_is_retried_then_succeeds(tmp_path: Path) -> None:
    with respx.mock(base_url=BASE) as mock:
        route = mock.post("/search").mock(
            side_effect=[
                httpx.Response(429, json={"detail": {"error": "Too many requests"}}),
                httpx.Response(200, json=HITS),
            ]
        )
        results = await tavily(tmp_path).search("q", 3)
    assert route.call_count == 2 and len(results) == 2


async def test_server_errors_are_retried_until_the_attempts_run_out(tmp_path: Path) -> None:
    with respx.mock(base_url=BASE) as mock:
        route = mock.post("/search").mock(return_value=httpx.Response(503, text="unavailable"))
        with pytest.raises(SourceError, match="after 3 attempts: HTTP 503"):
            await tavily(tmp_path, max_attempts=3).search("q", 3)
    assert route.call_count == 3


async def test_timeouts_are_retried_then_reported(tmp_path: Path) -> None:
    with respx.mock(base_url=BASE) as mock:
        route = mock.post("/search").mock(side_effect=httpx.ReadTimeout("slow"))
        with pytest.raises(SourceError, match="after 2 attempts: timed out"):
            await tavily(tmp_path, max_attempts=2).search("q", 3)
    assert route.call_count == 2


async def test_a_bad_request_is_not_retried(tmp_path: Path) -> None:
    with respx.mock(base_url=BASE) as mock:
        route = mock.post("/search").mock(
            return_value=httpx.Response(400, json={"detail": {"error": "query too long"}})
        )
        with pytest.raises(SourceError, match="query too long"):
            await tavily(tmp_path).search("q", 3)
    assert route.call_count == 1


def test_an_empty_key_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="TAVILY_API_KEY"):
        TavilySearch("  ")


async def test_a_failed_query_is_reported_while_the_other_queries_go_on(tmp_path: Path) -> None:
    def reply(request: httpx.Request) -> httpx.Response:
        if json.loads(request.content)["query"] == "broken query":
            return httpx.Response(500, text="boom")
        return httpx.Response(200, json=HITS)

    step = PlanStep(id="s01", title="Grid batteries")
    config = resolve_config(Context(), depth="light", engine="offline", sources=["tavily"])
    state = ResearcherState(
        step=step, question="q", config=config, new_queries=["broken query", "grid batteries"]
    )
    events: list[Any] = []
    runtime = Runtime(context=Context(), stream_writer=events.append)
    services = Services(sources=[tavily(tmp_path, max_attempts=2)])
    with respx.mock(base_url=BASE) as mock:
        mock.post("/search").mock(side_effect=reply)
        update = await search_sources(state, runtime, services=services)
    assert [r.url for r in update["results"]] == [
        "https://www.example.com/grid",
        "https://news.example.org/b",
    ]
    errors = [e["data"] for e in events if e["type"] == "error"]
    assert len(errors) == 1
    assert errors[0]["query"] == "broken query" and errors[0]["provider"] == "tavily"
    assert "HTTP 500" in errors[0]["error"]


def _names(kind: str) -> list[str]:
    return [p.name for p in load_sources(kind, None)]


def test_without_a_key_auto_is_the_local_corpus_and_tavily_is_refused() -> None:
    assert _names("auto") == ["local"]
    assert isinstance(load_sources("local", None)[0], LocalCorpus)
    with pytest.raises(ConfigurationError, match="TAVILY_API_KEY"):
        load_sources("local+tavily", None)


def test_a_blank_key_counts_as_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", " ")
    get_settings.cache_clear()
    assert _names("auto") == ["local"]


def test_with_a_key_auto_is_tavily_and_the_web_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-test")
    monkeypatch.setenv("DEEP_RESEARCH_TAVILY_BASE_URL", "http://127.0.0.1:9/")
    monkeypatch.setenv("DEEP_RESEARCH_TAVILY_SEARCH_DEPTH", "basic")
    monkeypatch.setenv("DEEP_RESEARCH_PAGE_CACHE_TTL", "60")
    get_settings.cache_clear()
    providers = load_sources("auto", None)
    assert [p.name for p in providers] == ["tavily", "web"]
    search, web = providers
    assert isinstance(search, TavilySearch) and isinstance(web, WebReader)
    assert search.base_url == "http://127.0.0.1:9/" and search.search_depth == "basic"
    assert search.cache is web.cache and web.cache.ttl == 60
    assert web.cache.path == get_settings().data_dir / "page_cache.sqlite"
    assert _names("local+tavily") == ["local", "tavily", "web"]
    assert load_sources("auto", None)[1] is web  # one reader per process: global fetch limits


def test_an_invalid_allowlist_is_a_configuration_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-test")
    monkeypatch.setenv("DEEP_RESEARCH_FETCH_ALLOWLIST", "10.0.0.0/99")
    get_settings.cache_clear()
    with pytest.raises(ConfigurationError, match="DEEP_RESEARCH_FETCH_ALLOWLIST"):
        load_sources("tavily", None)
