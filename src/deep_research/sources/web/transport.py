"""An httpx transport whose connections go only to addresses the SSRF guard approved.

httpx opens connections through httpcore's network backend. :class:`GuardedBackend` sits in
that seat: asked to connect to ``host:port``, it resolves the host once, checks every address
with :meth:`SsrfGuard.addresses`, and connects to a checked *address* rather than to the
name, so the answer checked is the answer used (no window for DNS rebinding). TLS still
verifies the certificate against the host name, which httpcore passes separately.

:class:`GuardedTransport` is httpx's own default transport rebuilt on public httpcore API with
that backend. It honours no proxy settings: a proxy would connect on our behalf to addresses
the guard never saw.
"""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from contextlib import contextmanager
from functools import lru_cache

import httpcore
import httpx

from deep_research.errors import FetchBlockedError
from deep_research.sources.web.ssrf import SsrfGuard

_ERRORS: tuple[tuple[type[Exception], type[httpx.TransportError]], ...] = (
    # Most specific first: the first match wins.
    (httpcore.ConnectTimeout, httpx.ConnectTimeout),
    (httpcore.ReadTimeout, httpx.ReadTimeout),
    (httpcore.WriteTimeout, httpx.WriteTimeout),
    (httpcore.PoolTimeout, httpx.PoolTimeout),
    (httpcore.TimeoutException, httpx.TimeoutException),
    (httpcore.ConnectError, httpx.ConnectError),
    (httpcore.ReadError, httpx.ReadError),
    (httpcore.WriteError, httpx.WriteError),
    (httpcore.NetworkError, httpx.NetworkError),
    (httpcore.UnsupportedProtocol, httpx.UnsupportedProtocol),
    (httpcore.LocalProtocolError, httpx.LocalProtocolError),
    (httpcore.RemoteProtocolError, httpx.RemoteProtocolError),
    (httpcore.ProtocolError, httpx.ProtocolError),
)


@lru_cache(maxsize=1)
def default_ssl_context() -> ssl.SSLContext:
    """The default TLS settings of httpx (certifi's CA bundle), built once per process.

    Building it reads the CA bundle from disk: async code calls this through
    ``asyncio.to_thread``.
    """
    return httpx.create_ssl_context()


@contextmanager
def _httpx_errors(request: httpx.Request) -> Iterator[None]:
    """Re-raise httpcore's transport errors as the matching httpx errors."""
    try:
        yield
    except (
        httpcore.TimeoutException,
        httpcore.NetworkError,
        httpcore.ProtocolError,
        httpcore.UnsupportedProtocol,
    ) as exc:
        for core, mapped in _ERRORS:
            if isinstance(exc, core):
                raise mapped(str(exc), request=request) from exc
        raise


class GuardedBackend(httpcore.AsyncNetworkBackend):
    """A network backend that connects only to addresses the guard has checked."""

    def __init__(self, guard: SsrfGuard, inner: httpcore.AsyncNetworkBackend | None = None) -> None:
        """Wrap ``inner`` (httpcore's AnyIO backend by default) with ``guard``."""
        self._guard = guard
        self._inner = inner or httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        """Resolve and check ``host``, then connect to the first checked address that answers.

        Raises:
            FetchBlockedError: an address of the host is refused; nothing was sent.
            SourceError: the host does not resolve.
        """
        addresses = await self._guard.addresses(host, port)
        failure: httpcore.ConnectError | httpcore.ConnectTimeout | None = None
        for address in addresses:
            try:
                return await self._inner.connect_tcp(
                    str(address),
                    port,
                    timeout=timeout,
                    local_address=local_address,
                    socket_options=socket_options,
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                failure = exc
        assert failure is not None, "addresses() returns at least one address"
        raise failure

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        """Refuse: pages are fetched over TCP only."""
        raise FetchBlockedError(f"refused a Unix socket connection to {path}")

    async def sleep(self, seconds: float) -> None:
        """Sleep with the inner backend."""
        await self._inner.sleep(seconds)


class _ResponseStream(httpx.AsyncByteStream):
    def __init__(self, stream: AsyncIterable[bytes], request: httpx.Request) -> None:
        self._stream = stream
        self._request = request

    async def __aiter__(self) -> AsyncIterator[bytes]:
        with _httpx_errors(self._request):
            async for part in self._stream:
                yield part

    async def aclose(self) -> None:
        close = getattr(self._stream, "aclose", None)
        if close is not None:
            await close()


class GuardedTransport(httpx.AsyncBaseTransport):
    """httpx's HTTP/1.1 transport over a :class:`GuardedBackend`; no proxies."""

    def __init__(
        self,
        guard: SsrfGuard,
        *,
        ssl_context: ssl.SSLContext | None = None,
        network_backend: httpcore.AsyncNetworkBackend | None = None,
        max_connections: int = 10,
    ) -> None:
        """Create the connection pool.

        Args:
            guard: The SSRF guard every new connection goes through.
            ssl_context: TLS settings; :func:`default_ssl_context` when ``None``.
            network_backend: What actually opens sockets (tests pass a loopback-only one).
            max_connections: Connections the pool may hold open.
        """
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=ssl_context or default_ssl_context(),
            max_connections=max_connections,
            max_keepalive_connections=max_connections,
            keepalive_expiry=5.0,
            http1=True,
            http2=False,
            retries=0,
            network_backend=GuardedBackend(guard, network_backend),
        )

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Send ``request`` through the guarded pool."""
        assert isinstance(request.stream, httpx.AsyncByteStream)
        core_request = httpcore.Request(
            method=request.method,
            url=httpcore.URL(
                scheme=request.url.raw_scheme,
                host=request.url.raw_host,
                port=request.url.port,
                target=request.url.raw_path,
            ),
            headers=request.headers.raw,
            content=request.stream,
            extensions=request.extensions,
        )
        with _httpx_errors(request):
            response = await self._pool.handle_async_request(core_request)
        assert isinstance(response.stream, AsyncIterable)
        return httpx.Response(
            status_code=response.status,
            headers=response.headers,
            stream=_ResponseStream(response.stream, request),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        """Close every pooled connection."""
        await self._pool.aclose()
