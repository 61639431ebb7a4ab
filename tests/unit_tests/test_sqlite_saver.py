"""The SQLite checkpointer stores each channel value once per version, and reads back whole.

A small graph writes a large channel once and then a small one step after step. With
LangGraph's plain SQLite saver every checkpoint copies the large value; with ours a step that
changes the small field stores that field only, and the state, its history and a thread that
the plain saver began read back the same.
"""

from __future__ import annotations

import operator
from pathlib import Path
from typing import Annotated, Any, TypedDict

import aiosqlite
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.graph import END, START, StateGraph

from deep_research.persistence.checkpointer import (
    SERDE_ALLOWLIST,
    make_serde,
    open_checkpointer,
)
from deep_research.persistence.sqlite_saver import BlobSqliteSaver

BIG = [f"source number {i} with a long enough title to matter" for i in range(400)]


class Steps(TypedDict, total=False):
    big: list[str]
    small: str
    count: Annotated[int, operator.add]


def _graph(saver: BaseCheckpointSaver[str]) -> Any:
    def fill(state: Steps) -> dict[str, Any]:
        return {"big": BIG, "count": 1} if not state.get("big") else {"count": 1}

    def touch(state: Steps) -> dict[str, Any]:
        return {"small": f"step {state.get('count', 0)}", "count": 1}

    builder = StateGraph(Steps)
    builder.add_node("fill", fill)
    builder.add_node("touch_1", touch)
    builder.add_node("touch_2", touch)
    builder.add_node("touch_3", touch)
    builder.add_edge(START, "fill")
    builder.add_edge("fill", "touch_1")
    builder.add_edge("touch_1", "touch_2")
    builder.add_edge("touch_2", "touch_3")
    builder.add_edge("touch_3", END)
    return builder.compile(checkpointer=saver)


async def _bytes(path: Path) -> dict[str, int]:
    """Bytes of each stored checkpoint (its row and the blobs first stored with it)."""
    async with aiosqlite.connect(path) as conn:
        cursor = await conn.execute(
            "SELECT checkpoint_id, length(checkpoint) FROM checkpoints ORDER BY checkpoint_id"
        )
        return {row[0]: row[1] for row in await cursor.fetchall()}


async def _blob_bytes(path: Path) -> int:
    async with aiosqlite.connect(path) as conn:
        cursor = await conn.execute("SELECT coalesce(sum(length(blob)), 0) FROM checkpoint_blobs")
        row = await cursor.fetchone()
        assert row is not None
        return int(row[0])


CONFIG: Any = {"configurable": {"thread_id": "t"}}


def _uncompressed() -> JsonPlusSerializer:
    """The serializer without compression, so that sizes count what is copied, not its zlib."""
    return JsonPlusSerializer(allowed_msgpack_modules=SERDE_ALLOWLIST)


async def test_a_small_step_stores_the_small_field_only(tmp_path: Path) -> None:
    plain_path, ours_path = tmp_path / "plain.sqlite", tmp_path / "ours.sqlite"
    async with AsyncSqliteSaver.from_conn_string(str(plain_path)) as plain:
        plain.serde = _uncompressed()
        await _graph(plain).ainvoke({}, CONFIG)
    async with open_checkpointer(f"sqlite:///{ours_path}") as ours:
        assert isinstance(ours, BlobSqliteSaver)
        ours.serde = _uncompressed()
        final = await _graph(ours).ainvoke({}, CONFIG)
    assert final == {"big": BIG, "small": "step 3", "count": 4}
    plain_sizes, our_sizes = await _bytes(plain_path), await _bytes(ours_path)
    assert len(plain_sizes) == len(our_sizes)
    big = len(_uncompressed().dumps_typed(BIG)[1])
    # the plain saver copies the big list into every checkpoint after fill; ours never does
    assert sum(plain_sizes.values()) > 4 * big
    assert max(our_sizes.values()) < big / 4
    assert big <= await _blob_bytes(ours_path) < 2 * big


async def test_state_and_history_read_back_whole(tmp_path: Path) -> None:
    async with open_checkpointer(f"sqlite:///{tmp_path / 'c.sqlite'}") as saver:
        graph = _graph(saver)
        await graph.ainvoke({}, CONFIG)
        state = await graph.aget_state(CONFIG)
        assert state.values == {"big": BIG, "small": "step 3", "count": 4}
        history = [s async for s in graph.aget_state_history(CONFIG)]
        assert [s.values.get("small") for s in history[:4]] == [
            "step 3",
            "step 2",
            "step 1",
            None,
        ]
        assert all(s.values.get("big") == BIG for s in history[:4])
    async with open_checkpointer(f"sqlite:///{tmp_path / 'c.sqlite'}") as reopened:
        again = await _graph(reopened).aget_state(CONFIG)
        assert again.values == state.values


async def test_a_thread_the_plain_saver_began_continues_without_losing_values(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.sqlite"
    async with AsyncSqliteSaver.from_conn_string(str(path)) as plain:
        plain.serde = make_serde()
        await _graph(plain).ainvoke({}, CONFIG)
    async with open_checkpointer(f"sqlite:///{path}") as ours:
        graph = _graph(ours)
        assert (await graph.aget_state(CONFIG)).values["big"] == BIG
        # a second run of the thread: fill leaves big alone, whose value the plain saver stored
        await graph.ainvoke({}, CONFIG)
    async with open_checkpointer(f"sqlite:///{path}") as reopened:
        values = (await _graph(reopened).aget_state(CONFIG)).values
        assert values == {"big": BIG, "small": "step 7", "count": 8}


async def test_deleting_a_thread_deletes_its_blobs(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    async with open_checkpointer(f"sqlite:///{path}") as saver:
        await _graph(saver).ainvoke({}, CONFIG)
        await _graph(saver).ainvoke({}, {"configurable": {"thread_id": "other"}})
        await saver.adelete_thread("t")
        assert await saver.aget_tuple(CONFIG) is None
        other = await _graph(saver).aget_state({"configurable": {"thread_id": "other"}})
        assert other.values["big"] == BIG
    async with aiosqlite.connect(path) as conn:
        cursor = await conn.execute("SELECT DISTINCT thread_id FROM checkpoint_blobs")
        assert [row[0] for row in await cursor.fetchall()] == ["other"]
