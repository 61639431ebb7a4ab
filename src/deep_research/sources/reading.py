"""Reading search results: the right provider for each, concurrently, failures as sources.

A web page (http or https) is read by the web reader when the run has one, so that every page
goes through the page cache, the SSRF guard and the same extraction whoever found it; other
results, and those of providers that read their own (``reads_own_results``: MCP servers,
whose pages may be internal), are read by the provider that found them. A read that fails becomes a
:class:`~deep_research.state.models.Source` with its crawl status (``blocked``, ``skipped``,
``failed``) and the reason, never an exception in the graph.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Mapping, Sequence

from deep_research.errors import FetchBlockedError, FetchSkippedError, SourceError
from deep_research.sources.base import SourceProvider, WorkReader
from deep_research.sources.injection import injection_flags
from deep_research.sources.scholarly.works import (
    author_from_display,
    authors_of,
    parse_date,
    year_of,
)
from deep_research.sources.web.reader import WebReader
from deep_research.state.models import (
    BibRecord,
    CrawlStatus,
    Document,
    SearchResult,
    Source,
    stable_id,
)


async def read_result(hit: SearchResult, providers: Mapping[str, SourceProvider]) -> Document:
    """Read one result with the web reader (web pages) or the provider that found it.

    Raises:
        SourceError: no provider can read it, or the read failed.
    """
    if hit.raw_content:  # a provider without a page cache delivered the text itself
        return Document(
            id=stable_id("doc", hit.raw_content), url=hit.url, title=hit.title, text=hit.raw_content
        )
    own = providers.get(hit.provider)
    if isinstance(own, WorkReader):  # a scholarly work: by identifier, other finders standing by
        readers: list[WorkReader] = []
        for name in work_readers(hit):
            provider = providers.get(name)
            if isinstance(provider, WorkReader):
                readers.append(provider)
        return await _read_work(hit, readers)
    is_web = hit.url.startswith(("http://", "https://"))
    if is_web and not getattr(own, "reads_own_results", False):
        own = providers.get(WebReader.name) or own
    if own is None:
        raise SourceError(f"no provider named {hit.provider!r} can read {hit.url}")
    return await own.read(hit.url)


def work_readers(hit: SearchResult) -> list[str]:
    """The providers that can read a scholarly work, the one that promised most text first."""
    if hit.bib is None:
        return []
    return list(dict.fromkeys([hit.provider, *hit.bib.found_by]))


async def _read_work(hit: SearchResult, readers: Sequence[WorkReader]) -> Document:
    """Read a work with the first reader that has its text; the others if that one fails.

    Raises:
        SourceError: every reader failed (the first reader's error).
    """
    failures: list[SourceError] = []
    for reader in readers:
        try:
            return await reader.read_hit(hit)
        except SourceError as exc:
            failures.append(exc)
    raise failures[0]


async def read_results(
    results: Sequence[SearchResult],
    providers: Mapping[str, SourceProvider],
    *,
    timeout: float,
) -> list[Document | Source]:
    """Read ``results`` concurrently (the fetcher bounds how many pages load at once).

    Args:
        results: The results to read.
        providers: The run's providers by name.
        timeout: Seconds allowed for each read, cache and extraction included.

    Returns:
        For each result in order, its document, or the source recording why it was not read.
    """
    outcomes = await asyncio.gather(
        *(_read_one(hit, providers, timeout) for hit in results), return_exceptions=True
    )
    read: list[Document | Source] = []
    for outcome in outcomes:
        # SourceErrors are already Sources; anything else (a rejected key, a bug) is raised,
        # unwrapped, for the node's RetryPolicy and the caller to see.
        if isinstance(outcome, BaseException):
            raise outcome
        read.append(outcome)
    return read


def interleave(ranked: Sequence[Sequence[SearchResult]]) -> list[SearchResult]:
    """Merge several providers' ranked results: the first of each, then the second of each...

    No provider's results crowd out the others' under the per-domain and per-step caps.
    Duplicates (same normalized URL) keep their first, best-ranked place, except scholarly
    works found by several providers: each provider's record is kept, for
    :func:`~deep_research.state.scholarly.merge_works` to fold into one with every
    identifier.
    """
    merged: dict[tuple[str, str], SearchResult] = {}
    for rank in range(max((len(hits) for hits in ranked), default=0)):
        for hits in ranked:
            if rank < len(hits):
                hit = hits[rank]
                merged.setdefault((hit.url, hit.provider if hit.bib else ""), hit)
    return list(merged.values())


def source_of(hit: SearchResult, document: Document) -> Source:
    """The source record of a result read successfully, flags and cache outcome included."""
    return Source(
        url=hit.url,
        title=document.title,
        provider=hit.provider,
        document_id=document.id,
        cache=document.cache,
        flags=injection_flags(document.text),
        bib=hit.bib or page_bib(document),
    )


def page_bib(document: Document) -> BibRecord | None:
    """What a web page's extraction found of its authors, date and site (``None``: nothing)."""
    raw = document.metadata.get("byline")
    try:
        found = json.loads(raw) if raw else None
    except ValueError:
        return None
    if not isinstance(found, dict):
        return None
    names = re.split(r";|\band\b", str(found.get("author") or ""))
    authors, more = authors_of(author_from_display(n) for n in names if n.strip())
    date = parse_date(found.get("date"))
    return BibRecord(
        authors=authors,
        more_authors=more,
        date=date,
        year=year_of(date),
        venue=str(found.get("site_name") or "") or None,
        venue_type="website",
    )


async def _read_one(
    hit: SearchResult, providers: Mapping[str, SourceProvider], timeout: float
) -> Document | Source:
    try:
        async with asyncio.timeout(timeout):
            return await read_result(hit, providers)
    except TimeoutError:
        return _unread(hit, "failed", f"not read within {timeout:g} s")
    except FetchBlockedError as exc:
        return _unread(hit, "blocked", str(exc))
    except FetchSkippedError as exc:
        return _unread(hit, "skipped", str(exc))
    except SourceError as exc:
        return _unread(hit, "failed", str(exc))


def _unread(hit: SearchResult, status: CrawlStatus, reason: str) -> Source:
    return Source(
        url=hit.url,
        title=hit.title,
        provider=hit.provider,
        crawl_status=status,
        reason=reason,
        bib=hit.bib,
    )
