"""Which runtime serves this process, and its runs as the run cap reads them.

The adapters' shared types are in :mod:`deep_research.server.runtimes.base`; the adapters are
:mod:`deep_research.server.runtimes.langgraph_api` and :mod:`deep_research.server.runtimes.aegra`.
"""

from __future__ import annotations

import sys

from deep_research.server.runtimes.aegra import AegraRuntime
from deep_research.server.runtimes.base import Runtime
from deep_research.server.runtimes.langgraph_api import LangGraphApiRuntime


def current_runtime() -> Runtime:
    """The adapter of the runtime serving this process (Aegra when it imported us)."""
    if "aegra_api" in sys.modules:
        return AegraRuntime()
    return LangGraphApiRuntime()


class RuntimeRunBook:
    """The runs of whichever runtime serves this process (the run cap's run book)."""

    async def active(self, user_id: str) -> set[str]:
        """The ids of ``user_id``'s pending and running runs."""
        return await current_runtime().active_runs(user_id)

    async def status(self, thread_id: str, run_id: str) -> str | None:
        """The run's status, or ``None`` when the runtime has not stored it."""
        return await current_runtime().run_status(thread_id, run_id)
