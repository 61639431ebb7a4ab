"""Web pages get what extraction finds of their author, date and site, up to the reference."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from deep_research.report.bibliography import vancouver
from deep_research.sources.reading import source_of
from deep_research.sources.web.cache import PageCache
from deep_research.sources.web.extract import extract_page
from deep_research.sources.web.fetch import Fetcher
from deep_research.sources.web.reader import WebReader
from deep_research.sources.web.ssrf import Allowlist, SsrfGuard
from deep_research.state import SearchResult
from tests.unit_tests.web_server import LocalServer, LoopbackOnlyBackend, page

ARTICLE = """<!doctype html>
<html lang="en"><head><title>Zinc for diarrhoea | Health Weekly</title>
<meta name="author" content="Jane Doe; John Roe">
<meta property="og:site_name" content="Health Weekly">
<meta property="article:published_time" content="2024-03-05T10:00:00Z">
</head><body><main><article><h1>Zinc for diarrhoea</h1>
<p>Zinc given with oral rehydration solution shortens acute diarrhoea in young children,
according to a trial of 480 children published last year in a paediatrics journal.</p>
<p>Health agencies have recommended zinc for children with diarrhoea for many years now,
and the new trial adds to the evidence behind that advice for low-income settings.</p>
</article></main></body></html>"""


@pytest.fixture
def server() -> Iterator[LocalServer]:
    with LocalServer("127.0.0.1", {"/zinc": page(ARTICLE)}) as running:
        yield running


def test_extraction_finds_author_date_and_site_name() -> None:
    extracted = extract_page(ARTICLE.encode(), "text/html", "utf-8")
    assert (extracted.author, extracted.date, extracted.site_name) == (
        "Jane Doe; John Roe",
        "2024-03-05",
        "Health Weekly",
    )


async def test_a_read_page_becomes_a_source_with_a_web_reference(
    server: LocalServer, tmp_path: Path
) -> None:
    guard = SsrfGuard(Allowlist.parse(f"127.0.0.1:{server.port}"))
    cache = PageCache(tmp_path / "pages.sqlite", ttl=3600)
    web = WebReader(Fetcher(guard, network_backend=LoopbackOnlyBackend()), cache)
    url = server.url("/zinc")
    first, cached = await web.read(url), await web.read(url)
    assert cached.cache == "hit" and cached.metadata["byline"] == first.metadata["byline"]
    hit = SearchResult(url=url, title="Zinc for diarrhoea", provider="tavily")
    source = source_of(hit, cached)
    assert source.bib is not None
    assert source.bib.authors == ["Doe J", "Roe J"]
    assert (source.bib.date, source.bib.year) == ("2024-03-05", 2024)
    assert (source.bib.venue, source.bib.venue_type) == ("Health Weekly", "website")
    assert vancouver(source.title, url, source.bib) == (
        f"Doe J, Roe J. Zinc for diarrhoea [Internet]. Health Weekly; 2024 Mar 5."
        f" Available from: {url}"
    )


async def test_a_cache_written_before_bylines_gains_the_column(tmp_path: Path) -> None:
    path = tmp_path / "pages.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute(
            "CREATE TABLE pages (url TEXT PRIMARY KEY, title TEXT NOT NULL, text TEXT NOT NULL,"
            " content_type TEXT NOT NULL, language TEXT, origin TEXT NOT NULL,"
            " fetched_at REAL NOT NULL)"
        )
        conn.execute(
            "INSERT INTO pages VALUES ('https://a.example/', 'A', 'Text.', 'text/plain',"
            " NULL, 'web', 1e12)"
        )
    cache = PageCache(path, ttl=3600)
    old = await cache.get("https://a.example/")
    assert old is not None and old.text == "Text." and old.byline is None
