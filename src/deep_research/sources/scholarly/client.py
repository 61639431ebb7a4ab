"""The HTTP side shared by the scholarly APIs: rate limits, retries, ``Retry-After``.

Each provider holds one :class:`ApiClient` for its API. A request waits for its turn under the
API's rate limit (:class:`RateLimiter`: NCBI allows 3 requests a second without a key and 10
with one), then is sent. Rate limiting (429, whose ``Retry-After`` is honoured up to a cap),
server errors (5xx), timeouts and connection failures are retried with exponential backoff
and full jitter; when the attempts run out the request fails with a :class:`SourceError`,
which the researcher reports as an ``error`` event while the other providers go on. Other
4xx answers fail at once: asking again would not help.

The APIs are public services called directly (they are the operator's choice of endpoint, as
SearXNG's URL is), not through the SSRF guard that protects page fetches. Redirects are
followed here, at most :data:`MAX_REDIRECTS`: one that leaves the API's origin goes through the
SSRF guard (no loopback, private, link-local or metadata address, checked when resolved and
again when connected). A body is read at most :data:`MAX_RESPONSE_BYTES` decoded, and JSON
deeper than :data:`~deep_research.sources.bounded_json.MAX_JSON_DEPTH` is refused: either fails
the request, as one failed source.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from deep_research.errors import SourceError
from deep_research.sources.bounded_json import JsonLimitError, loads_bounded
from deep_research.sources.web.fetch import read_capped
from deep_research.sources.web.ssrf import SsrfGuard
from deep_research.sources.web.transport import GuardedTransport, default_ssl_context

MAX_BACKOFF_SECONDS = 20.0
"""Longest wait between two attempts, ``Retry-After`` included."""

MAX_REDIRECTS = 5
"""Redirects followed for one request."""

MAX_RESPONSE_BYTES = 16 * 1024 * 1024
"""Largest answer accepted, decoded (a page of results is well under 1 MiB)."""

USER_AGENT = "deep-research (scholarly sources)"
"""Sent with every request, so that the APIs can tell this client apart."""

Sleep = Callable[[float], Awaitable[None]]


class RateLimiter:
    """At most ``per_second`` requests a second from this process, spaced evenly.

    It holds no lock, so it belongs to no event loop: a slot is claimed synchronously (no
    ``await`` between reading and moving the next free slot), then waited for.
    """

    def __init__(self, per_second: float, *, clock: Callable[[], float] = time.monotonic) -> None:
        """Allow ``per_second`` requests a second (``0`` or less: no limit)."""
        self.interval = 1.0 / per_second if per_second > 0 else 0.0
        self._clock = clock
        self._next = 0.0

    def claim(self) -> float:
        """Claim the next slot; returns the seconds to wait before using it."""
        now = self._clock()
        slot = max(now, self._next)
        self._next = slot + self.interval
        return slot - now

    async def wait(self, sleep: Sleep = asyncio.sleep) -> None:
        """Wait for this request's turn."""
        delay = self.claim()
        if delay > 0:
            await sleep(delay)


def retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Seconds a ``Retry-After`` header asks to wait (delta-seconds or an HTTP date).

    Returns ``None`` when the header is absent or unreadable.
    """
    if not value:
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


class ApiClient:
    """GET requests to one API, under its rate limit, with retries (see the module docstring)."""

    def __init__(
        self,
        label: str,
        base_url: str,
        *,
        timeout: float = 20.0,
        max_attempts: int = 3,
        backoff: float = 0.5,
        limiter: RateLimiter | None = None,
        headers: Mapping[str, str] | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Sleep = asyncio.sleep,
        guard: SsrfGuard | None = None,
        max_bytes: int = MAX_RESPONSE_BYTES,
    ) -> None:
        """Configure the client; no request is made yet.

        Args:
            label: The API's name in error messages (``PubMed``).
            base_url: The API's base URL; request paths are appended to it.
            timeout: Seconds for one request.
            max_attempts: Attempts per request, the first included.
            backoff: Base of the exponential backoff, in seconds.
            limiter: The API's rate limiter (none: no limit).
            headers: Headers sent with every request.
            transport: An httpx transport (tests fake the API with one).
            sleep: How to wait (tests record the waits instead).
            guard: The SSRF guard of redirects away from ``base_url`` (none: the default one).
            max_bytes: Largest body accepted, decoded; a larger one fails the request.
        """
        self.label = label
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.max_attempts = max(1, max_attempts)
        self.backoff = backoff
        self.limiter = limiter or RateLimiter(0)
        self.headers = {"User-Agent": USER_AGENT, **(headers or {})}
        self._transport = transport
        self._sleep = sleep
        self.guard = guard or SsrfGuard()
        self.max_bytes = max_bytes

    async def get_json(self, path: str, params: Mapping[str, str] | None = None) -> Any:
        """GET ``path`` and decode its JSON.

        Raises:
            SourceError: the request failed after its attempts, or the answer is not JSON.
        """
        response = await self.get(path, params)
        try:
            return loads_bounded(response.content)
        except JsonLimitError as exc:
            raise SourceError(f"{self.label} answered {path} with unreadable JSON: {exc}") from None
        except ValueError:
            raise SourceError(
                f"{self.label} answered {path} with something other than JSON"
            ) from None

    async def get_text(self, path: str, params: Mapping[str, str] | None = None) -> str:
        """GET ``path`` and return its body as text.

        Raises:
            SourceError: the request failed after its attempts.
        """
        return (await self.get(path, params)).text

    async def get(self, path: str, params: Mapping[str, str] | None = None) -> httpx.Response:
        """GET ``path`` (appended to the base URL), retried as the module docstring says.

        Raises:
            SourceError: a 4xx answer other than 429, or every attempt failed.
        """
        url = f"{self.base_url}/{path.lstrip('/')}"
        failure = "no attempt made"
        wait = 0.0
        for attempt in range(1, self.max_attempts + 1):
            if attempt > 1:
                await self._sleep(wait)
            await self.limiter.wait(self._sleep)
            try:
                response = await self._send(url, params)
            except httpx.TimeoutException:
                failure, wait = "timed out", self._delay(attempt)
                continue
            except httpx.TransportError as exc:
                failure, wait = f"cannot connect ({type(exc).__name__})", self._delay(attempt)
                continue
            status = response.status_code
            if status == 429 or status >= 500:
                failure = f"HTTP {status}" + (" (rate limited)" if status == 429 else "")
                asked = retry_after(response.headers.get("Retry-After"))
                wait = self._delay(attempt) if asked is None else min(MAX_BACKOFF_SECONDS, asked)
                continue
            if status != 200:
                raise SourceError(f"{self.label} request {path} failed: HTTP {status}")
            return response
        raise SourceError(
            f"{self.label} request {path} failed after {self.max_attempts} attempts: {failure}"
        )

    async def _send(self, url: str, params: Mapping[str, str] | None) -> httpx.Response:
        """GET ``url``, following redirects ourselves, with the body read within the cap."""
        verify: Any = True
        if self._transport is None:  # reading the CA bundle touches the disk
            verify = await asyncio.to_thread(default_ssl_context)
        query: dict[str, str] | None = dict(params or {})
        for _ in range(MAX_REDIRECTS + 1):
            guarded = _origin(url) != _origin(self.base_url)
            if guarded:  # a redirect away from the API: only to a public address
                host, port = self.guard.check_url(url)
                await self.guard.addresses(host, port)
            transport = self._transport
            if transport is None and guarded:  # the addresses connected to are checked too
                transport = GuardedTransport(self.guard, ssl_context=verify)
            async with (
                httpx.AsyncClient(
                    transport=transport,
                    timeout=self.timeout,
                    follow_redirects=False,
                    headers=self.headers,
                    verify=verify,
                ) as client,
                client.stream("GET", url, params=query) as response,
            ):
                location = response.headers.get("location")
                if response.is_redirect and location:
                    url, query = str(response.url.join(location)), None
                    continue
                body = await read_capped(response, self.max_bytes, url)
                headers = {
                    k: v
                    for k, v in response.headers.items()
                    if k.lower() not in ("content-encoding", "content-length", "transfer-encoding")
                }
                return httpx.Response(
                    response.status_code, headers=headers, content=body, request=response.request
                )
        raise SourceError(f"{self.label} redirected more than {MAX_REDIRECTS} times")

    def _delay(self, retry: int) -> float:
        """Full jitter: uniform in [0, backoff * 2^(retry-1)], capped."""
        return random.uniform(0.0, min(MAX_BACKOFF_SECONDS, self.backoff * 2 ** (retry - 1)))


def _origin(url: str) -> tuple[str, str, int | None]:
    """A URL's scheme, host and port (the default port made explicit)."""
    parsed = httpx.URL(url)
    return parsed.scheme, parsed.host, parsed.port or (443 if parsed.scheme == "https" else 80)
