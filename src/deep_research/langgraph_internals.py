"""The private parts of LangGraph this package uses, in one place.

LangGraph offers no public name for these; each is pinned by
``tests/unit_tests/test_langgraph_internals.py``, which fails loudly on an upgrade that
moves or changes one, so that this module is the one place to change.

* :data:`CONFIG_KEY_CHECKPOINTER` and :data:`CONFIG_KEY_DURABILITY`: the config keys under
  which a running graph hands its checkpointer and durability to a subgraph; the researcher
  subgraph runs without checkpoints by clearing them (graph/researcher.py).
* :class:`DeltaSnapshot`: the value a ``DeltaChannel`` stores when it snapshots its
  accumulated writes; the SQLite saver keeps it inline with the checkpoint
  (persistence/sqlite_saver.py) and the legacy reader looks inside it
  (persistence/legacy.py).
* ``_cursor(pipeline=...)`` of LangGraph's PostgreSQL saver and store: the one place their
  writes get a connection. persistence/postgres.py overrides it, so that a write runs on the
  connection of the transaction that looked its thread up (closed threads); nothing is
  imported for it, the test pins that the writes still go through it.
"""

from __future__ import annotations

from langgraph._internal._constants import CONFIG_KEY_CHECKPOINTER, CONFIG_KEY_DURABILITY
from langgraph.checkpoint.serde.types import _DeltaSnapshot as DeltaSnapshot

__all__ = ["CONFIG_KEY_CHECKPOINTER", "CONFIG_KEY_DURABILITY", "DeltaSnapshot"]
