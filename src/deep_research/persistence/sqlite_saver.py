"""The SQLite checkpointer, storing each channel's value once per version.

LangGraph's :class:`AsyncSqliteSaver` serializes a checkpoint with all its channel values in
one blob, so a step that changes one small field copies the plan, the messages, the report and
the chat's source pool again. :class:`BlobSqliteSaver` keeps LangGraph's tables and adds a
``checkpoint_blobs`` table, as LangGraph's PostgreSQL saver does: a checkpoint's row holds its
versions and metadata, and each channel's value is stored once, under the version that wrote
it. Reading a checkpoint puts the values of its versions back.

Every write (a checkpoint with its blobs, a task's writes, a thread's deletion) is one
transaction that holds the file's write lock from its start, and is rolled back when it does
not end (:meth:`BlobSqliteSaver._writing`); a write under a closed thread (a deleted or purged
chat's, :mod:`~deep_research.persistence.closed`) is refused inside that transaction.

Two things stay in the checkpoint's own blob: the snapshots of ``DeltaChannel``s (LangGraph's
fast path for replaying them reads them from there), and the values of checkpoints written by
the plain saver (a file from before this saver still reads as it did).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from typing import Any

import aiosqlite
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    WRITES_IDX_MAP,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    get_checkpoint_metadata,
)
from langgraph.checkpoint.serde.base import SerializerProtocol
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from deep_research.langgraph_internals import DeltaSnapshot
from deep_research.persistence.closed import closed_error, sqlite_closed
from deep_research.persistence.db import SQLITE_BUSY_TIMEOUT_MS
from deep_research.persistence.versions import ShortVersions

BLOBS_TABLE = """
CREATE TABLE IF NOT EXISTS checkpoint_blobs (
    thread_id TEXT NOT NULL,
    checkpoint_ns TEXT NOT NULL DEFAULT '',
    channel TEXT NOT NULL,
    version TEXT NOT NULL,
    type TEXT NOT NULL,
    blob BLOB,
    PRIMARY KEY (thread_id, checkpoint_ns, channel, version)
)
"""

KNOWN_LIMIT = 100_000
"""Stored (thread, namespace, channel, version) keys remembered before the memory starts over."""

BlobKey = tuple[str, str, str, str]


class BlobSqliteSaver(ShortVersions, AsyncSqliteSaver):
    """:class:`AsyncSqliteSaver` that stores each channel value once per version.

    Its channel versions are short (:mod:`~deep_research.persistence.versions`).
    """

    def __init__(self, conn: aiosqlite.Connection, *, serde: SerializerProtocol | None = None):
        """Wrap ``conn`` as the plain saver does; nothing is known to be stored yet."""
        super().__init__(conn, serde=serde)
        self._known: set[BlobKey] = set()

    async def setup(self) -> None:
        """Create LangGraph's tables and the blobs table (idempotent).

        The connection waits for a busy file as long as the domain store's do.
        """
        if self.is_setup:
            return
        await super().setup()
        async with self.lock:
            await self.conn.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
            await self.conn.execute(BLOBS_TABLE)
            await self.conn.commit()

    def _remember(self, keys: list[BlobKey]) -> None:
        """Note blobs known to be stored, so that unchanged channels are not written again."""
        if len(self._known) + len(keys) > KNOWN_LIMIT:
            self._known.clear()  # forgetting only costs a redundant INSERT OR IGNORE later
        self._known.update(keys)

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        """Store the checkpoint without its channel values, and the values new in it as blobs.

        A value whose version is neither new nor known to be stored (the first checkpoint after
        one the plain saver wrote) is stored too; storing one twice is a no-op. Both go in one
        transaction (:meth:`_writing`), refused if the thread is closed.
        """
        await self.setup()
        thread_id = str(config["configurable"]["thread_id"])
        namespace = str(config["configurable"]["checkpoint_ns"])
        versions = checkpoint["channel_versions"]
        inline: dict[str, Any] = {}
        rows: list[tuple[str, str, str, str, str, bytes]] = []
        for channel, value in checkpoint["channel_values"].items():
            if isinstance(value, DeltaSnapshot) or channel not in versions:
                inline[channel] = value
                continue
            version = str(versions[channel])
            key = (thread_id, namespace, channel, version)
            if channel in new_versions or key not in self._known:
                rows.append((*key, *self.serde.dumps_typed(value)))
        type_, stored = self.serde.dumps_typed({**checkpoint, "channel_values": inline})
        stored_metadata = json.dumps(
            get_checkpoint_metadata(config, metadata), ensure_ascii=False
        ).encode("utf-8", "ignore")
        async with self._writing(thread_id):
            if rows:
                await self.conn.executemany(
                    "INSERT OR IGNORE INTO checkpoint_blobs"
                    " (thread_id, checkpoint_ns, channel, version, type, blob)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    rows,
                )
            await self.conn.execute(
                "INSERT OR REPLACE INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id,"
                " parent_checkpoint_id, type, checkpoint, metadata) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    thread_id,
                    namespace,
                    checkpoint["id"],
                    config["configurable"].get("checkpoint_id"),
                    type_,
                    stored,
                    stored_metadata,
                ),
            )
        self._remember([row[:4] for row in rows])
        return {
            "configurable": {
                "thread_id": config["configurable"]["thread_id"],
                "checkpoint_ns": namespace,
                "checkpoint_id": checkpoint["id"],
            }
        }

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """Store a task's pending writes as the plain saver does, in one :meth:`_writing`."""
        verb = "REPLACE" if all(channel in WRITES_IDX_MAP for channel, _ in writes) else "IGNORE"
        configurable = config["configurable"]
        thread_id = str(configurable["thread_id"])
        rows = [
            (
                thread_id,
                str(configurable["checkpoint_ns"]),
                str(configurable["checkpoint_id"]),
                task_id,
                task_path,
                WRITES_IDX_MAP.get(channel, idx),
                channel,
                *self.serde.dumps_typed(value),
            )
            for idx, (channel, value) in enumerate(writes)
        ]
        await self.setup()
        async with self._writing(thread_id):
            await self.conn.executemany(
                f"INSERT OR {verb} INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id,"
                " task_path, idx, channel, type, value) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )

    @asynccontextmanager
    async def _writing(self, thread_id: str | None) -> AsyncIterator[None]:
        """One write transaction on the saver's connection, refused if the thread is closed.

        The transaction takes the file's write lock first (``BEGIN IMMEDIATE``) and then looks
        the thread up (:func:`~deep_research.persistence.closed.sqlite_closed`), so the lookup
        and the writes are one step for every other connection: a purge that closes the thread
        and then deletes its checkpoints leaves none behind, whenever this write comes.

        It holds the saver's lock throughout, and anything but its end (an error, a
        cancellation: a chat deleted or purged while its run writes) rolls it back. Left open,
        the transaction would hold the write lock against every other connection (the server
        opens one saver per event loop) until something committed on this one.

        Raises:
            ChatClosedError: the thread's chat is deleted or was purged.
        """
        async with self.lock:
            committed = False
            try:
                # inside the try: cancelled while it waits for the lock, BEGIN may still run
                # (in aiosqlite's thread), and the ROLLBACK below must then end it
                await self.conn.execute("BEGIN IMMEDIATE")
                if thread_id is not None:
                    purged = await sqlite_closed(self.conn, thread_id)
                    if purged is not None:
                        raise closed_error(thread_id, purged=purged)
                yield
                await self.conn.commit()
                committed = True
            finally:
                if not committed:
                    with suppress(sqlite3.OperationalError):  # no transaction had begun
                        await self.conn.rollback()

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        """The checkpoint ``config`` names (or the thread's latest), with its channel values."""
        found = await super().aget_tuple(config)
        return None if found is None else await self._with_values(found)

    async def alist(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        """The checkpoints that match, newest first, with their channel values.

        The plain saver holds its lock while it yields, so the checkpoints are listed first and
        their values read after.
        """
        listed = [
            item async for item in super().alist(config, filter=filter, before=before, limit=limit)
        ]
        for item in listed:
            yield await self._with_values(item)

    async def adelete_thread(self, thread_id: str) -> None:
        """Delete the thread's checkpoints, writes and blobs, in one transaction."""
        async with self._writing(None):
            for table in ("checkpoints", "writes", "checkpoint_blobs"):
                await self.conn.execute(
                    f"DELETE FROM {table} WHERE thread_id = ?", (str(thread_id),)
                )
        self._known = {key for key in self._known if key[0] != str(thread_id)}

    async def _with_values(self, item: CheckpointTuple) -> CheckpointTuple:
        """``item`` with the values of its channel versions read from the blobs table."""
        checkpoint = item.checkpoint
        values = dict(checkpoint["channel_values"])
        wanted = {
            channel: str(version)
            for channel, version in checkpoint["channel_versions"].items()
            if channel not in values
        }
        if not wanted:
            return item
        thread_id = str(item.config["configurable"]["thread_id"])
        namespace = str(item.config["configurable"].get("checkpoint_ns", ""))
        found = await self._blobs(thread_id, namespace, wanted)
        for channel, (type_, blob) in found.items():
            values[channel] = self.serde.loads_typed((type_, blob))
        self._remember([(thread_id, namespace, channel, wanted[channel]) for channel in found])
        return item._replace(checkpoint={**checkpoint, "channel_values": values})

    async def _blobs(
        self, thread_id: str, namespace: str, wanted: Mapping[str, str]
    ) -> dict[str, tuple[str, bytes]]:
        """The stored ``(type, blob)`` of each channel at its wanted version, where there is one."""
        pairs = list(wanted.items())
        terms = " OR ".join(["(channel = ? AND version = ?)"] * len(pairs))
        params: list[str] = [thread_id, namespace]
        for channel, version in pairs:
            params += [channel, version]
        async with (
            self.lock,
            self.conn.execute(
                "SELECT channel, type, blob FROM checkpoint_blobs"
                f" WHERE thread_id = ? AND checkpoint_ns = ? AND ({terms})",
                params,
            ) as cursor,
        ):
            rows = await cursor.fetchall()
        return {channel: (type_, blob) for channel, type_, blob in rows}
