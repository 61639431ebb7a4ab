"""The SQLite content store keeps working while other connections write to its file."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import pytest
from langgraph.store.base import GetOp, PutOp
from langgraph.store.sqlite.aio import AsyncSqliteStore

from deep_research.persistence.sqlite_store import ImmediateSqliteStore

NAMESPACE = ("documents",)


def _plain(path: str) -> AbstractAsyncContextManager[AsyncSqliteStore]:
    return AsyncSqliteStore.from_conn_string(path)


def _immediate(path: str) -> AbstractAsyncContextManager[AsyncSqliteStore]:
    return ImmediateSqliteStore.open(path)


async def _read_then_write(
    store: AsyncSqliteStore, other: sqlite3.Connection
) -> tuple[list[Any], list[str]]:
    """One batch that reads and writes, while ``other`` writes between its read and its write."""
    seen: list[str] = []
    read = store._batch_get_ops

    async def read_then_other_writes(*args: Any) -> None:
        await read(*args)
        try:
            other.execute("INSERT INTO store (prefix, key, value) VALUES ('other', 'x', '{}')")
            seen.append("the other connection wrote")
        except sqlite3.OperationalError:
            seen.append("the other connection waited")

    store._batch_get_ops = read_then_other_writes  # type: ignore[method-assign,assignment]
    try:
        results = await store.abatch([GetOp(NAMESPACE, "a"), PutOp(NAMESPACE, "b", {"text": "b"})])
    finally:
        store._batch_get_ops = read  # type: ignore[method-assign]
    return results, seen


@pytest.fixture
async def wal_file(tmp_path: Path) -> AsyncIterator[tuple[str, sqlite3.Connection]]:
    path = str(tmp_path / "store.sqlite")
    other = sqlite3.connect(path, timeout=0.1, isolation_level=None)
    other.execute("PRAGMA journal_mode=WAL")  # as the domain store sets it on the shared file
    yield path, other
    other.close()


async def test_a_batch_that_reads_then_writes_survives_another_connections_write(
    wal_file: tuple[str, sqlite3.Connection],
) -> None:
    path, other = wal_file
    async with _immediate(path) as store:
        await store.setup()
        await store.aput(NAMESPACE, "a", {"text": "a"})
        results, seen = await _read_then_write(store, other)
        assert results[0].value == {"text": "a"}
        stored = await store.aget(NAMESPACE, "b")
        assert stored is not None and stored.value == {"text": "b"}
    assert seen == ["the other connection waited"], "the batch held the write lock from its start"


async def test_langgraphs_own_store_fails_that_batch(
    wal_file: tuple[str, sqlite3.Connection],
) -> None:
    """Why the project opens its own: the deferred transaction cannot write after the read."""
    path, other = wal_file
    async with _plain(path) as store:
        await store.setup()
        await store.aput(NAMESPACE, "a", {"text": "a"})
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            await _read_then_write(store, other)


async def test_a_failed_batch_is_rolled_back(wal_file: tuple[str, sqlite3.Connection]) -> None:
    path, _ = wal_file
    async with _immediate(path) as store:
        await store.setup()
        bad = PutOp(NAMESPACE, "c", {"text": object()})  # cannot be stored as JSON
        with pytest.raises(TypeError):
            await store.abatch([PutOp(NAMESPACE, "b", {"text": "b"}), bad])
        assert await store.aget(NAMESPACE, "b") is None, "nothing of the failed batch is kept"
        await store.aput(NAMESPACE, "d", {"text": "d"})  # and the connection is usable
        assert await store.aget(NAMESPACE, "d") is not None
