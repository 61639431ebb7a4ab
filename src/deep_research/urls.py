"""URL normalization shared by sources, state validation and reducers."""

from __future__ import annotations

from functools import lru_cache
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

ALLOWED_SCHEMES = frozenset({"http", "https", "file"})
"""Web pages are http(s); documents of the local corpus are absolute ``file://`` URIs."""

_DEFAULT_PORTS = {"http": 80, "https": 443}
_TRACKING_PARAMS = frozenset({"fbclid", "gclid", "dclid", "msclkid", "mc_cid", "mc_eid", "yclid"})


@lru_cache(maxsize=16384)
def normalize_url(url: str) -> str:
    """Return the canonical form of an absolute URL.

    Cached: every Source and EvidenceSpan validates its URL again whenever a checkpoint is read,
    and a run holds a few thousand URLs at most.

    Scheme and host are lower-cased, the default port, the fragment and tracking parameters
    (``utm_*``, ``fbclid``, ...) are dropped, and an empty path becomes ``/``.

    Raises:
        ValueError: the URL is not absolute or its scheme is not http, https or file.
    """
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    if scheme not in ALLOWED_SCHEMES:
        raise ValueError(f"URL must be absolute http(s) or file, got {url!r}")
    if scheme == "file":
        if not parts.path.startswith("/"):
            raise ValueError(f"file URL must hold an absolute path, got {url!r}")
        return urlunsplit(("file", "", parts.path, "", ""))
    host = (parts.hostname or "").lower()
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
    return urlunsplit((scheme, netloc, parts.path or "/", query, ""))


def domain_of(url: str) -> str:
    """Return the domain used for diversity caps: ``www.`` and ``m.`` mirrors count as one.

    A ``file://`` URL's "domain" is its file path, so each local file is its own domain.
    """
    parts = urlsplit(url)
    if parts.scheme == "file":
        return parts.path
    host = (parts.hostname or "").lower()
    for prefix in ("www.", "m."):
        if host.startswith(prefix):
            return host[len(prefix) :]
    return host
