"""The private LangGraph names the package relies on still mean what they meant.

Every one of them is imported through ``deep_research.langgraph_internals``; an upgrade of
LangGraph that moves or changes one fails here first, with the name in the message.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest
from langgraph.channels.delta import DeltaChannel
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from deep_research import langgraph_internals
from deep_research.langgraph_internals import (
    CONFIG_KEY_CHECKPOINTER,
    CONFIG_KEY_DURABILITY,
    DeltaSnapshot,
)

PACKAGE = Path(langgraph_internals.__file__).parent


def test_the_config_keys_are_the_strings_langgraph_reads() -> None:
    assert CONFIG_KEY_CHECKPOINTER == "__pregel_checkpointer"
    assert CONFIG_KEY_DURABILITY == "__pregel_durability"


def test_a_delta_snapshot_carries_its_value_and_survives_the_serializer() -> None:
    snapshot = DeltaSnapshot([1, 2, 3])
    assert snapshot.value == [1, 2, 3]
    serde = JsonPlusSerializer()
    back = serde.loads_typed(serde.dumps_typed(snapshot))
    assert isinstance(back, DeltaSnapshot), "LangGraph no longer stores snapshots as this type"
    assert back.value == [1, 2, 3]
    channel = DeltaChannel(lambda state, writes: state + [w for b in writes for w in b], list)
    assert channel.from_checkpoint(snapshot).get() == [1, 2, 3]


def test_no_other_module_imports_langgraph_s_private_names() -> None:
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if path.name == "langgraph_internals.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.ImportFrom)
                and node.module
                and node.module.startswith("langgraph")
            ):
                private = "._" in node.module or any(a.name.startswith("_") for a in node.names)
                if private:
                    offenders.append(f"{path.relative_to(PACKAGE)}: {node.module}")
    assert not offenders, f"import LangGraph internals through langgraph_internals: {offenders}"


@pytest.mark.parametrize(
    ("module", "owner", "writers"),
    [
        ("langgraph.checkpoint.postgres.aio", "AsyncPostgresSaver", ["aput", "aput_writes"]),
        ("langgraph.store.postgres.aio", "AsyncPostgresStore", ["_execute_batch"]),
    ],
)
def test_the_postgres_writers_take_their_connection_from_cursor(
    module: str, owner: str, writers: list[str]
) -> None:
    """persistence/postgres.py overrides ``_cursor`` to write inside the closed-thread check.

    If LangGraph's writes stopped going through it, a write would no longer be one
    transaction with its thread's lookup (test_closed_threads.py would then fail too, on a
    PostgreSQL server).
    """
    cls = getattr(importlib.import_module(module), owner)
    assert list(inspect.signature(cls._cursor).parameters) == ["self", "pipeline"]
    for name in writers:
        source = inspect.getsource(getattr(cls, name))
        assert "self._cursor(" in source, f"{owner}.{name} no longer writes through _cursor"
