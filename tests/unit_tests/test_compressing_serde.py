"""Checkpoints store values compressed, and read back values stored in every earlier form.

``make_serde`` is the serializer of every checkpointer ``open_checkpointer`` opens. A value is
stored as ``<type>+zlib-d1`` (zlib from the package's frozen dictionary of our records) when
that is smaller, plainly otherwise; values stored plainly or as ``+zlib`` (no dictionary)
before read back. It must keep LangGraph's msgpack allowlist (LangGraph derives a serializer
per graph with ``with_msgpack_allowlist``).
"""

from __future__ import annotations

import hashlib
import zlib
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from deep_research.context import Context
from deep_research.graph import build_graph
from deep_research.persistence import compression, open_checkpointer
from deep_research.persistence.checkpointer import (
    SERDE_ALLOWLIST,
    CompressingSerializer,
    make_serde,
)
from deep_research.state import EvidenceSpan, Source, TokenUsage
from tests.unit_tests.test_checkpoint_size import GeneratedWeb, ShapedEngine

DICTIONARY_V1_SHA256 = "7eadde061714a90964566f05b3edb2bbebc09cb91d3f77fcc02704410123968e"
"""The digest of ``zlib-dictionary-v1.bin``: values stored as ``+zlib-d1`` need these bytes."""

PLAIN = JsonPlusSerializer(allowed_msgpack_modules=SERDE_ALLOWLIST)


def sources(n: int) -> list[Source]:
    return [
        Source(url=f"https://site{i}.example.org/report", title=f"Report {i}", provider="web")
        for i in range(n)
    ]


def test_a_large_value_is_stored_compressed_and_reads_back_equal() -> None:
    serde = make_serde()
    value = sources(40)
    type_, data = serde.dumps_typed(value)
    assert type_ == "msgpack+zlib-d1"
    assert len(data) * 3 < len(PLAIN.dumps_typed(value)[1])
    assert serde.loads_typed((type_, data)) == value


def test_values_are_compressed_at_zlibs_best_level_from_the_dictionary() -> None:
    serde = make_serde()
    value = sources(40)
    plain = PLAIN.dumps_typed(value)[1]
    compressor = zlib.compressobj(9, zdict=compression.dictionary())
    assert serde.dumps_typed(value)[1] == compressor.compress(plain) + compressor.flush()


def test_a_small_record_is_stored_in_a_fraction_of_its_bytes() -> None:
    """Alone, a record spells out its class and field names; the dictionary holds them."""
    serde = make_serde()
    for value in (TokenUsage(prompt_tokens=1200, completion_tokens=300, calls=2), sources(1)):
        plain = PLAIN.dumps_typed(value)[1]
        type_, data = serde.dumps_typed(value)
        assert type_ == "msgpack+zlib-d1"
        assert len(data) * 3 < len(plain)
        assert len(data) * 2 < len(zlib.compress(plain, 9)), "zlib alone shrinks it far less"
        assert serde.loads_typed((type_, data)) == value


def test_a_value_compression_does_not_shrink_is_stored_plainly() -> None:
    serde = make_serde()
    for value in (7, "", "x7#Qz"):
        stored = serde.dumps_typed(value)
        assert stored == PLAIN.dumps_typed(value)
        assert serde.loads_typed(stored) == value


def test_the_dictionary_is_the_one_stored_values_were_compressed_with() -> None:
    """Editing the file would leave every ``+zlib-d1`` value unreadable: add a version."""
    assert hashlib.sha256(compression.dictionary()).hexdigest() == DICTIONARY_V1_SHA256


def test_a_value_read_with_another_dictionary_fails_loudly() -> None:
    type_, data = make_serde().dumps_typed(sources(3))
    with pytest.raises(zlib.error):
        zlib.decompressobj(zdict=b"another dictionary").decompress(data)
    with pytest.raises(zlib.error):
        zlib.decompress(data)


def test_values_stored_before_compression_or_before_the_dictionary_read_back() -> None:
    value = sources(40)
    stored = PLAIN.dumps_typed(value)
    assert stored[0] == "msgpack"
    serde = make_serde()
    assert serde.loads_typed(stored) == value
    for level in (1, 9):  # zlib without a dictionary, at the levels threads were written with
        assert serde.loads_typed(("msgpack+zlib", zlib.compress(stored[1], level))) == value


def test_a_graph_derived_allowlist_keeps_compression() -> None:
    derived = make_serde().with_msgpack_allowlist([(EvidenceSpan.__module__, "Other")])
    assert isinstance(derived, CompressingSerializer)
    assert derived.dumps_typed(sources(40))[0] == "msgpack+zlib-d1"


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
    assert "msgpack+zlib-d1" in types
    async with open_checkpointer(url) as saver:
        graph = build_graph(engine=ShapedEngine(2, 2), sources=[GeneratedWeb()], checkpointer=saver)
        state = (await graph.aget_state(config)).values
    assert state["report"] == result["report"] and len(state["evidence"]) > 0
