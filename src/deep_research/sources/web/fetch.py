"""Fetch web pages with httpx, safely and within limits.

* Every connection goes through the SSRF guard (:mod:`deep_research.sources.web.transport`);
  every hop's URL is checked before it is requested.
* Redirects are followed by hand, at most :data:`MAX_REDIRECTS`, each target checked again.
* Connect and read timeouts; a byte cap enforced while streaming (a declared length over the
  cap is refused before the body is read); the body is requested uncompressed, so the cap
  bounds what is held in memory.
* Only supported content types are read (HTML, text, PDF when its parser is installed; see
  :func:`~deep_research.sources.web.extract.supported_types`); others are skipped with a reason.
* A global limit on pages fetched at once, and a per-domain one.
"""

from __future__ import annotations

import asyncio
import weakref
import zlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from urllib.parse import urljoin

import httpcore
import httpx

from deep_research.errors import FetchSkippedError, SourceError
from deep_research.sources.web.extract import supported_types
from deep_research.sources.web.ssrf import SsrfGuard
from deep_research.sources.web.transport import GuardedTransport, default_ssl_context
from deep_research.urls import domain_of

MAX_REDIRECTS = 5
"""Redirects followed from one requested URL."""

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})

USER_AGENT = "deep-research/0.1 (research agent)"


@dataclass(frozen=True, slots=True)
class FetchLimits:
    """How long, how much and how many at once."""

    connect_timeout: float = 5.0
    """Seconds to connect."""
    read_timeout: float = 15.0
    """Seconds between two reads."""
    max_bytes: int = 5 * 1024 * 1024
    """Largest body read."""
    concurrency: int = 8
    """Pages fetched at once by this fetcher."""
    per_domain: int = 2
    """Pages fetched at once from one domain."""
    max_redirects: int = MAX_REDIRECTS
    user_agent: str = USER_AGENT


@dataclass(frozen=True, slots=True)
class FetchedPage:
    """A page body as received."""

    url: str
    """The URL asked for."""
    final_url: str
    """The URL the body came from, after redirects."""
    content_type: str
    """Media type, lower-case, without parameters."""
    charset: str | None
    body: bytes


@dataclass(slots=True)
class _Gates:
    total: asyncio.Semaphore
    per_domain: int
    domains: dict[str, asyncio.Semaphore] = field(default_factory=dict)

    def domain(self, name: str) -> asyncio.Semaphore:
        return self.domains.setdefault(name, asyncio.Semaphore(self.per_domain))


class Fetcher:
    """Fetches pages through the SSRF guard. Safe to share across tasks and event loops."""

    def __init__(
        self,
        guard: SsrfGuard,
        limits: FetchLimits | None = None,
        *,
        network_backend: httpcore.AsyncNetworkBackend | None = None,
    ) -> None:
        """Create a fetcher.

        Args:
            guard: Checks URLs and the addresses connected to.
            limits: Timeouts, byte cap and concurrency; the defaults otherwise.
            network_backend: What opens sockets under the guard (tests pass their own).
        """
        self.guard = guard
        self.limits = limits or FetchLimits()
        self._backend = network_backend
        self._types = supported_types()
        # Semaphores belong to one event loop; a fetcher may outlive a loop (``asyncio.run``).
        self._gates: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Gates] = (
            weakref.WeakKeyDictionary()
        )

    async def fetch(self, url: str) -> FetchedPage:
        """Fetch ``url``, following redirects.

        Raises:
            FetchBlockedError: the guard refused the URL or a redirect target.
            FetchSkippedError: the content type is not supported or the body is over the cap.
            SourceError: the fetch failed (timeout, connection, HTTP error, too many redirects).
        """
        self.guard.check_url(url)
        ssl_context = await asyncio.to_thread(default_ssl_context)  # file I/O the first time
        limits = self.limits
        timeout = httpx.Timeout(
            connect=limits.connect_timeout,
            read=limits.read_timeout,
            write=limits.read_timeout,
            pool=limits.connect_timeout,
        )
        async with (
            self._slot(domain_of(url)),
            httpx.AsyncClient(
                transport=GuardedTransport(
                    self.guard, ssl_context=ssl_context, network_backend=self._backend
                ),
                timeout=timeout,
                follow_redirects=False,
                trust_env=False,
                headers={"User-Agent": limits.user_agent, "Accept-Encoding": "identity"},
            ) as client,
        ):
            try:
                return await self._follow(client, url)
            except httpx.TimeoutException as exc:
                raise SourceError(f"timed out fetching {url}: {type(exc).__name__}") from exc
            except (httpx.HTTPError, httpx.InvalidURL) as exc:
                raise SourceError(f"could not fetch {url}: {exc}") from exc

    async def _follow(self, client: httpx.AsyncClient, url: str) -> FetchedPage:
        current = url
        for _ in range(self.limits.max_redirects + 1):
            self.guard.check_url(current)
            async with client.stream("GET", current) as response:
                location = response.headers.get("location")
                if response.status_code in REDIRECT_STATUSES and location:
                    current = urljoin(current, location)
                    continue
                return await self._accept(url, current, response)
        raise SourceError(f"more than {self.limits.max_redirects} redirects from {url}")

    async def _accept(self, url: str, current: str, response: httpx.Response) -> FetchedPage:
        if not 200 <= response.status_code < 300:
            raise SourceError(f"HTTP {response.status_code} from {current}")
        header = response.headers.get("content-type", "")
        media_type = header.split(";", 1)[0].strip().lower()
        if media_type not in self._types:
            raise FetchSkippedError(
                f"content type {media_type or '(none)'} of {current} is not supported"
            )
        cap = self.limits.max_bytes
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > cap:
            raise FetchSkippedError(f"{current} declares {declared} bytes, over the {cap}-byte cap")
        body = await read_capped(response, cap, current)
        return FetchedPage(
            url=url,
            final_url=current,
            content_type=media_type,
            charset=response.charset_encoding,
            body=body,
        )

    @asynccontextmanager
    async def _slot(self, domain: str) -> AsyncIterator[None]:
        loop = asyncio.get_running_loop()
        gates = self._gates.get(loop)
        if gates is None:
            gates = _Gates(asyncio.Semaphore(self.limits.concurrency), self.limits.per_domain)
            self._gates[loop] = gates
        # The domain first: a task waiting for a busy domain must not hold a global slot.
        async with gates.domain(domain), gates.total:
            yield


def _decoder(encoding: str, url: str) -> zlib._Decompress | None:
    """A zlib decompressor for ``Content-Encoding: encoding``; ``None`` for identity."""
    if encoding in ("", "identity"):
        return None
    if encoding in ("gzip", "x-gzip"):
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    if encoding == "deflate":
        return zlib.decompressobj()
    raise FetchSkippedError(f"content encoding {encoding!r} of {url} is not supported")


async def read_capped(response: httpx.Response, cap: int, url: str) -> bytes:
    """The response body, decoded, stopping as soon as it passes ``cap`` bytes.

    Compressed bodies are decoded here, at most ``cap + 1`` bytes at a time, so that a small
    compressed body that inflates to gigabytes (a decompression bomb) costs no more memory
    than the cap: httpx's own decoder would inflate each received chunk whole.

    Raises:
        FetchSkippedError: the decoded body is larger than ``cap``, or its encoding unknown.
        SourceError: the compressed body is corrupt.
    """
    if response.is_stream_consumed:  # a response built with its body (httpx.MockTransport)
        if len(response.content) > cap:
            raise FetchSkippedError(f"{url} is larger than the {cap}-byte cap")
        return response.content
    decoder = _decoder(response.headers.get("content-encoding", "").strip().lower(), url)
    body = bytearray()
    try:
        async for raw in response.aiter_raw():
            pending = raw
            while pending:
                if decoder is None:
                    body.extend(pending)
                    pending = b""
                else:
                    body.extend(decoder.decompress(pending, cap + 1 - len(body)))
                    pending = decoder.unconsumed_tail
                if len(body) > cap:
                    raise FetchSkippedError(f"{url} is larger than the {cap}-byte cap")
        if decoder is not None:
            body.extend(decoder.flush(cap + 1 - len(body)))
    except zlib.error as exc:
        raise SourceError(f"the compressed body of {url} is corrupt: {exc}") from exc
    if len(body) > cap:
        raise FetchSkippedError(f"{url} is larger than the {cap}-byte cap")
    return bytes(body)
