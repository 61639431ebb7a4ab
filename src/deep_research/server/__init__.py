"""The hosted experience: custom auth, custom HTTP routes and the server's graph.

``langgraph.json`` names the modules of this package: ``auth.py`` (``auth``), ``routes.py``
(``app``) and ``graph.py`` (``graph``). This module re-exports only the token helpers, which need
neither the server nor its web framework.
"""

from deep_research.server.tokens import TokenVerifier, current_verifier, sign_token

__all__ = ["TokenVerifier", "current_verifier", "sign_token"]
