"""The web reader: http(s) pages through the page cache, the guarded fetcher and extraction.

It is the provider named ``web``. It cannot search; it reads the URLs other providers found
(Tavily results, for instance), so that every web page is read the same way: from the page
cache when a fresh copy is there, otherwise fetched under the SSRF guard and extracted.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path

from deep_research.errors import FetchBlockedError
from deep_research.settings import Settings
from deep_research.sources.html import ExtractedPage
from deep_research.sources.web.cache import CachedPage, PageCache
from deep_research.sources.web.extract import extract_page
from deep_research.sources.web.fetch import Fetcher, FetchLimits
from deep_research.sources.web.ssrf import WEB_SCHEMES, Allowlist, SsrfGuard
from deep_research.state.models import CacheStatus, Document, SearchResult
from deep_research.urls import normalize_url

PAGE_CACHE_FILE = "page_cache.sqlite"
"""File name of the page cache inside the data directory."""


def page_document(
    page: CachedPage, *, cache: CacheStatus | None, final_url: str | None = None
) -> Document:
    """The :class:`Document` for a cached or freshly extracted page."""
    digest = hashlib.sha256(page.text.encode()).hexdigest()
    metadata = {
        "title": page.title,
        "content_type": page.content_type,
        "sha256": digest,
        "origin": page.origin,
        "fetched_at": datetime.fromtimestamp(page.fetched_at, UTC).isoformat(),
    }
    if page.language:
        metadata["language"] = page.language
    if page.byline:
        metadata["byline"] = page.byline
    if page.pages:
        metadata["pages"] = page.pages  # a PDF's page map: its quotes name their page
    if final_url and final_url != page.url:
        metadata["final_url"] = final_url
    return Document(
        id=f"doc_{digest[:16]}",
        url=page.url,
        title=page.title,
        text=page.text,
        content_type=page.content_type,
        metadata=metadata,
        cache=cache,
    )


def byline_of(page: ExtractedPage) -> str | None:
    """The author, date and site name extraction found, as JSON (``None``: nothing found)."""
    found = {"author": page.author, "date": page.date, "site_name": page.site_name}
    kept = {key: value for key, value in found.items() if value}
    return json.dumps(kept, ensure_ascii=False, sort_keys=True) if kept else None


class WebReader:
    """Reads web pages; see the module docstring."""

    name = "web"
    """Provider name recorded on config and sources."""

    def __init__(self, fetcher: Fetcher, cache: PageCache) -> None:
        """Read through ``cache`` and fetch misses with ``fetcher``."""
        self.fetcher = fetcher
        self.cache = cache

    async def search(self, query: str, k: int) -> list[SearchResult]:
        """The web reader does not search: it returns no results."""
        return []

    async def read(self, url: str) -> Document:
        """Return the page at ``url``, from the cache when fresh, else fetched and extracted.

        A page whose text a search provider delivered is served from the cache without
        counting as a cache hit (its ``cache`` is ``None``).

        Raises:
            FetchBlockedError: the URL is not http(s) or the SSRF guard refused it.
            FetchSkippedError: unsupported type, over the byte cap, or no readable text.
            SourceError: the fetch or the extraction failed.
        """
        try:
            key = normalize_url(url)
        except ValueError as exc:
            raise FetchBlockedError(f"refused {url!r}: {exc}") from None
        if key.split(":", 1)[0] not in WEB_SCHEMES:
            raise FetchBlockedError(f"refused {url!r}: only http and https URLs are fetched")
        cached = await self.cache.get(key)
        if cached is not None:
            return page_document(cached, cache="hit" if cached.origin == "web" else None)
        fetched = await self.fetcher.fetch(key)
        extracted = await asyncio.to_thread(
            extract_page, fetched.body, fetched.content_type, fetched.charset
        )
        page = CachedPage(
            url=key,
            title=extracted.title or key,
            text=extracted.text,
            content_type=extracted.content_type,
            language=extracted.language,
            origin="web",
            fetched_at=self.cache.now(),
            byline=byline_of(extracted),
            pages=extracted.pages,
        )
        await self.cache.put(page)
        return page_document(page, cache="miss", final_url=fetched.final_url)


@dataclass(frozen=True, slots=True)
class WebConfig:
    """The settings a web reader is built from (hashable, so readers can be shared)."""

    allowlist: str
    limits: FetchLimits
    cache_path: Path
    cache_ttl: float

    @classmethod
    def from_settings(cls, settings: Settings) -> WebConfig:
        """Take the fetch and cache settings of the process."""
        return cls(
            allowlist=settings.fetch_allowlist,
            limits=FetchLimits(
                connect_timeout=settings.fetch_connect_timeout,
                read_timeout=settings.fetch_read_timeout,
                max_bytes=settings.fetch_max_bytes,
                concurrency=settings.fetch_concurrency,
                per_domain=settings.fetch_per_domain,
            ),
            cache_path=page_cache_path(settings),
            cache_ttl=settings.page_cache_ttl,
        )


def page_cache_path(settings: Settings) -> Path:
    """Where the page cache lives: ``<data_dir>/page_cache.sqlite``."""
    return settings.data_dir.expanduser() / PAGE_CACHE_FILE


@lru_cache(maxsize=4)
def web_reader(config: WebConfig) -> WebReader:
    """The web reader for ``config``, one per process, so that its fetch limits are global.

    Raises:
        ConfigurationError: the allow-list does not parse.
    """
    guard = SsrfGuard(Allowlist.parse(config.allowlist))
    return WebReader(Fetcher(guard, config.limits), PageCache(config.cache_path, config.cache_ttl))
