"""Which web pages may call the server: Studio's origin and the operator's, no other.

The custom routes' app (:mod:`deep_research.server.routes`) carries :class:`CORSPolicy` as its
middleware; the LangGraph server puts a custom app's middleware outside its own, so this policy
answers every CORS preflight, the server's API included. It allows Studio
(``https://smith.langchain.com``) and the origins of ``DEEP_RESEARCH_CORS_ORIGINS``, with any
request header (a bearer token is still needed) and without cookies. Private network access
(``Access-Control-Allow-Private-Network``, which ``langgraph dev`` grants on every ``OPTIONS``
answer) is granted to those origins only and stripped from every other answer. The restrictive
``http.cors`` of langgraph.json stays as the inner layer, for deployments that order middleware
differently.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.middleware.cors import CORSMiddleware
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from deep_research.errors import ConfigurationError
from deep_research.settings import Settings, get_settings

STUDIO_ORIGIN = "https://smith.langchain.com"
"""LangGraph Studio's web origin."""

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
EXPOSED = ("x-pagination-total", "x-pagination-next", "content-location")
"""Response headers Studio reads (the ones the LangGraph server exposes by default)."""

PRIVATE_NETWORK = "access-control-allow-private-network"


def allowed_origins(settings: Settings) -> tuple[str, ...]:
    """Studio's origin and those of ``DEEP_RESEARCH_CORS_ORIGINS``.

    Raises:
        ConfigurationError: an entry is not an ``http(s)://host[:port]`` origin (``*`` included).
    """
    origins = [STUDIO_ORIGIN]
    for entry in filter(None, (part.strip() for part in settings.cors_origins.split(","))):
        origin = entry.removesuffix("/")
        parts = urlsplit(origin)
        if (
            parts.scheme not in ("http", "https")
            or not parts.hostname
            or parts.path
            or parts.query
            or parts.fragment
            or parts.username is not None
        ):
            raise ConfigurationError(
                f"DEEP_RESEARCH_CORS_ORIGINS: {entry!r} is not an origin; use comma-separated"
                " http(s)://host[:port] entries (no '*', no path)"
            )
        origins.append(origin.lower())
    return tuple(dict.fromkeys(origins))


class _OriginCORS(CORSMiddleware):
    """Starlette's CORS, granting private network access to allowed origins only."""

    def _allowed(self, origin: str | None) -> bool:
        return origin is not None and self.is_allowed_origin(origin)

    def preflight_response(self, request_headers: Headers) -> Response:
        response = super().preflight_response(request_headers)
        if not self._allowed(request_headers.get("origin")):
            del response.headers[PRIVATE_NETWORK]
        return response

    async def send(self, message: Message, send: Send, request_headers: Headers) -> None:
        if message["type"] == "http.response.start" and not self._allowed(
            request_headers.get("origin")
        ):
            message.setdefault("headers", [])
            del MutableHeaders(scope=message)[PRIVATE_NETWORK]
        await super().send(message, send, request_headers)


class CORSPolicy:
    """ASGI middleware: the server's CORS policy, built from the settings on first use."""

    def __init__(self, app: ASGIApp) -> None:
        """Wrap ``app`` (the whole server, when the LangGraph server mounts the custom app)."""
        self.app = app
        self._cors: _OriginCORS | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer preflights; add the CORS headers of allowed origins to other answers."""
        if scope["type"] != "http":  # the lifespan checks the settings (routes.py)
            await self.app(scope, receive, send)
            return
        if self._cors is None:
            self._cors = _OriginCORS(
                self.app,
                allow_origins=allowed_origins(get_settings()),
                allow_methods=METHODS,
                allow_headers=["*"],
                allow_private_network=True,
                expose_headers=EXPOSED,
            )
        await self._cors(scope, receive, send)
