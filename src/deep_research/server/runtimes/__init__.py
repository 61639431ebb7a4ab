"""The server runtimes: one adapter per runtime that serves the graph.

``base.py`` says what an adapter does (:class:`Runtime`); ``langgraph_api.py`` adapts
langgraph-api (``langgraph dev`` and the LangGraph platform), ``aegra.py`` adapts Aegra and
``aegra_purge.py`` purges chats from Aegra's database; ``select.py`` picks the adapter of the
server that imported it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from deep_research._exports import lazy_exports

if TYPE_CHECKING:
    from deep_research.server.runtimes.base import RunRequest, Runtime, Stores, authorization_header
    from deep_research.server.runtimes.select import current_runtime

__all__ = ["RunRequest", "Runtime", "Stores", "authorization_header", "current_runtime"]

__getattr__ = lazy_exports(
    __name__,
    {
        "Runtime": "deep_research.server.runtimes.base",
        "RunRequest": "deep_research.server.runtimes.base",
        "Stores": "deep_research.server.runtimes.base",
        "authorization_header": "deep_research.server.runtimes.base",
        "current_runtime": "deep_research.server.runtimes.select",
    },
)
