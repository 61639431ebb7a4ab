"""The hosted experience: custom auth, custom HTTP routes and the server's graph.

``langgraph.json`` names the modules of this package: ``auth.py`` (``auth``), ``routes.py``
(``app``) and ``graph.py`` (``graph``). This module re-exports the token helpers, which need
neither the server nor its web framework, and (loaded on first use) the helpers that start
``langgraph dev`` on a free local port (``devserver.py``) and the folder of the built web app
(``webapp.py``, served at ``/app``).
"""

from typing import TYPE_CHECKING

from deep_research._exports import lazy_exports
from deep_research.server.tokens import TokenVerifier, current_verifier, sign_token

if TYPE_CHECKING:
    from deep_research.server.devserver import (
        DevServerError,
        dev_server,
        free_port,
        langgraph_executable,
    )
    from deep_research.server.webapp import APP_DIR

__all__ = [
    "APP_DIR",
    "DevServerError",
    "TokenVerifier",
    "current_verifier",
    "dev_server",
    "free_port",
    "langgraph_executable",
    "sign_token",
]

__getattr__ = lazy_exports(
    __name__,
    {
        **{
            name: "deep_research.server.devserver"
            for name in ("DevServerError", "dev_server", "free_port", "langgraph_executable")
        },
        "APP_DIR": "deep_research.server.webapp",
    },
)
