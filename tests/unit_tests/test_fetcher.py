"""The fetcher against servers on loopback addresses, through a loopback-only socket layer.

The allow-listed server is ``127.0.0.1:<its port>``. Refused targets are either never reachable
(non-loopback addresses: :class:`LoopbackOnlyBackend` refuses and records them, so the assertion
that it recorded nothing shows the guard stopped them first) or loopback variants that are not
on the allow-list, whose servers must receive nothing.
"""

from __future__ import annotations

import asyncio
import gzip
import socket
import time
import zlib
from collections.abc import Iterator
from ipaddress import ip_address
from typing import Any

import pytest

from deep_research.errors import FetchBlockedError, FetchSkippedError, SourceError
from deep_research.sources.web import fetch as fetcher_module
from deep_research.sources.web.fetch import Fetcher, FetchLimits
from deep_research.sources.web.ssrf import Allowlist, IPAddress, SsrfGuard
from tests.unit_tests.web_server import (
    LocalServer,
    LoopbackOnlyBackend,
    endless,
    page,
    redirect,
    respond,
    slow,
)

ARTICLE = "<html><body><article><p>Grid batteries store energy.</p></article></body></html>"


@pytest.fixture
def origin() -> Iterator[LocalServer]:
    with LocalServer("127.0.0.1", {"/": page(ARTICLE)}) as server:
        yield server


@pytest.fixture
def backend() -> LoopbackOnlyBackend:
    return LoopbackOnlyBackend()


def fetcher(
    origin: LocalServer,
    backend: LoopbackOnlyBackend,
    guard: SsrfGuard | None = None,
    **limits: float,
) -> Fetcher:
    guard = guard or SsrfGuard(Allowlist.parse(f"127.0.0.1:{origin.port}"))
    return Fetcher(guard, FetchLimits(**limits), network_backend=backend)  # type: ignore[arg-type]


def ipv6_loopback_available() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


async def test_an_allow_listed_page_is_fetched(
    origin: LocalServer, backend: LoopbackOnlyBackend
) -> None:
    fetched = await fetcher(origin, backend).fetch(origin.url("/"))
    assert fetched.body == ARTICLE.encode()
    assert fetched.content_type == "text/html" and fetched.charset == "utf-8"
    assert backend.connected == [("127.0.0.1", origin.port)]
    assert origin.headers[0]["accept-encoding"] == "identity"


@pytest.mark.parametrize(
    ("target", "reason"),
    [
        ("http://10.20.30.40/internal", "10.20.30.40 is a private address"),
        ("http://169.254.169.254/latest/meta-data/", "cloud metadata"),
        ("http://[::ffff:10.0.0.1]/", "private address (10.0.0.1"),
        ("http://[fd00:ec2::254]/", "cloud metadata"),
    ],
)
async def test_redirects_to_unreachable_refused_addresses_never_connect(
    origin: LocalServer, backend: LoopbackOnlyBackend, target: str, reason: str
) -> None:
    origin.routes["/go"] = redirect(target)
    with pytest.raises(FetchBlockedError, match=reason.replace("(", r"\(").replace(".", r"\.")):
        await fetcher(origin, backend).fetch(origin.url("/go"))
    assert backend.refused == []  # the guard stopped it before the socket layer
    assert backend.connected == [("127.0.0.1", origin.port)]


@pytest.mark.parametrize(
    ("bind", "host_of"),
    [
        ("127.0.0.2", lambda port: f"127.0.0.2:{port}"),
        ("127.0.0.1", lambda port: f"localhost:{port}"),
        ("127.0.0.1", lambda port: f"2130706433:{port}"),  # decimal 127.0.0.1
        ("127.0.0.1", lambda port: f"0x7f.1:{port}"),  # hexadecimal short form
        ("127.0.0.1", lambda port: f"[::ffff:127.0.0.1]:{port}"),  # IPv4-mapped
        ("::1", lambda port: f"[::1]:{port}"),
    ],
    ids=["127.0.0.2", "localhost", "decimal", "hex-short", "ipv4-mapped", "ipv6-loopback"],
)
async def test_redirects_to_loopback_variants_are_refused_and_their_server_hears_nothing(
    origin: LocalServer, backend: LoopbackOnlyBackend, bind: str, host_of: object
) -> None:
    if bind == "::1" and not ipv6_loopback_available():
        pytest.skip("no IPv6 loopback on this machine")
    with LocalServer(bind, {"/": page(ARTICLE)}) as victim:
        target = f"http://{host_of(victim.port)}/"  # type: ignore[operator]
        origin.routes["/go"] = redirect(target)
        with pytest.raises(FetchBlockedError, match="loopback"):
            await fetcher(origin, backend).fetch(origin.url("/go"))
        with pytest.raises(FetchBlockedError, match="loopback"):
            await fetcher(origin, backend).fetch(target)  # asked for directly, too
    assert victim.requests == []
    assert origin.requests == ["/go"]
    assert backend.connected == [("127.0.0.1", origin.port)]


async def test_a_redirect_to_another_scheme_is_refused(
    origin: LocalServer, backend: LoopbackOnlyBackend
) -> None:
    origin.routes["/go"] = redirect("file:///etc/passwd")
    with pytest.raises(FetchBlockedError, match="only http and https"):
        await fetcher(origin, backend).fetch(origin.url("/go"))


async def test_connections_go_to_the_checked_address_and_a_rebinding_answer_is_refused(
    origin: LocalServer, backend: LoopbackOnlyBackend
) -> None:
    answers = iter(["127.0.0.1", "10.0.0.66"])  # the name "rebinds" between two resolutions
    asked: list[str] = []

    async def rebinding(host: str, port: int) -> list[IPAddress]:
        asked.append(host)
        return [ip_address(next(answers))]

    guard = SsrfGuard(Allowlist.parse("127.0.0.1/32"), rebinding)
    # The same name on another port is a new connection: resolved and checked again.
    origin.routes["/hop"] = redirect(f"http://pages.test:{origin.port % 65535 + 1}/")
    with pytest.raises(FetchBlockedError, match=r"10\.0\.0\.66 is a private address"):
        await fetcher(origin, backend, guard).fetch(f"http://pages.test:{origin.port}/hop")
    assert asked == ["pages.test", "pages.test"]
    assert origin.requests == ["/hop"]
    assert backend.connected == [("127.0.0.1", origin.port)]  # the checked address, not a name
    assert backend.refused == []


async def test_more_than_five_redirects_fail(
    origin: LocalServer, backend: LoopbackOnlyBackend
) -> None:
    for n in range(10):
        origin.routes[f"/r{n}"] = redirect(f"/r{n + 1}")
    with pytest.raises(SourceError, match="more than 5 redirects"):
        await fetcher(origin, backend).fetch(origin.url("/r0"))
    assert origin.requests == [f"/r{n}" for n in range(6)]


async def test_five_redirects_are_followed(
    origin: LocalServer, backend: LoopbackOnlyBackend
) -> None:
    for n in range(5):
        origin.routes[f"/r{n}"] = redirect(f"/r{n + 1}", status=301 if n % 2 else 307)
    origin.routes["/r5"] = page(ARTICLE)
    fetched = await fetcher(origin, backend).fetch(origin.url("/r0"))
    assert fetched.final_url == origin.url("/r5") and fetched.url == origin.url("/r0")


@pytest.mark.parametrize("declare", [True, False], ids=["declared", "streamed"])
async def test_a_body_over_the_cap_is_abandoned_without_reading_it_whole(
    origin: LocalServer, backend: LoopbackOnlyBackend, declare: bool
) -> None:
    total = 64 * 1024 * 1024
    origin.routes["/big"], sent = endless(total, declare=declare)
    with pytest.raises(FetchSkippedError, match="cap"):
        await fetcher(origin, backend, max_bytes=256 * 1024).fetch(origin.url("/big"))
    assert await asyncio.to_thread(origin.aborted.wait, 10), "the server kept writing"
    assert sent[0] < total // 4


async def test_a_slow_server_times_out(origin: LocalServer, backend: LoopbackOnlyBackend) -> None:
    origin.routes["/slow"] = slow(1.5)
    started = time.monotonic()
    with pytest.raises(SourceError, match="timed out"):
        await fetcher(origin, backend, read_timeout=0.2).fetch(origin.url("/slow"))
    assert time.monotonic() - started < 1.2


@pytest.mark.parametrize(
    "content_type", ["image/png", "application/octet-stream", "application/zip", ""]
)
async def test_binary_content_types_are_skipped(
    origin: LocalServer, backend: LoopbackOnlyBackend, content_type: str
) -> None:
    origin.routes["/file"] = page(b"\x89PNG\r\n\x1a\n" + b"\0" * 1024, content_type)
    with pytest.raises(FetchSkippedError, match="is not supported"):
        await fetcher(origin, backend).fetch(origin.url("/file"))


async def test_http_errors_fail_with_the_status(
    origin: LocalServer, backend: LoopbackOnlyBackend
) -> None:
    with pytest.raises(SourceError, match="HTTP 404"):
        await fetcher(origin, backend).fetch(origin.url("/missing"))


async def test_fetches_per_domain_and_in_all_are_bounded(
    origin: LocalServer, backend: LoopbackOnlyBackend
) -> None:
    origin.routes["/slow"] = slow(0.25)
    reader = fetcher(origin, backend, per_domain=1, concurrency=4)
    await asyncio.gather(*(reader.fetch(origin.url(f"/slow?n={n}")) for n in range(3)))
    assert origin.max_in_flight == 1
    origin.max_in_flight = 0
    reader = fetcher(origin, backend, per_domain=8, concurrency=2)
    await asyncio.gather(*(reader.fetch(origin.url(f"/slow?n={n}")) for n in range(4)))
    assert origin.max_in_flight == 2


class _CountingDecompressor:
    """A zlib decompressor that records how many bytes each call was allowed to produce."""

    def __init__(self, inner: Any, produced: list[int]) -> None:
        self._inner, self._produced = inner, produced

    def decompress(self, data: bytes, max_length: int = 0) -> bytes:
        out: bytes = self._inner.decompress(data, max_length)
        self._produced.append(len(out))
        return out

    def flush(self, length: int = zlib.DEF_BUF_SIZE) -> bytes:
        out: bytes = self._inner.flush(length)
        self._produced.append(len(out))
        return out

    @property
    def unconsumed_tail(self) -> bytes:
        return bytes(self._inner.unconsumed_tail)


async def test_a_decompression_bomb_stops_at_the_cap_as_it_is_decoded(
    backend: LoopbackOnlyBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    bomb = gzip.compress(b"\0" * (256 * 1024 * 1024), compresslevel=9)  # 256 MiB in ~250 KB
    small = gzip.compress(ARTICLE.encode())

    def serve(body: bytes) -> Any:
        headers = {"Content-Encoding": "gzip"}
        return lambda handler: respond(handler, body, content_type="text/html", headers=headers)

    produced: list[int] = []
    real = zlib.decompressobj
    monkeypatch.setattr(
        fetcher_module.zlib,
        "decompressobj",
        lambda *args: _CountingDecompressor(real(*args), produced),
    )
    with LocalServer("127.0.0.1", {"/bomb": serve(bomb), "/ok": serve(small)}) as server:
        client = fetcher(server, backend, max_bytes=1024 * 1024)
        with pytest.raises(FetchSkippedError, match="larger than the 1048576-byte cap"):
            await client.fetch(server.url("/bomb"))
        assert produced and sum(produced) <= 1024 * 1024 + 1  # decoded here, never past the cap
        fetched = await client.fetch(server.url("/ok"))
    assert fetched.body == ARTICLE.encode()  # ordinary gzip bodies are decoded
