"""Checkpoints store values zlib-compressed when that pays, and read back every earlier form.

``make_serde`` is the serializer of every checkpointer ``open_checkpointer`` opens. A value is
stored as ``<type>+zlib`` when that is smaller, plainly otherwise; values stored plainly before
read back (the retired formats: ``test_legacy_checkpoints.py``). It must keep LangGraph's
msgpack allowlist (LangGraph derives a serializer per graph with ``with_msgpack_allowlist``).
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
    SERDE_ALLOWLIST,
    CompressingSerializer,
    make_serde,
)
from deep_research.state import EvidenceSpan, Source, TokenUsage
from tests.unit_tests.test_checkpoint_size import GeneratedWeb, ShapedEngine

PLAIN = JsonPlusSerializer(allowed_msgpack_modules=SERDE_ALLOWLIST)


def sources(n: int) -> list[Source]:
    return [
        Source(url=f"https://site{i}.example.org/report", title=f"Report {i}", provider="web")
        for i in range(n)
    ]


def test_a_large_value_is_stored_compressed_and_reads_back_equal() -> None:
    value = sources(40)
    serde = make_serde()
    type_, data = serde.dumps_typed(value)
    assert type_ == "msgpack+zlib"
    assert len(data) * 3 < len(PLAIN.dumps_typed(value)[1])
    assert zlib.decompress(data) == PLAIN.dumps_typed(value)[1], "plain zlib of the msgpack"
    assert serde.loads_typed((type_, data)) == value


def test_a_value_compression_does_not_shrink_is_stored_plainly() -> None:
    value = TokenUsage(prompt_tokens=1, completion_tokens=2, calls=1)
    serde = make_serde()
    stored = serde.dumps_typed(value)
    assert stored == PLAIN.dumps_typed(value) or stored[0].endswith("+zlib")
    assert serde.loads_typed(stored) == value
    assert make_serde().dumps_typed(None) == PLAIN.dumps_typed(None), "a tiny value stays plain"


def test_values_stored_before_compression_read_back() -> None:
    value = sources(40)
    stored = PLAIN.dumps_typed(value)
    assert stored[0] == "msgpack"
    serde = make_serde()
    assert serde.loads_typed(stored) == value
    for level in (1, 9):  # the levels threads were written with
        assert serde.loads_typed(("msgpack+zlib", zlib.compress(stored[1], level))) == value


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
    assert not any(t.endswith("-d1") or t.startswith("evidence-refs") for t in types)
    async with open_checkpointer(url) as saver:
        graph = build_graph(engine=ShapedEngine(2, 2), sources=[GeneratedWeb()], checkpointer=saver)
        state = (await graph.aget_state(config)).values
    assert state["report"] == result["report"] and len(state["evidence"]) > 0
    assert all(isinstance(e, EvidenceSpan) for e in state["evidence"]), "spans carry quotes"
