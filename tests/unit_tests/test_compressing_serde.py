"""Checkpoints store large values compressed, and read back values stored either way.

``make_serde`` is the serializer of every checkpointer ``open_checkpointer`` opens. A value of
``COMPRESS_FROM`` bytes or more is stored as ``<type>+zlib``; a small one, or one stored before
compression was added, is stored and read plainly. It must keep LangGraph's msgpack allowlist
(LangGraph derives a serializer per graph with ``with_msgpack_allowlist``).
"""

from __future__ import annotations

import zlib
from pathlib import Path
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from deep_research.context import Context
from deep_research.graph import build_graph
from deep_research.persistence import open_checkpointer
from deep_research.persistence.checkpointer import (
    COMPRESS_FROM,
    SERDE_ALLOWLIST,
    CompressingSerializer,
    make_serde,
)
from deep_research.state import EvidenceSpan, Source
from tests.unit_tests.test_checkpoint_size import GeneratedWeb, ShapedEngine


def sources(n: int) -> list[Source]:
    return [
        Source(url=f"https://site{i}.example.org/report", title=f"Report {i}", provider="web")
        for i in range(n)
    ]


def test_a_large_value_is_stored_compressed_and_reads_back_equal() -> None:
    serde = make_serde()
    value = sources(40)
    type_, data = serde.dumps_typed(value)
    plain = JsonPlusSerializer(allowed_msgpack_modules=SERDE_ALLOWLIST).dumps_typed(value)
    assert type_ == "msgpack+zlib"
    assert len(data) * 3 < len(plain[1])
    assert serde.loads_typed((type_, data)) == value


def test_values_are_compressed_at_zlibs_best_level_and_earlier_levels_read_back() -> None:
    """Level 9 stores less than level 1 (what threads were written with before) reads as well."""
    serde = make_serde()
    value = sources(40)
    plain = JsonPlusSerializer(allowed_msgpack_modules=SERDE_ALLOWLIST).dumps_typed(value)[1]
    type_, data = serde.dumps_typed(value)
    assert data == zlib.compress(plain, 9)
    assert len(data) < len(zlib.compress(plain, 1))
    assert serde.loads_typed((type_, zlib.compress(plain, 1))) == value


def test_a_small_value_is_stored_plainly() -> None:
    serde = make_serde()
    value = sources(1)
    type_, data = serde.dumps_typed(value)
    assert len(data) < COMPRESS_FROM
    assert (type_, data) == JsonPlusSerializer().dumps_typed(value)
    assert serde.loads_typed((type_, data)) == value


def test_values_stored_before_compression_read_back() -> None:
    value = sources(40)
    stored = JsonPlusSerializer(allowed_msgpack_modules=SERDE_ALLOWLIST).dumps_typed(value)
    assert stored[0] == "msgpack"
    assert make_serde().loads_typed(stored) == value


def test_a_graph_derived_allowlist_keeps_compression() -> None:
    derived = make_serde().with_msgpack_allowlist([(EvidenceSpan.__module__, "Other")])
    assert isinstance(derived, CompressingSerializer)
    assert derived.dumps_typed(sources(40))[0] == "msgpack+zlib"


async def test_a_thread_on_sqlite_is_stored_compressed_and_reads_back(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'checkpoints.sqlite'}"
    context = Context(allow_clarification=False, depth="light", max_rounds=1, max_revisions=0)
    config: Any = {"configurable": {"thread_id": "compressed"}}
    async with open_checkpointer(url) as saver:
        graph = build_graph(engine=ShapedEngine(2, 2), sources=[GeneratedWeb()], checkpointer=saver)
        result = await graph.ainvoke(
            {"messages": [HumanMessage("Which storage sites?")]}, config, context=context
        )
        conn: Any = saver.conn  # type: ignore[attr-defined]
        async with conn.execute("SELECT type FROM writes WHERE thread_id = 'compressed'") as rows:
            types = {row[0] async for row in rows}
    assert "msgpack+zlib" in types
    async with open_checkpointer(url) as saver:
        graph = build_graph(engine=ShapedEngine(2, 2), sources=[GeneratedWeb()], checkpointer=saver)
        state = (await graph.aget_state(config)).values
    assert state["report"] == result["report"] and len(state["evidence"]) > 0
