"""Loopback HTTP servers and a loopback-only network backend for the web tests.

Safety rule of these tests: no packet may go to a non-loopback address, even if the SSRF guard
is broken. Servers bind to loopback addresses only, and every fetcher under test opens its
sockets through :class:`LoopbackOnlyBackend`, which refuses (and records) any other address.
"""

from __future__ import annotations

import json
import socket
import socketserver
import threading
import time
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from ipaddress import ip_address
from types import TracebackType
from typing import Any

import httpcore

Handler = BaseHTTPRequestHandler
Route = Callable[[Handler], None]


class LoopbackOnlyBackend(httpcore.AsyncNetworkBackend):
    """Opens real sockets to loopback addresses only; anything else is refused and recorded."""

    def __init__(self) -> None:
        self.inner = httpcore.AnyIOBackend()
        self.connected: list[tuple[str, int]] = []
        self.refused: list[tuple[str, int]] = []

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        try:
            loopback = ip_address(host).is_loopback
        except ValueError:
            loopback = False  # a name: the guard must have handed over an address
        if not loopback:
            self.refused.append((host, port))
            raise httpcore.ConnectError(f"test backend refuses non-loopback {host}:{port}")
        self.connected.append((host, port))
        return await self.inner.connect_tcp(
            host, port, timeout=timeout, local_address=local_address, socket_options=socket_options
        )

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Any = None
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("test backend refuses unix sockets")

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    app: LocalServer

    def server_bind(self) -> None:
        # HTTPServer.server_bind calls socket.getfqdn, a reverse DNS query: skip it.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = "localhost", self.server_address[1]


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    request_body: bytes = b""

    def _dispatch(self) -> None:
        app = self.server.app
        self.request_body = app.record(self)
        try:
            app.route_for(self.path)(self)
        except (BrokenPipeError, ConnectionResetError):
            app.aborted.set()
        finally:
            app.done()

    do_GET = _dispatch
    do_POST = _dispatch

    def log_message(self, format: str, *args: Any) -> None:
        return None


class LocalServer:
    """An HTTP server on a loopback address, in a thread, with routes by path."""

    def __init__(self, host: str = "127.0.0.1", routes: dict[str, Route] | None = None) -> None:
        assert ip_address(host).is_loopback, "test servers bind loopback addresses only"
        self.host = host
        self.routes: dict[str, Route] = dict(routes or {})
        self.requests: list[str] = []
        self.bodies: list[bytes] = []
        self.headers: list[dict[str, str]] = []
        self.aborted = threading.Event()
        """Set when a client went away while the server was still writing."""
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        server_class = type(
            "_BoundServer",
            (_Server,),
            {"address_family": socket.AF_INET6 if ":" in host else socket.AF_INET},
        )
        self._server = server_class((host, 0), _Handler)
        self._server.app = self
        self.port: int = self._server.server_address[1]
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def url(self, path: str = "/") -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}{path}"

    def route_for(self, path: str) -> Route:
        return self.routes.get(path.split("?", 1)[0], not_found)

    def record(self, handler: Handler) -> bytes:
        length = int(handler.headers.get("content-length") or 0)
        body = handler.rfile.read(length) if length else b""
        with self._lock:
            self.requests.append(handler.path)
            self.bodies.append(body)
            self.headers.append({k.lower(): v for k, v in handler.headers.items()})
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        return body

    def done(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def __enter__(self) -> LocalServer:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def respond(
    handler: Handler,
    body: bytes,
    *,
    status: int = 200,
    content_type: str = "text/html; charset=utf-8",
    headers: dict[str, str] | None = None,
) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(body)))
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(body)


def page(body: str | bytes, content_type: str = "text/html; charset=utf-8") -> Route:
    data = body.encode() if isinstance(body, str) else body
    return lambda handler: respond(handler, data, content_type=content_type)


def redirect(location: str, status: int = 302) -> Route:
    return lambda handler: respond(
        handler, b"", status=status, content_type="text/plain", headers={"Location": location}
    )


def not_found(handler: Handler) -> None:
    respond(handler, b"not found", status=404, content_type="text/plain")


def slow(delay: float) -> Route:
    def route(handler: Handler) -> None:
        time.sleep(delay)
        respond(handler, b"<p>late</p>")

    return route


def endless(total: int, *, declare: bool, chunk: int = 64 * 1024) -> tuple[Route, list[int]]:
    """A body of ``total`` bytes written in chunks; the list receives the bytes sent."""
    sent = [0]

    def route(handler: Handler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/plain")
        if declare:
            handler.send_header("Content-Length", str(total))
        handler.end_headers()
        block = b"x" * chunk
        while sent[0] < total:
            handler.wfile.write(block)
            sent[0] += chunk

    return route, sent


def json_route(reply: Callable[[Handler, dict[str, Any]], Any]) -> Route:
    def route(handler: Handler) -> None:
        request = json.loads(getattr(handler, "request_body", b"") or b"{}")
        body = json.dumps(reply(handler, request)).encode()
        respond(handler, body, content_type="application/json")

    return route
