"""Persistence: the checkpointer factory, the domain store and the recorder."""

from deep_research.persistence.checkpointer import open_checkpointer
from deep_research.persistence.content import open_store
from deep_research.persistence.db import Database, open_database
from deep_research.persistence.recorder import (
    Batch,
    NullRecorder,
    Recorder,
    RunScope,
    SqlRecorder,
    message_row,
    open_recorder,
    sub_step_row,
)

__all__ = [
    "Batch",
    "Database",
    "NullRecorder",
    "Recorder",
    "RunScope",
    "SqlRecorder",
    "message_row",
    "open_checkpointer",
    "open_database",
    "open_recorder",
    "open_store",
    "sub_step_row",
]
