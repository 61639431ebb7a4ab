"""The SSRF guard: which URLs and addresses the web fetcher may connect to.

Only ``http`` and ``https`` URLs are fetched. A URL's host is parsed when it is an address
literal in any form the C library accepts (``2130706433``, ``0x7f.1``, ``0177.0.0.1``,
``[::ffff:127.0.0.1]``), and resolved otherwise; *every* address is checked, and one refused
address refuses the URL. Refused: loopback, private, link-local, multicast, reserved,
unspecified and other non-global addresses, and cloud metadata endpoints, in IPv4 and IPv6.
An IPv4 address embedded in an IPv6 one (IPv4-mapped, 6to4, NAT64) is checked as IPv4 too.

:meth:`SsrfGuard.addresses` is called where connections are made
(:mod:`deep_research.sources.web.transport`): the addresses it checked are the ones connected to,
so a DNS answer that changes between check and connect (rebinding) cannot slip through. It
runs for the first request and again for every redirect to a new host.

The allow-list (``DEEP_RESEARCH_FETCH_ALLOWLIST``) exempts named hosts, ``host:port`` pairs and
networks, for local testing and intranets.
"""

from __future__ import annotations

import asyncio
import re
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from ipaddress import (
    IPv4Address,
    IPv4Network,
    IPv6Address,
    IPv6Network,
    ip_address,
    ip_network,
)
from urllib.parse import urlsplit

from deep_research.errors import ConfigurationError, FetchBlockedError, SourceError

IPAddress = IPv4Address | IPv6Address
Network = IPv4Network | IPv6Network

Resolver = Callable[[str, int], Awaitable[list[IPAddress]]]
"""Resolves ``(host, port)`` to addresses; raises ``OSError`` when the name does not resolve."""

WEB_SCHEMES = frozenset({"http", "https"})
DEFAULT_PORTS = {"http": 80, "https": 443}

METADATA_ADDRESSES: frozenset[IPAddress] = frozenset(
    ip_address(a)
    for a in (
        "169.254.169.254",  # AWS, GCP, Azure, OpenStack, DigitalOcean...
        "169.254.170.2",  # AWS ECS task metadata
        "169.254.170.23",  # AWS EKS pod identity agent
        "168.63.129.16",  # Azure wire server (a public address)
        "100.100.100.200",  # Alibaba Cloud
        "192.0.0.192",  # Oracle Cloud
        "fd00:ec2::254",  # AWS IMDS over IPv6
        "fd00:ec2::23",  # AWS EKS pod identity agent over IPv6
    )
)
"""Cloud metadata endpoints, refused even where they are otherwise routable."""

_NAT64 = ip_network("64:ff9b::/96")
_ATON_FORM = re.compile(r"(?:0x[0-9a-f]*|[0-9]+)(?:\.(?:0x[0-9a-f]*|[0-9]+)){0,3}", re.IGNORECASE)


def clean_host(host: str) -> str:
    """Lower-case a URL host and drop IPv6 brackets and a trailing dot."""
    return host.strip().strip("[]").rstrip(".").lower()


def literal_address(host: str) -> IPAddress | None:
    """Return the address a host names literally, or ``None`` for a host name.

    Besides the dotted and IPv6 forms, IPv4 in the forms ``inet_aton`` accepts (decimal
    ``2130706433``, hexadecimal ``0x7f000001``, octal ``0177.0.0.1``, short ``127.1``) counts,
    since resolvers and browsers read them as addresses.
    """
    host = clean_host(host)
    try:
        return ip_address(host)
    except ValueError:
        pass
    if _ATON_FORM.fullmatch(host):
        try:
            return IPv4Address(socket.inet_aton(host))
        except OSError:
            return None
    return None


def embedded_ipv4(address: IPv6Address) -> IPv4Address | None:
    """The IPv4 address an IPv6 address carries (IPv4-mapped, 6to4, NAT64), if any."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address in _NAT64:
        return IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def refusal(address: IPAddress) -> str | None:
    """Say why the guard refuses ``address`` ("a loopback address"...), or ``None``."""
    if address in METADATA_ADDRESSES:
        return "a cloud metadata address"
    if isinstance(address, IPv6Address):
        inner = embedded_ipv4(address)
        reason = refusal(inner) if inner is not None else None
        if reason is not None:
            return f"{reason} ({inner}, embedded in IPv6)"
    if address.is_unspecified:
        return "an unspecified address"
    if address.is_loopback:
        return "a loopback address"
    if address.is_link_local:
        return "a link-local address"
    if address.is_multicast:
        return "a multicast address"
    if address.is_private:
        return "a private address"
    if address.is_reserved:
        return "a reserved address"
    if not address.is_global:
        return "a non-public address"
    return None


@dataclass(frozen=True, slots=True)
class Allowlist:
    """Hosts, ``host:port`` pairs and networks the guard lets through."""

    hosts: frozenset[str] = frozenset()
    """Host names (or address literals as written) exempt on any port."""
    host_ports: frozenset[tuple[str, int]] = frozenset()
    """``(host, port)`` pairs exempt on that port only."""
    networks: tuple[Network, ...] = ()
    """Addresses exempt wherever they come from (a bare address is a one-address network)."""

    @classmethod
    def parse(cls, text: str) -> Allowlist:
        """Parse ``DEEP_RESEARCH_FETCH_ALLOWLIST``: comma-separated entries.

        ``intranet.example`` (a host), ``localhost:8000`` or ``[::1]:8080`` (a host on one
        port), ``10.1.0.0/16`` or ``127.0.0.1`` (addresses).

        Raises:
            ConfigurationError: an entry is none of these.
        """
        hosts: set[str] = set()
        host_ports: set[tuple[str, int]] = set()
        networks: list[Network] = []
        for raw in text.split(","):
            entry = raw.strip()
            if not entry:
                continue
            try:
                if "/" in entry:
                    networks.append(ip_network(entry, strict=False))
                elif (address := _bare_address(entry)) is not None:
                    networks.append(ip_network(address))
                elif entry.startswith("[") or entry.count(":") == 1:
                    host, _, port = entry.rpartition(":")
                    if not host or not port.isdigit() or not 0 < int(port) < 65536:
                        raise ValueError(f"bad port in {entry!r}")
                    host_ports.add((clean_host(host), int(port)))
                elif re.fullmatch(r"[a-z0-9.\-_]+", clean_host(entry)):
                    hosts.add(clean_host(entry))
                else:
                    raise ValueError(f"not a host name: {entry!r}")
            except ValueError as exc:
                raise ConfigurationError(
                    f"DEEP_RESEARCH_FETCH_ALLOWLIST: {entry!r} is not a host, host:port or "
                    f"CIDR ({exc})"
                ) from None
        return cls(frozenset(hosts), frozenset(host_ports), tuple(networks))

    def allows_host(self, host: str, port: int) -> bool:
        """True when the host itself, or the host on this port, is exempt."""
        host = clean_host(host)
        return host in self.hosts or (host, port) in self.host_ports

    def allows_address(self, address: IPAddress) -> bool:
        """True when the address (or the IPv4 address it embeds) is in an exempt network."""
        candidates: list[IPAddress] = [address]
        if isinstance(address, IPv6Address) and (inner := embedded_ipv4(address)) is not None:
            candidates.append(inner)
        return any(a in network for a in candidates for network in self.networks)


def _bare_address(entry: str) -> IPAddress | None:
    try:
        return ip_address(clean_host(entry))
    except ValueError:
        return None


async def system_resolver(host: str, port: int) -> list[IPAddress]:
    """Resolve with the system resolver, off the event loop (``loop.getaddrinfo``)."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    found: dict[IPAddress, None] = {}
    for _family, _type, _proto, _name, sockaddr in infos:
        found.setdefault(ip_address(str(sockaddr[0])))
    return list(found)


class SsrfGuard:
    """Decides whether a URL may be fetched and which addresses a connection may use."""

    def __init__(self, allowlist: Allowlist | None = None, resolver: Resolver | None = None):
        """Create a guard.

        Args:
            allowlist: Exempt hosts and networks; none by default.
            resolver: Name resolution; the system resolver by default (tests fake it).
        """
        self.allowlist = allowlist or Allowlist()
        self._resolve = resolver or system_resolver

    def check_url(self, url: str) -> tuple[str, int]:
        """Check what can be checked without resolving: scheme, host, port, address literals.

        Returns:
            The URL's host (cleaned) and port.

        Raises:
            FetchBlockedError: the URL is not http(s), carries credentials, or names a refused
                address literally.
        """
        try:
            parts = urlsplit(url)
            scheme = parts.scheme.lower()
            port = parts.port
        except ValueError as exc:
            raise FetchBlockedError(f"refused {url!r}: not a valid URL ({exc})") from None
        if scheme not in WEB_SCHEMES:
            raise FetchBlockedError(f"refused {url!r}: only http and https URLs are fetched")
        if parts.username is not None or parts.password is not None:
            raise FetchBlockedError(f"refused {url!r}: URLs with credentials are not fetched")
        host = clean_host(parts.hostname or "")
        if not host:
            raise FetchBlockedError(f"refused {url!r}: the URL has no host")
        port = port if port is not None else DEFAULT_PORTS[scheme]
        literal = literal_address(host)
        if literal is not None:
            self._check(host, port, [literal])
        return host, port

    async def addresses(self, host: str, port: int) -> list[IPAddress]:
        """Resolve ``host`` and check every address it has; return them all, in order.

        Raises:
            FetchBlockedError: one of the addresses is refused.
            SourceError: the host does not resolve.
        """
        host = clean_host(host)
        literal = literal_address(host)
        if literal is not None:
            found = [literal]
        else:
            try:
                found = await self._resolve(host, port)
            except OSError as exc:
                raise SourceError(f"could not resolve {host}: {exc}") from exc
        if not found:
            raise SourceError(f"{host} resolves to no address")
        self._check(host, port, found)
        return found

    def _check(self, host: str, port: int, found: list[IPAddress]) -> None:
        if self.allowlist.allows_host(host, port):
            return
        for address in found:
            if self.allowlist.allows_address(address):
                continue
            reason = refusal(address)
            if reason is not None:
                raise FetchBlockedError(f"refused {host}: {address} is {reason}")
