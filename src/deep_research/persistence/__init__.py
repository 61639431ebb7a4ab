"""Persistence: the checkpointer factory, the content store, the domain store and the recorder.

Every name is loaded on first use (see :mod:`deep_research._exports`), so that importing
``deep_research.persistence.tables`` (as the migrations do) loads SQLAlchemy and nothing of
LangGraph.
"""

from typing import TYPE_CHECKING

from deep_research._exports import lazy_exports

_CHECKPOINTER = "deep_research.persistence.checkpointer"
_CONTENT = "deep_research.persistence.content"
_DB = "deep_research.persistence.db"
_RECORDER = "deep_research.persistence.recorder"

__getattr__ = lazy_exports(
    __name__,
    {
        "open_checkpointer": _CHECKPOINTER,
        "make_serde": _CHECKPOINTER,
        "DeltaSnapshot": "deep_research.langgraph_internals",
        "open_store": _CONTENT,
        "Database": _DB,
        "open_database": _DB,
        "Batch": _RECORDER,
        "NullRecorder": _RECORDER,
        "Recorder": _RECORDER,
        "RunScope": _RECORDER,
        "SqlRecorder": _RECORDER,
        "open_recorder": _RECORDER,
    },
)

if TYPE_CHECKING:
    from deep_research.langgraph_internals import DeltaSnapshot
    from deep_research.persistence.checkpointer import make_serde, open_checkpointer
    from deep_research.persistence.content import open_store
    from deep_research.persistence.db import Database, open_database
    from deep_research.persistence.recorder import (
        Batch,
        NullRecorder,
        Recorder,
        RunScope,
        SqlRecorder,
        open_recorder,
    )

__all__ = [
    "DeltaSnapshot",
    "make_serde",
    "Batch",
    "Database",
    "NullRecorder",
    "Recorder",
    "RunScope",
    "SqlRecorder",
    "open_checkpointer",
    "open_database",
    "open_recorder",
    "open_store",
]
