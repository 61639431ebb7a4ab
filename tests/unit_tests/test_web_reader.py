"""Extraction, the page cache and the web reader, against a loopback server."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from deep_research.errors import FetchBlockedError, FetchSkippedError
from deep_research.sources.documents import with_pages
from deep_research.sources.web.cache import CachedPage, PageCache
from deep_research.sources.web.extract import extract_page, pdf_supported, supported_types
from deep_research.sources.web.fetch import Fetcher
from deep_research.sources.web.reader import WebReader
from deep_research.sources.web.ssrf import Allowlist, SsrfGuard
from deep_research.state import EvidenceSpan
from tests.documents import pdf_bytes, text_page
from tests.unit_tests.web_server import LocalServer, LoopbackOnlyBackend, page

NOISY_PAGE = """<!doctype html>
<html lang="en-GB"><head><title>Grid batteries | Energy Weekly</title>
<style>.nav { color: red } body { font: 12px serif }</style>
<script>window.trackingPixel = "SCRIPT-MARKER"; console.log("tracking");</script>
</head><body>
<header><div class="logo">Energy Weekly HEADER-MARKER</div></header>
<nav><ul><li><a href="/">Home NAV-MARKER</a></li><li><a href="/news">News</a></li>
<li><a href="/about">About us</a></li></ul></nav>
<main><article>
<h1>Grid batteries</h1>
<p>Grid batteries store electricity when it is cheap and release it when demand peaks,
which lets operators shave the evening peak without starting gas turbines.</p>
<h2>Costs</h2>
<p>Installed costs of four-hour systems fell by about 20 percent between 2020 and 2023,
according to a survey of more than two hundred projects across several markets.</p>
<p>Lithium iron phosphate cells now dominate new stationary projects because they are
cheaper and less prone to thermal runaway than nickel-rich chemistries.</p>
<h2>Safety</h2>
<p>Fires remain rare, but codes such as NFPA 855 require spacing, gas detection and
explosion control for large indoor installations of lithium-ion batteries.</p>
</article></main>
<aside>Related stories ASIDE-MARKER: subscribe to our newsletter for more.</aside>
<footer>Copyright 2024 Energy Weekly FOOTER-MARKER. All rights reserved.</footer>
<script>document.write("LATE-SCRIPT-MARKER")</script>
</body></html>"""


def test_html_is_reduced_to_its_article_with_headings_title_and_language() -> None:
    page_ = extract_page(NOISY_PAGE.encode(), "text/html", "utf-8")
    for marker in ("SCRIPT", "HEADER", "NAV", "ASIDE", "FOOTER", "LATE-SCRIPT", "font:"):
        assert marker not in page_.text
    assert "## Costs" in page_.text and "## Safety" in page_.text
    assert "fell by about 20 percent between 2020 and 2023" in page_.text
    assert "NFPA 855" in page_.text
    assert page_.title == "Grid batteries"
    assert page_.language == "en-GB"
    assert page_.content_type == "text/html"


def test_plain_text_has_newlines_normalized_and_control_characters_stripped() -> None:
    body = b"Title line\r\nSecond\x00 line\x07\rThird\tline\x1b\n"
    extracted = extract_page(body, "text/plain", None)
    assert extracted.text == "Title line\nSecond line\nThird\tline\n"
    assert extracted.title == "Title line"


def test_unsupported_types_and_empty_pages_are_skipped() -> None:
    with pytest.raises(FetchSkippedError, match="image/png"):
        extract_page(b"\x89PNG", "image/png")
    with pytest.raises(FetchSkippedError, match="no"):
        extract_page(b"<html><body><script>x()</script></body></html>", "text/html")


def _pdf(text: str) -> bytes:
    stream = f"BT /F1 18 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def test_pdf_text_is_extracted_when_the_parser_is_installed() -> None:
    assert pdf_supported() and "application/pdf" in supported_types()
    extracted = extract_page(_pdf("Pumped hydro stores most grid energy."), "application/pdf")
    assert "Pumped hydro stores most grid energy." in extracted.text


def test_pdf_is_skipped_with_a_reason_without_the_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pypdf", None)  # as if pypdf were not installed
    assert not pdf_supported() and "application/pdf" not in supported_types()
    with pytest.raises(FetchSkippedError, match="pypdf"):
        extract_page(_pdf("Anything."), "application/pdf")


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def server() -> Iterator[LocalServer]:
    with LocalServer("127.0.0.1", {"/article": page(NOISY_PAGE)}) as running:
        yield running


def reader(server: LocalServer, cache: PageCache) -> WebReader:
    guard = SsrfGuard(Allowlist.parse(f"127.0.0.1:{server.port}"))
    return WebReader(Fetcher(guard, network_backend=LoopbackOnlyBackend()), cache)


async def test_the_second_read_is_a_cache_hit_until_the_ttl_runs_out(
    server: LocalServer, tmp_path: Path
) -> None:
    clock = Clock()
    web = reader(server, PageCache(tmp_path / "pages.sqlite", ttl=3600, clock=clock))
    url = server.url("/article") + "?utm_source=feed#top"
    first = await web.read(url)
    second = await web.read(url)
    assert (first.cache, second.cache) == ("miss", "hit")
    assert server.requests == ["/article"]
    assert first.url == second.url == server.url("/article")
    assert first.text == second.text and first.id == second.id
    assert first.metadata["language"] == "en-GB"
    assert first.metadata["content_type"] == "text/html"
    assert first.metadata["sha256"].startswith(first.id.removeprefix("doc_"))
    clock.now += 3601
    third = await web.read(url)
    assert third.cache == "miss" and len(server.requests) == 2


async def test_a_zero_ttl_turns_the_cache_off(server: LocalServer, tmp_path: Path) -> None:
    web = reader(server, PageCache(tmp_path / "pages.sqlite", ttl=0))
    assert [(await web.read(server.url("/article"))).cache for _ in range(2)] == ["miss", "miss"]
    assert len(server.requests) == 2 and not (tmp_path / "pages.sqlite").exists()


async def test_text_a_search_provider_delivered_is_served_without_counting_as_a_hit(
    server: LocalServer, tmp_path: Path
) -> None:
    cache = PageCache(tmp_path / "pages.sqlite", ttl=3600)
    url = server.url("/article")
    await cache.put(
        CachedPage(url, "Grid", "Delivered text.", "text/markdown", None, "tavily", cache.now())
    )
    document = await reader(server, cache).read(url)
    assert document.text == "Delivered text." and document.cache is None
    assert server.requests == []


async def test_the_web_reader_refuses_other_schemes_and_does_not_search(
    server: LocalServer, tmp_path: Path
) -> None:
    web = reader(server, PageCache(tmp_path / "pages.sqlite", ttl=3600))
    with pytest.raises(FetchBlockedError, match="only http and https"):
        await web.read("file:///etc/passwd")
    assert await web.search("grid batteries", 5) == []


async def test_a_broken_cache_file_falls_back_to_the_network(
    server: LocalServer, tmp_path: Path
) -> None:
    path = tmp_path / "pages.sqlite"
    path.write_bytes(b"this is not a SQLite database" * 100)
    document = await reader(server, PageCache(path, ttl=3600)).read(server.url("/article"))
    assert document.cache == "miss" and server.requests == ["/article"]


async def test_a_fetched_pdf_reads_as_a_corpus_pdf_and_its_quotes_name_their_page(
    tmp_path: Path,
) -> None:
    """Wrapped lines joined, page starts kept through the cache, a quote on page 2 says p. 2."""
    body = pdf_bytes(
        [
            text_page("Pumped hydro stores most of the grid energy held in reserve today."),
            text_page(
                "Lithium iron phosphate packs fell below 100 dollars per kilowatt-hour in 2024,"
                " according to the annual survey of cell makers and integrators."
            ),
        ],
        title="Storage survey",
    )
    routes = {"/survey.pdf": page(body, "application/pdf")}
    with LocalServer("127.0.0.1", routes) as running:
        cache = PageCache(tmp_path / "pages.sqlite", ttl=3600)
        fetched = await reader(running, cache).read(running.url("/survey.pdf"))
        cached = await reader(running, cache).read(running.url("/survey.pdf"))
    assert (fetched.cache, cached.cache) == ("miss", "hit")
    assert fetched.title == "Storage survey"
    sentence = "Lithium iron phosphate packs fell below 100 dollars per kilowatt-hour in 2024,"
    assert sentence in fetched.text  # one line: the PDF's wrapped lines were joined
    assert fetched.metadata["pages"] == cached.metadata["pages"]
    start = cached.text.index(sentence)
    span = EvidenceSpan(
        id="ev_1",
        document_id=cached.id,
        url=cached.url,
        step_id="s1",
        quote=sentence,
        start=start,
        end=start + len(sentence),
    )
    (paged,) = with_pages([span], [cached])
    assert (paged.page_kind, paged.page) == ("page", 2)
