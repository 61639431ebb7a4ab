"""Tavily web search on ``tavily-python``'s async client, enabled by ``TAVILY_API_KEY``.

* A key is required: the client's keyless mode is never used.
* The endpoint is configurable (``DEEP_RESEARCH_TAVILY_BASE_URL``) for proxies, gateways and
  local fakes. Requests go through our own httpx client (the standard proxy variables apply,
  ``TAVILY_HTTP(S)_PROXY`` do not), so that TLS settings are built once, off the event loop.
* A rejected key (401) is a :class:`ConfigurationError`. Rate limits (429), server errors
  (5xx), timeouts and connection failures are retried with exponential backoff and full
  jitter; when the attempts run out, the query fails with a :class:`SourceError`, which the
  researcher reports as a failed query while it goes on with the others.
* Page text that Tavily returns with the results (``include_raw_content``) goes into the page
  cache, not into the results, so that it never travels in graph state; the web reader then
  serves it from there.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any, Literal

import httpx
from tavily import AsyncTavilyClient
from tavily.errors import (
    BadRequestError,
    ForbiddenError,
    InvalidAPIKeyError,
    UsageLimitExceededError,
)
from tavily.errors import TimeoutError as TavilyTimeoutError

from deep_research.errors import ConfigurationError, SourceError
from deep_research.sources.html import clean_text
from deep_research.sources.web.cache import CachedPage, PageCache
from deep_research.sources.web.reader import page_document
from deep_research.sources.web.transport import default_ssl_context
from deep_research.state.models import Document, SearchResult
from deep_research.urls import normalize_url

SearchDepth = Literal["basic", "advanced", "fast", "ultra-fast"]

MAX_BACKOFF_SECONDS = 20.0
"""Longest wait between two attempts."""


class TavilySearch:
    """Search the web with Tavily."""

    name = "tavily"
    """Provider name recorded on results and sources."""

    def __init__(
        self,
        api_key: str,
        *,
        base_url: str | None = None,
        search_depth: SearchDepth = "advanced",
        include_raw_content: bool = True,
        cache: PageCache | None = None,
        timeout: float = 30.0,
        max_attempts: int = 3,
        backoff: float = 0.5,
    ) -> None:
        """Configure the provider; no request is made yet.

        Args:
            api_key: The Tavily key; required.
            base_url: Tavily's endpoint; ``None`` for Tavily's own.
            search_depth: Tavily's ``search_depth``.
            include_raw_content: Ask for page text with the results (kept only with a cache).
            cache: Where returned page text is kept for the reading step.
            timeout: Seconds for one request.
            max_attempts: Attempts per request, the first included.
            backoff: Base of the exponential backoff, in seconds.

        Raises:
            ConfigurationError: the key is empty.
        """
        if not api_key.strip():
            raise ConfigurationError("Tavily search needs an API key (TAVILY_API_KEY)")
        self._api_key = api_key
        self.base_url = base_url
        self.search_depth = search_depth
        self.cache = cache
        self.include_raw_content = include_raw_content and cache is not None and cache.enabled
        self.timeout = timeout
        self.max_attempts = max(1, max_attempts)
        self.backoff = backoff

    async def search(self, query: str, k: int) -> list[SearchResult]:
        """Return at most ``k`` results for ``query``; their page text goes to the cache.

        Raises:
            ConfigurationError: Tavily rejected the key.
            SourceError: the search failed after its attempts, or was refused.
        """
        options: dict[str, Any] = {
            "max_results": k,
            "search_depth": self.search_depth,
            "timeout": self.timeout,
        }
        if self.include_raw_content:
            options["include_raw_content"] = "markdown"
        response = await self._call("search", query=query, **options)
        results: list[SearchResult] = []
        for hit in response.get("results", []):
            if not isinstance(hit, dict):
                continue
            try:
                result = SearchResult(
                    url=hit["url"],
                    title=str(hit.get("title") or hit["url"]),
                    snippet=str(hit.get("content") or ""),
                    score=float(hit.get("score") or 0.0),
                    provider=self.name,
                )
            except (KeyError, TypeError, ValueError):
                continue  # a hit without a usable URL is not a source
            results.append(result)
            raw = hit.get("raw_content")
            if self.cache is not None and isinstance(raw, str) and raw.strip():
                await self.cache.put(
                    CachedPage(
                        url=result.url,
                        title=result.title,
                        text=clean_text(raw),
                        content_type="text/markdown",
                        language=None,
                        origin=self.name,
                        fetched_at=self.cache.now(),
                    )
                )
        return results

    async def read(self, url: str) -> Document:
        """Return the page text Tavily delivered (cached), else extract it with Tavily.

        Raises:
            ConfigurationError: Tavily rejected the key.
            SourceError: the page could not be extracted.
        """
        key = normalize_url(url)
        if self.cache is not None and (page := await self.cache.get(key)) is not None:
            return page_document(page, cache="hit" if page.origin == "web" else None)
        response = await self._call("extract", urls=[key], format="markdown")
        for item in response.get("results", []):
            text = clean_text(str(item.get("raw_content") or ""))
            if text.strip():
                page = CachedPage(key, key, text, "text/markdown", None, self.name, 0.0)
                return page_document(page, cache=None)
        raise SourceError(f"Tavily could not extract {url}")

    async def _call(self, method: str, **kwargs: Any) -> dict[str, Any]:
        ssl_context = await asyncio.to_thread(default_ssl_context)  # file I/O the first time
        failure: Exception | None = None
        for attempt in range(1, self.max_attempts + 1):
            if attempt > 1:
                await asyncio.sleep(self._delay(attempt - 1))
            try:
                async with httpx.AsyncClient(verify=ssl_context) as http:
                    client = AsyncTavilyClient(
                        api_key=self._api_key, api_base_url=self.base_url, client=http
                    )
                    response: dict[str, Any] = await getattr(client, method)(**kwargs)
                    return response
            except InvalidAPIKeyError as exc:
                raise ConfigurationError(
                    "Tavily rejected the API key (HTTP 401): check TAVILY_API_KEY"
                ) from exc
            except (BadRequestError, ForbiddenError) as exc:
                raise SourceError(f"Tavily refused the {method} request: {exc}") from exc
            except (UsageLimitExceededError, TavilyTimeoutError, httpx.TransportError) as exc:
                failure = exc
            except (ValueError, RecursionError) as exc:  # its client parses the JSON, unbounded
                raise SourceError(
                    f"Tavily answered the {method} request with unreadable JSON"
                ) from exc
            except httpx.HTTPStatusError as exc:
                if exc.response.status_code < 500:
                    raise SourceError(f"Tavily {method} failed: {exc}") from exc
                failure = exc
        raise SourceError(
            f"Tavily {method} failed after {self.max_attempts} attempts: {_describe(failure)}"
        ) from failure

    def _delay(self, retry: int) -> float:
        """Full jitter: uniform in [0, backoff * 2^(retry-1)], capped."""
        return random.uniform(0.0, min(MAX_BACKOFF_SECONDS, self.backoff * 2 ** (retry - 1)))


def _describe(error: Exception | None) -> str:
    if isinstance(error, UsageLimitExceededError):
        return "rate limited (HTTP 429)"
    if isinstance(error, httpx.HTTPStatusError):
        return f"HTTP {error.response.status_code}"
    if isinstance(error, TavilyTimeoutError | httpx.TimeoutException):
        return "timed out"
    return str(error) or type(error).__name__
