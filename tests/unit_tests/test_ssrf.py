"""The SSRF guard's decisions, at the resolution step (no sockets at all)."""

from __future__ import annotations

import socket
from ipaddress import ip_address

import pytest

from deep_research.errors import ConfigurationError, FetchBlockedError, SourceError
from deep_research.sources.web.ssrf import (
    Allowlist,
    IPAddress,
    SsrfGuard,
    literal_address,
    refusal,
)


def resolver(table: dict[str, list[str]]):  # type: ignore[no-untyped-def]
    calls: list[str] = []

    async def resolve(host: str, port: int) -> list[IPAddress]:
        calls.append(host)
        if host not in table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [ip_address(a) for a in table[host]]

    resolve.calls = calls  # type: ignore[attr-defined]
    return resolve


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("192.168.1.1", "private"),
        ("127.0.0.1", "loopback"),
        ("127.0.0.2", "loopback"),
        ("0.0.0.0", "unspecified"),
        ("169.254.169.254", "metadata"),
        ("169.254.1.1", "link-local"),
        ("168.63.129.16", "metadata"),
        ("100.100.100.200", "metadata"),
        ("100.64.0.1", "non-public"),
        ("224.0.0.1", "multicast"),
        ("240.0.0.1", "private"),  # reserved; Python lists 240/4 among private networks
        ("::1", "loopback"),
        ("::", "unspecified"),
        ("fe80::1", "link-local"),
        ("fc00::1", "private"),
        ("fd00:ec2::254", "metadata"),
        ("ff02::1", "multicast"),
        ("::ffff:127.0.0.1", "loopback"),
        ("::ffff:10.0.0.1", "private"),
        ("::ffff:169.254.169.254", "metadata"),
        ("2002:7f00:1::", "loopback"),  # 6to4 of 127.0.0.1
        ("64:ff9b::a00:1", "private"),  # NAT64 of 10.0.0.1
    ],
)
def test_refused_addresses_say_why(address: str, why: str) -> None:
    reason = refusal(ip_address(address))
    assert reason is not None and why in reason


@pytest.mark.parametrize("address", ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111"])
def test_public_addresses_pass(address: str) -> None:
    assert refusal(ip_address(address)) is None


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("2130706433", "127.0.0.1"),  # decimal
        ("0x7f000001", "127.0.0.1"),  # hexadecimal
        ("0177.0.0.1", "127.0.0.1"),  # octal
        ("127.1", "127.0.0.1"),  # short form
        ("0xa.0.0.1", "10.0.0.1"),
        ("[::1]", "::1"),
        ("[::ffff:7f00:1]", "::ffff:127.0.0.1"),
        ("example.com", None),
        ("1e100.net", None),
        ("999.1.1.1.1", None),
    ],
)
def test_literal_addresses_in_every_encoding(host: str, expected: str | None) -> None:
    found = literal_address(host)
    assert (str(found) if found is not None else None) == (
        str(ip_address(expected)) if expected else None
    )


@pytest.mark.parametrize(
    "url",
    [
        "http://2130706433/",
        "http://0x7f.1/",
        "http://[::ffff:127.0.0.1]:8080/",
        "http://[::1]/",
        "https://169.254.169.254/latest/meta-data/",
        "http://10.0.0.8/",
        "ftp://example.com/file",
        "file:///etc/passwd",
        "gopher://example.com/",
        "http://user:secret@example.com/",
        "http:///no-host",
    ],
)
def test_check_url_refuses_before_any_resolution(url: str) -> None:
    guard = SsrfGuard(resolver=resolver({}))
    with pytest.raises(FetchBlockedError):
        guard.check_url(url)
    assert guard._resolve.calls == []  # type: ignore[attr-defined]


def test_check_url_returns_host_and_default_port() -> None:
    guard = SsrfGuard(resolver=resolver({}))
    assert guard.check_url("HTTPS://Example.COM/a") == ("example.com", 443)
    assert guard.check_url("http://example.com:8080/") == ("example.com", 8080)


async def test_every_resolved_address_is_checked() -> None:
    guard = SsrfGuard(resolver=resolver({"mixed.test": ["93.184.216.34", "10.0.0.7"]}))
    with pytest.raises(FetchBlockedError, match=r"10\.0\.0\.7 is a private address"):
        await guard.addresses("mixed.test", 443)


@pytest.mark.parametrize(
    ("name", "address"),
    [
        ("metadata.google.internal", "169.254.169.254"),
        ("intranet.test", "192.168.0.10"),
        ("v6.test", "fd12:3456::1"),
        ("mapped.test", "::ffff:172.16.5.4"),
        ("localhost", "127.0.0.1"),
    ],
)
async def test_names_resolving_to_refused_addresses_are_blocked(name: str, address: str) -> None:
    guard = SsrfGuard(resolver=resolver({name: [address]}))
    with pytest.raises(FetchBlockedError, match=f"refused {name}"):
        await guard.addresses(name, 80)


async def test_public_names_pass_and_resolution_failures_are_source_errors() -> None:
    guard = SsrfGuard(resolver=resolver({"example.test": ["93.184.216.34", "2606:2800::1"]}))
    assert [str(a) for a in await guard.addresses("example.test", 80)] == [
        "93.184.216.34",
        "2606:2800::1",
    ]
    with pytest.raises(SourceError, match="could not resolve") as info:
        await guard.addresses("nowhere.test", 80)
    assert not isinstance(info.value, FetchBlockedError)


def test_allowlist_parses_hosts_host_ports_and_networks() -> None:
    allow = Allowlist.parse(
        " localhost:8000, Intranet.Example., 10.1.0.0/16,127.0.0.1,[::1]:9000,,"
    )
    assert allow.hosts == frozenset({"intranet.example"})
    assert allow.host_ports == frozenset({("localhost", 8000), ("::1", 9000)})
    assert [str(n) for n in allow.networks] == ["10.1.0.0/16", "127.0.0.1/32"]
    assert allow.allows_host("LOCALHOST", 8000) and not allow.allows_host("localhost", 8001)
    assert allow.allows_host("intranet.example", 1234)
    assert allow.allows_address(ip_address("10.1.200.3"))
    assert allow.allows_address(ip_address("::ffff:10.1.0.9"))
    assert not allow.allows_address(ip_address("10.2.0.1"))


@pytest.mark.parametrize("entry", ["10.0.0.0/33", "host:port", "host:0", "bad host!", "[::1]:x"])
def test_allowlist_rejects_malformed_entries(entry: str) -> None:
    with pytest.raises(ConfigurationError, match="DEEP_RESEARCH_FETCH_ALLOWLIST"):
        Allowlist.parse(entry)


async def test_allowlist_exempts_named_hosts_ports_and_networks_only() -> None:
    table = {"intranet.test": ["10.9.8.7"], "other.test": ["10.9.8.7"], "lab.test": ["10.5.0.1"]}
    guard = SsrfGuard(
        Allowlist.parse("intranet.test, lab.test:8443, 10.9.0.0/16"), resolver=resolver(table)
    )
    assert await guard.addresses("intranet.test", 80)
    assert await guard.addresses("other.test", 80)  # 10.9.8.7 is in the exempt network
    assert await guard.addresses("lab.test", 8443)
    with pytest.raises(FetchBlockedError):
        await guard.addresses("lab.test", 443)  # exempt on 8443 only
    with pytest.raises(FetchBlockedError):
        guard.check_url("http://169.254.169.254/")  # not listed: still refused
