"""SearXNG: web search through a self-hosted instance's JSON API, with no paid key.

The instance is the operator's (``DEEP_RESEARCH_SEARXNG_URL``): it is called directly, not
through the SSRF guard, since self-hosted instances usually live on a private address. The
pages it finds are ordinary web pages: the web reader (``web``) reads them through the page
cache, the guarded fetcher and the extractor, as it reads Tavily's.

* ``GET {url}/search?q=...&format=json`` with the configured engines, language and time range;
  a result needs a ``url``; ``title`` and ``content`` (the snippet) are kept, and its position
  gives the score, since SearXNG's own ``score`` is not comparable between queries.
* An instance whose ``search.formats`` lacks ``json`` (SearXNG's default) answers 403: that is
  a :class:`ConfigurationError` saying how to switch JSON on. Rate limits (429), server errors
  (5xx), timeouts and connection failures are retried with backoff, then the query fails with
  a :class:`SourceError` that the researcher reports while it goes on.
* An answer over :data:`~deep_research.sources.bounded_json.MAX_JSON_BYTES` (decoded) or JSON
  nested deeper than :data:`~deep_research.sources.bounded_json.MAX_JSON_DEPTH` fails the
  query the same way, never the run.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from typing import Any, Literal

import httpx

from deep_research.errors import ConfigurationError, SourceError
from deep_research.sources.bounded_json import MAX_JSON_BYTES, JsonLimitError, loads_bounded
from deep_research.sources.web.fetch import read_capped
from deep_research.state.models import Document, SearchResult

TimeRange = Literal["day", "week", "month", "year"]

MAX_BACKOFF_SECONDS = 20.0
"""Longest wait between two attempts."""

JSON_DISABLED = (
    "SearXNG at {url} refused JSON output (HTTP 403): add `json` to `search.formats` in the "
    "instance's settings.yml (formats: [html, json]) and restart it"
)


class SearxngSearch:
    """Search the web with a SearXNG instance; see the module docstring."""

    name = "searxng"
    """Provider name recorded on results and sources."""

    def __init__(
        self,
        url: str,
        *,
        engines: Sequence[str] = (),
        language: str | None = None,
        time_range: TimeRange | None = None,
        timeout: float = 20.0,
        max_attempts: int = 3,
        backoff: float = 0.5,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        """Configure the provider; no request is made yet.

        Args:
            url: The instance's base URL (``http://127.0.0.1:8888``); ``/search`` is appended.
            engines: SearXNG engine names to query (none: the instance's defaults).
            language: A language code (``en``, ``zh``, ``fr-FR``) or none for the default.
            time_range: Only results from the last day, week, month or year.
            timeout: Seconds for one request.
            max_attempts: Attempts per request, the first included.
            backoff: Base of the exponential backoff, in seconds.
            transport: An httpx transport (tests).

        Raises:
            ConfigurationError: the URL is not an http(s) URL.
        """
        if not url.startswith(("http://", "https://")):
            raise ConfigurationError(
                f"DEEP_RESEARCH_SEARXNG_URL must be an http(s) URL, got {url!r}"
            )
        self.url = url.rstrip("/")
        self.engines = tuple(e.strip() for e in engines if e.strip())
        self.language = language
        self.time_range = time_range
        self.timeout = timeout
        self.max_attempts = max(1, max_attempts)
        self.backoff = backoff
        self._transport = transport

    def params(self, query: str, page: int = 1) -> dict[str, str]:
        """The query string of one search request."""
        params = {"q": query, "format": "json", "pageno": str(page)}
        if self.engines:
            params["engines"] = ",".join(self.engines)
        if self.language:
            params["language"] = self.language
        if self.time_range:
            params["time_range"] = self.time_range
        return params

    async def search(self, query: str, k: int) -> list[SearchResult]:
        """Return at most ``k`` results for ``query``, best first (one page, then more).

        Raises:
            ConfigurationError: the instance has JSON output switched off.
            SourceError: the search failed after its attempts.
        """
        results: list[SearchResult] = []
        seen: set[str] = set()
        page = 1
        while len(results) < k and page <= 3:
            payload = await self._get(self.params(query, page))
            hits = payload.get("results")
            if not isinstance(hits, list) or not hits:
                break
            for hit in hits:
                result = self._result(hit, rank=len(results))
                if result is not None and result.url not in seen:
                    seen.add(result.url)
                    results.append(result)
            page += 1
        return results[:k]

    async def read(self, url: str) -> Document:
        """SearXNG finds pages; the web reader reads them.

        Raises:
            SourceError: always.
        """
        raise SourceError(f"searxng does not read pages; the web reader reads {url}")

    def _result(self, hit: Any, *, rank: int) -> SearchResult | None:
        if not isinstance(hit, dict) or not isinstance(hit.get("url"), str):
            return None
        try:
            return SearchResult(
                url=hit["url"],
                title=str(hit.get("title") or hit["url"]).strip(),
                snippet=str(hit.get("content") or "").strip(),
                score=1.0 / (1 + rank),
                provider=self.name,
            )
        except ValueError:
            return None  # not an absolute http(s) URL: not a source

    async def _get(self, params: dict[str, str]) -> dict[str, Any]:
        failure = "no attempt made"
        for attempt in range(1, self.max_attempts + 1):
            if attempt > 1:
                await asyncio.sleep(self._delay(attempt - 1))
            try:
                status, body = await self._send(params)
            except httpx.TimeoutException:
                failure = "timed out"
                continue
            except httpx.TransportError as exc:
                failure = f"cannot connect ({type(exc).__name__})"
                continue
            if status == 403:
                raise ConfigurationError(JSON_DISABLED.format(url=self.url))
            if status == 429 or status >= 500:
                failure = f"HTTP {status}"
                continue
            if status != 200:
                raise SourceError(f"SearXNG search failed: HTTP {status}")
            try:
                payload = loads_bounded(body)
            except JsonLimitError as exc:
                raise SourceError(f"SearXNG answered with unreadable JSON: {exc}") from None
            except ValueError:
                raise SourceError("SearXNG answered with something other than JSON") from None
            if not isinstance(payload, dict):
                raise SourceError("SearXNG answered with JSON that is not an object")
            return payload
        raise SourceError(f"SearXNG search failed after {self.max_attempts} attempts: {failure}")

    async def _send(self, params: dict[str, str]) -> tuple[int, bytes]:
        """One request: its status and its body (read only for a 200, within the cap)."""
        async with (
            httpx.AsyncClient(
                transport=self._transport, timeout=self.timeout, follow_redirects=False
            ) as client,
            client.stream("GET", f"{self.url}/search", params=params) as response,
        ):
            if response.status_code != 200:
                return response.status_code, b""
            url = str(response.url)
            return 200, await read_capped(response, MAX_JSON_BYTES, url)

    def _delay(self, retry: int) -> float:
        """Full jitter: uniform in [0, backoff * 2^(retry-1)], capped."""
        return random.uniform(0.0, min(MAX_BACKOFF_SECONDS, self.backoff * 2 ** (retry - 1)))
