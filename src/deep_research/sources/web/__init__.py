"""The web reader: fetch a page safely and extract its text.

``reader.py`` reads search results' pages; ``fetch.py`` fetches them (redirects, size caps);
``transport.py`` connects only to addresses ``ssrf.py`` (the SSRF guard) allows; ``extract.py``
turns HTML, text and PDF into text; ``cache.py`` keeps pages read before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from deep_research._exports import lazy_exports

if TYPE_CHECKING:
    from deep_research.sources.web.cache import PageCache
    from deep_research.sources.web.extract import extract_page
    from deep_research.sources.web.fetch import Fetcher, FetchLimits
    from deep_research.sources.web.reader import WebConfig, WebReader, web_reader
    from deep_research.sources.web.ssrf import SsrfGuard
    from deep_research.sources.web.transport import GuardedTransport

__all__ = [
    "FetchLimits",
    "Fetcher",
    "GuardedTransport",
    "PageCache",
    "SsrfGuard",
    "WebConfig",
    "WebReader",
    "extract_page",
    "web_reader",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "WebReader": "deep_research.sources.web.reader",
        "WebConfig": "deep_research.sources.web.reader",
        "web_reader": "deep_research.sources.web.reader",
        "Fetcher": "deep_research.sources.web.fetch",
        "FetchLimits": "deep_research.sources.web.fetch",
        "SsrfGuard": "deep_research.sources.web.ssrf",
        "GuardedTransport": "deep_research.sources.web.transport",
        "extract_page": "deep_research.sources.web.extract",
        "PageCache": "deep_research.sources.web.cache",
    },
)
