"""URL normalization shared by sources, state validation and reducers."""

from __future__ import annotations

from functools import lru_cache
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import idna

ALLOWED_SCHEMES = frozenset({"http", "https", "file", "corpus", "mcp"})
"""Web pages are http(s); documents of the local corpus are absolute ``file://`` URIs, or
``corpus:///RELATIVE/PATH`` in a served run (see :mod:`deep_research.sources.served`); what
an MCP server's tools return without a web address is ``mcp://SERVER/TOOL/ID``."""

_DEFAULT_PORTS = {"http": 80, "https": 443}
_TRACKING_PARAMS = frozenset({"fbclid", "gclid", "dclid", "msclkid", "mc_cid", "mc_eid", "yclid"})


@lru_cache(maxsize=16384)
def normalize_url(url: str) -> str:
    """Return the canonical form of an absolute URL.

    Cached: every Source and EvidenceSpan validates its URL again whenever a checkpoint is read,
    and a run holds a few thousand URLs at most.

    Scheme and host are lower-cased and the host is written in IDNA's ASCII form (``bücher.de``
    and ``xn--bcher-kva.de`` are one site); the default port, the fragment and tracking
    parameters (``utm_*``, ``fbclid``, ...) are dropped; ``.`` and ``..`` path segments are
    resolved (RFC 3986, section 5.2.4) and an empty path becomes ``/``.

    Raises:
        ValueError: the URL is not absolute, its scheme is not http, https or file, or its host
            is not a valid domain name or address.
    """
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    if scheme not in ALLOWED_SCHEMES:
        raise ValueError(f"URL must be absolute http(s), file or mcp, got {url!r}")
    if scheme in ("file", "corpus"):
        if not parts.path.startswith("/"):
            raise ValueError(f"{scheme} URL must hold an absolute path, got {url!r}")
        path = remove_dot_segments(parts.path)
        # urlunsplit writes ``corpus:/path`` (no empty authority) for schemes it does not know
        return urlunsplit(("file", "", path, "", "")) if scheme == "file" else f"corpus://{path}"
    if scheme == "mcp":
        if not parts.netloc or not parts.path.strip("/"):
            raise ValueError(f"mcp URL must name a server and a document, got {url!r}")
        return urlunsplit(("mcp", parts.netloc, parts.path, parts.query, ""))
    host = ascii_host(parts.hostname or "")
    if not host:
        raise ValueError(f"URL has no host: {url!r}")
    try:
        port = parts.port
    except ValueError as exc:
        raise ValueError(f"URL has an invalid port: {url!r}") from exc
    netloc = f"[{host}]" if ":" in host else host
    if port is not None and port != _DEFAULT_PORTS[scheme]:
        netloc = f"{netloc}:{port}"
    if parts.username:
        raise ValueError(f"URL must not carry credentials: {url!r}")
    query = urlencode(
        [
            (key, value)
            for key, value in parse_qsl(parts.query, keep_blank_values=True)
            if not key.lower().startswith("utm_") and key.lower() not in _TRACKING_PARAMS
        ]
    )
    return urlunsplit((scheme, netloc, remove_dot_segments(parts.path) or "/", query, ""))


def remove_dot_segments(path: str) -> str:
    """``path`` with its ``.`` and ``..`` segments resolved, as RFC 3986 (5.2.4) does.

    ``..`` above the root stays at the root; a path ending in a dot segment keeps its
    trailing slash (``/a/b/..`` is ``/a/``).
    """
    if "." not in path:
        return path
    kept: list[str] = []
    segments = path.split("/")
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "..":
            if len(kept) > 1:
                kept.pop()
            if last:
                kept.append("")
        elif segment == ".":
            if last:
                kept.append("")
        else:
            kept.append(segment)
    return "/".join(kept)


def ascii_host(host: str) -> str:
    """The host in lower case, a domain name in its IDNA (punycode) form; "" for none.

    IP addresses are kept as they are.

    Raises:
        ValueError: the host is neither an address nor a valid internationalized domain name.
    """
    host = host.lower().rstrip(".")
    if host.isascii():  # ASCII names, punycode included, and IP addresses
        return host
    try:
        return idna.encode(host, uts46=True).decode("ascii")
    except idna.IDNAError as exc:
        raise ValueError(f"invalid host name {host!r}: {exc}") from None


def domain_of(url: str) -> str:
    """Return the domain used for diversity caps: ``www.`` and ``m.`` mirrors count as one.

    A ``file://`` URL's "domain" is its file path and an ``mcp://`` URL's is the whole URL, so
    each local file and each MCP document is its own domain.
    """
    parts = urlsplit(url)
    if parts.scheme in ("file", "corpus"):
        return parts.path
    if parts.scheme == "mcp":
        return url
    try:
        host = ascii_host(parts.hostname or "")
    except ValueError:
        host = (parts.hostname or "").lower()
    for prefix in ("www.", "m."):
        if host.startswith(prefix):
            return host[len(prefix) :]
    return host
