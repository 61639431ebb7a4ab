"""The research web app's files at ``/app``, served without a token, with a strict policy.

The page (built from ``web/`` into :data:`APP_DIR` by ``make dev``, ``make cluster`` and
``make test``; see docs/app.md) is static: HTML, one script, one style sheet. It holds no
user's data, so its files are answered before the server's authentication, by
:class:`WebApp`, an ASGI middleware of the custom routes' app. The LangGraph server puts that
app's middleware outside its own (Aegra's adapter does the same, see
:mod:`deep_research.server.aegra`), so the files are reachable on both runtimes while every
API call the page makes still carries its bearer token.

``/app/config.json`` tells the page, before it signs in, whether the server asks for a token
(it answers nothing else). Every answer carries :data:`PAGE_HEADERS`: the page may load
scripts, styles, images and data from its own origin only, runs no inline script, posts no
form and is framed by no one.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import mimetypes
from pathlib import Path

from starlette.types import ASGIApp, Receive, Scope, Send

from deep_research.server.tokens import current_verifier

APP_PREFIX = "/app"
"""Where the page is served."""

APP_DIR = Path(__file__).resolve().parent / "static" / "app"
"""The built page (``vite build`` writes it; not committed)."""

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
    " connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none';"
    " form-action 'none'; frame-ancestors 'none'"
)
"""The page's policy: its own origin only, no inline script, no plug-ins, no framing."""

PAGE_HEADERS = {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cross-origin-opener-policy": "same-origin",
}
"""Headers of every answer under ``/app``."""

NOT_BUILT = (
    "The web app is not built. Run `make dev` (it builds it), or"
    " `cd web && npm ci && npm run build`, then reload.\n"
)

COMPRESSED = frozenset({".html", ".js", ".css", ".json", ".svg"})
"""Files sent gzipped to a browser that accepts it."""

TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
}


def app_config() -> dict[str, bool]:
    """What the page needs before it signs in: whether the server asks for a token."""
    return {"auth": not current_verifier().open}


def resolve(path: str, root: Path = APP_DIR) -> Path | None:
    """The file of a path under ``/app`` (``index.html`` for the page itself), or ``None``.

    Only files inside ``root`` are answered: ``..``, hidden names and links out are not.
    """
    rest = path.removeprefix(APP_PREFIX).strip("/")
    if not rest:
        rest = "index.html"
    parts = rest.split("/")
    if any(not part or part.startswith(".") or "\\" in part for part in parts):
        return None
    candidate = root.joinpath(*parts)
    try:
        resolved = candidate.resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    if not resolved.is_file() or not resolved.is_relative_to(root.resolve()):
        return None
    return resolved


class WebApp:
    """ASGI middleware: answer ``GET``/``HEAD`` under ``/app`` from :data:`APP_DIR`."""

    def __init__(self, app: ASGIApp, root: Path = APP_DIR) -> None:
        """Wrap ``app`` (the rest of the server); serve the page from ``root``."""
        self.app = app
        self.root = root
        self._compressed: dict[tuple[str, int, int], bytes] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer the page's files; hand on every other request."""
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if path != APP_PREFIX and not path.startswith(APP_PREFIX + "/"):
            await self.app(scope, receive, send)
            return
        method = scope["method"]
        gzip_ok = any(
            name == b"accept-encoding" and b"gzip" in value for name, value in scope["headers"]
        )
        if method not in ("GET", "HEAD"):
            await _send(send, 405, b"only GET and HEAD\n", "text/plain; charset=utf-8", method)
            return
        if path == APP_PREFIX:  # relative asset paths need the trailing slash
            await _send(send, 308, b"", "text/plain", method, {"location": APP_PREFIX + "/"})
            return
        if path == f"{APP_PREFIX}/config.json":
            body = json.dumps(app_config()).encode()
            await _send(send, 200, body, "application/json", method, {"cache-control": "no-store"})
            return
        await self._file(path, method, send, gzip_ok=gzip_ok)

    async def _file(self, path: str, method: str, send: Send, *, gzip_ok: bool) -> None:
        status, body, found = await asyncio.to_thread(read, path, self.root)  # off the loop
        if found is None:
            await _send(send, status, body, "text/plain; charset=utf-8", method)
            return
        kind = TYPES.get(found.suffix) or mimetypes.guess_type(found.name)[0]
        # hashed asset names never change; the page itself is looked at again every time
        cache = "public, max-age=31536000, immutable" if "/assets/" in path else "no-cache"
        extra = {"cache-control": cache, "vary": "Accept-Encoding"}
        if gzip_ok and found.suffix in COMPRESSED:
            body = await asyncio.to_thread(self._gzipped, found, body)
            extra["content-encoding"] = "gzip"
        await _send(send, 200, body, kind or "application/octet-stream", method, extra)

    def _gzipped(self, found: Path, body: bytes) -> bytes:
        """``body`` compressed, once per file version (the page's files are few)."""
        key = (str(found), len(body), hash(body))
        if key not in self._compressed:
            self._compressed[key] = gzip.compress(body, compresslevel=9, mtime=0)
        return self._compressed[key]


def read(path: str, root: Path) -> tuple[int, bytes, Path | None]:
    """The status, body and file of a path under ``/app`` (503 while the page is not built)."""
    if not (root / "index.html").is_file():
        return 503, NOT_BUILT.encode(), None
    found = resolve(path, root)
    if found is None:
        return 404, b"not found\n", None
    return 200, found.read_bytes(), found  # a few hundred KB at most


async def _send(
    send: Send,
    status: int,
    body: bytes,
    content_type: str,
    method: str,
    extra: dict[str, str] | None = None,
) -> None:
    headers = {
        **PAGE_HEADERS,
        "content-type": content_type,
        "content-length": str(len(body)),
        **(extra or {}),
    }
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(k.encode(), v.encode()) for k, v in headers.items()],
        }
    )
    await send({"type": "http.response.body", "body": b"" if method == "HEAD" else body})
