"""The offline engine: deterministic, extractive, no model (tests, demos, air-gapped runs).

``engine.py`` is the engine; ``facets.py`` sorts a broad question's evidence into facets.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from deep_research._exports import lazy_exports

if TYPE_CHECKING:
    from deep_research.engines.offline.engine import OfflineEngine, extractive_notice

__all__ = ["OfflineEngine", "extractive_notice"]

__getattr__ = lazy_exports(
    __name__,
    {
        "OfflineEngine": "deep_research.engines.offline.engine",
        "extractive_notice": "deep_research.engines.offline.engine",
    },
)
